#!/usr/bin/env bash
# Issues 15 and 16 on the lent H200 (after `.gpu-stack/device.sh assemble`), in the background:
#   setsid nohup bash scripts/h200_issue15.sh run >/tmp/i15.log 2>&1 </dev/null &
#   bash scripts/h200_issue15.sh wait SECONDS    # tail the log until done or SECONDS pass, copy results to $OUT
# run: tune vs hand on the MNIST CNN at --budget 300, on ResNet-50 at --budget 600, then Keras 3's
# BatchNormalization against cuDNN's fused kernel in ResNet-50 (issue 16; since then through
# tfgpu.setup(batchnorm="fused")), and with REPEAT=N the best MNIST hand configuration in N fresh
# children (issue 15's run-to-run noise). Each benchmark gets a fresh
# TensorFlow child of its own; nothing else uses the GPU meanwhile.
set -u
o=/tmp/i15
if [ "${1:-}" = wait ]; then
  end=$((SECONDS + ${2:-500}))
  while [ $SECONDS -lt $end ] && [ ! -e "$o/done" ]; do sleep 10; done
  tail -25 /tmp/i15.log | cut -c1-230
  tar -C /tmp -czf "$OUT/i15.tgz" i15 i15.log 2>/dev/null; exit 0
fi
rm -rf "$o"; mkdir -p "$o"
source .gpu-stack/device.sh env
export PYTHONPATH=$PWD/src:$PYTHONPATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.used,utilization.gpu --format=csv >"$o/nvidia-smi.txt" 2>&1
step() {
  local name=$1 t0=$SECONDS; shift
  echo "== $name"; "$@" 2>"$o/$name.stderr" | tee "$o/$name.txt"; echo "[exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s]" | tee -a "$o/$name.txt"
}
step tune-mnist python3 benchmarks/tune_mnist.py --budget 300 --json "$o/tune-mnist.json"
step tune-resnet50 python3 benchmarks/tune_resnet50.py --budget 600 --json "$o/tune-resnet50.json"
step resnet50-batchnorm python3 benchmarks/resnet50_batchnorm.py --json "$o/resnet50-batchnorm.json"
[ "${REPEAT:-0}" -gt 0 ] && step mnist-repeat python3 benchmarks/tune_mnist.py --skip-tune --repeat "$REPEAT"
touch "$o/done"
