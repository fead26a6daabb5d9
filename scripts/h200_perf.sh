#!/usr/bin/env bash
# Issues 7 and 9 on the lent H200, in device calls of < 10 minutes each (after
# `.gpu-stack/device.sh assemble`; carry .whl with nvitop, gpustat, blessed, wcwidth, jinxed):
#   bash scripts/h200_perf.sh issue7       cuBLAS direct + logs, bench --suite full, TF vs torch, monitor cost
#   bash scripts/h200_perf.sh causes       burn --minutes 2, training causes, ResNet-50 hand configurations
#   bash scripts/h200_perf.sh tune-mnist   benchmarks/tune_mnist.py
#   bash scripts/h200_perf.sh tune-resnet  benchmarks/tune_resnet50.py with the hand figures of "causes"
#   bash scripts/h200_perf.sh next         not yet run: XLA compile-time flags, ResNet-50 input variants
#   bash scripts/h200_perf.sh gpu-tests    tests/gpu (needs pytest in the machine's Python)
#   bash scripts/h200_perf.sh resnet-input ResNet-50 with its batch on the GPU, per precision; prefetched; uint8
#   bash scripts/h200_perf.sh lease PART...  the parts one after another, in the background (setsid:
#                                          it outlives the call), for more than one call's 10 minutes
#   bash scripts/h200_perf.sh wait SECONDS   until the lease's parts are done or SECONDS pass
# Each part's files land in <part>.tgz (at most 8 files come back from a call), refreshed after
# every step so a call cut short still returns what it finished, copied to $OUT at the end of the
# call; state kept between the calls of one lease in /tmp/tfgpu-h200.
set -u
part=$1
root=$(pwd)
keep=/tmp/tfgpu-h200; mkdir -p "$keep/tgz"
case $part in
lease)
  shift
  rm -f "$keep/done"
  setsid nohup env -u OUT bash -c 'for p in "$@"; do bash scripts/h200_perf.sh "$p" >/dev/null 2>&1; done; touch /tmp/tfgpu-h200/done' \
    lease "$@" >/dev/null 2>&1 </dev/null &
  echo "lease started: $*"; exit 0 ;;
wait)
  end=$((SECONDS + $2))
  while [ ! -f "$keep/done" ] && [ $SECONDS -lt "$end" ]; do sleep 5; done
  for d in "$keep"/*/; do d=$(basename "$d"); [ "$d" = tgz ] || tar -C "$keep" -czf "$OUT/$d.tgz" "$d"; done
  for f in "$keep"/*/*.txt; do echo "== $f"; tail -8 "$f" | cut -c1-200; done
  [ -f "$keep/done" ] && echo "LEASE DONE"; exit 0 ;;
esac
o=$keep/$part; rm -rf "$o"; mkdir -p "$o"
source .gpu-stack/device.sh env
export PYTHONPATH=$PYTHONPATH:$root/src:/tmp/site PYTHONUNBUFFERED=1 TF_CPP_MIN_LOG_LEVEL=2
[ -d /tmp/site ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
step() {
  local limit=$1 name=$2; shift 2; local t0=$SECONDS
  timeout "$limit" "$@" >"$o/$name" 2>&1; echo "[exit $? after $((SECONDS - t0)) s]" >>"$o/$name"
  tar -C "$keep" -czf "$keep/tgz/$part.tgz" "$part"
}
bf16_product='import tensorflow as tf
a = tf.cast(tf.random.normal([8192, 8192]), tf.bfloat16)
for _ in range(3): float(tf.reduce_sum(tf.cast(tf.linalg.matmul(a, a)[:1, :1], tf.float32)))'
torch_product='import torch
a = torch.randn(8192, 8192, device="cuda").bfloat16()
for _ in range(3): float((a @ a)[0, 0])'
case $part in
issue7)
  { nvidia-smi; python3 -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda)";
    python3 -m pip list 2>/dev/null | grep -i -E "nvidia|tensorflow|keras|torch"; } >"$o/versions.txt" 2>&1
  step 90 cublas-direct.txt python3 benchmarks/cublas_direct.py
  step 90 tf-logged-run.txt env CUBLASLT_LOG_LEVEL=5 CUBLASLT_LOG_FILE="$o/tf-cublaslt.log" \
    CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG="$o/tf-cublas.log" python3 -c "$bf16_product"
  step 60 torch-logged-run.txt env CUBLASLT_LOG_LEVEL=5 CUBLASLT_LOG_FILE="$o/torch-cublaslt.log" \
    CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG="$o/torch-cublas.log" python3 -c "$torch_product"
  for f in "$o"/*.log; do [ -f "$f" ] && { head -c 400000 "$f" >"$f.head"; rm "$f"; }; done
  step 330 bench-full.txt python3 -m tfgpu bench --suite full --save "$o/bench-full.json"
  step 200 tf-vs-torch.txt python3 benchmarks/tf_vs_torch.py --json "$o/tf-vs-torch.json"
  step 60 monitor-per-sample.txt python3 -c "import sys; sys.path.insert(0, 'benchmarks'); import monitor_overhead as m; m.per_sample(500)"
  ;;
causes)
  step 170 burn-2min.txt python3 -m tfgpu burn --minutes 2
  step 260 training-causes.txt python3 benchmarks/training_causes.py --json "$o/training-causes.json"
  step 220 resnet50-hand.txt python3 benchmarks/tune_resnet50.py --skip-tune --json "$o/resnet50-hand.json"
  ;;
tune-mnist)
  step $((${BUDGET:-480} + 100)) tune-mnist.txt python3 benchmarks/tune_mnist.py --budget "${BUDGET:-480}" --json "$o/tune-mnist.json"
  ;;
tune-resnet)
  hand=(); [ -f "$keep/causes/resnet50-hand.json" ] && hand=(--hand-from "$keep/causes/resnet50-hand.json")
  step $((${BUDGET:-540} + 250)) tune-resnet50.txt python3 benchmarks/tune_resnet50.py --budget "${BUDGET:-540}" "${hand[@]}" --json "$o/tune-resnet50.json"
  ;;
gpu-tests)
  step 560 gpu-tests.txt env TFGPU_RUN_GPU_TESTS=1 python3 -m pytest -v -p no:cacheprovider tests/gpu
  ;;
next)
  step 280 xla-compile.txt python3 benchmarks/training_causes.py --only xla-compile --json "$o/xla-compile.json"
  step 280 resnet50-input.txt python3 benchmarks/training_causes.py --only resnet50-input --json "$o/resnet50-input.json"
  ;;
resnet-input)
  step 300 resnet50-input.txt python3 benchmarks/training_causes.py --only resnet50-input --json "$o/resnet50-input.json"
  ;;
esac
tar -C "$keep" -czf "$keep/tgz/$part.tgz" "$part"
[ -n "${OUT:-}" ] && cp "$keep/tgz/$part.tgz" "$OUT/"
for f in "$o"/*.txt; do echo "== $f"; tail -30 "$f" | cut -c1-220; done
