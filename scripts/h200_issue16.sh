#!/usr/bin/env bash
# Issue 16 on the lent H200 (scripts/h200_background.sh says how to run and wait). Carry
# .gpu-stack/cupti.whl (nvidia-cuda-cupti-cu12 12.5.82, for tf.profiler) with the last part.
# STEPS picks and orders the parts (default: all, ~27 min with staging: more than one session's
# device time holds, so choose):
#   profiles  PyTorch, then Keras 3 as it comes and with fused batch norm in three precisions, profiled (~5 min)
#   levers    no conv biases and steps_per_execution, with fused batch norm (~3 min)
#   tune      tune on ResNet-50 at --budget 600 against hand configurations, fused among them (~13 min)
#   xla       fused batch norm under jit_compile=True, up to 7 min for its compilation
#   gputests  tests/gpu's fused batch norm tests: Keras's results through cuDNN, and the speed-up via bench (~2 min)
set -u
source scripts/h200_background.sh i16 "${1:-run}" "${2:-}"
site=/root/tfgpu-stack/site
if [ -f .gpu-stack/cupti.whl ] && [ ! -d "$site/nvidia/cuda_cupti" ]; then
  python3 -m zipfile -e .gpu-stack/cupti.whl /tmp/cupti && cp -r /tmp/cupti/nvidia/cuda_cupti "$site/nvidia/"
fi
export LD_LIBRARY_PATH=$site/nvidia/cuda_cupti/lib:$LD_LIBRARY_PATH
bench=benchmarks/resnet50_tf_vs_torch.py
for part in ${STEPS:-profiles levers tune xla}; do
  case $part in
    profiles) step resnet50-profiles python3 $bench --settings keras,fused \
                --precisions float32,mixed_bfloat16,mixed_float16 --profile --json "$o/resnet50-profiles.json"
              (cd /tmp/tfgpu-profile && find . -name gpu-planes.xplane.pb | tar -czf "$o/gpu-planes.tgz" -T -) ;;
    levers) step resnet50-levers python3 $bench --settings nobias,spe --no-torch --json "$o/resnet50-levers.json" ;;
    tune) step tune-resnet50 python3 benchmarks/tune_resnet50.py --budget 600 --json "$o/tune-resnet50.json" ;;
    xla) step resnet50-xla python3 $bench --settings xla --no-torch --timeout 420 --json "$o/resnet50-xla.json" ;;
    gputests) step gpu-tests env TFGPU_RUN_GPU_TESTS=1 python3 -m pytest -v -p no:cacheprovider tests/gpu -k fused ;;
    *) echo "unknown part $part" ;;
  esac
done
touch "$o/done"
