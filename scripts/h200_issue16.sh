#!/usr/bin/env bash
# Issue 16 on the lent H200 (scripts/h200_background.sh says how to run and wait). Carry
# .gpu-stack/cupti.whl (nvidia-cuda-cupti-cu12 12.5.82, for tf.profiler) with the last part.
# ResNet-50: PyTorch, then Keras 3 as it comes and with fused batch norm in three precisions, profiled;
# no conv biases and steps_per_execution (fused); tune on ResNet-50 at --budget 600 (its batch-norm
# lever); then XLA with fused batch norm.
set -u
source scripts/h200_background.sh i16 "${1:-run}" "${2:-}"
site=/root/tfgpu-stack/site
if [ -f .gpu-stack/cupti.whl ] && [ ! -d "$site/nvidia/cuda_cupti" ]; then
  python3 -m zipfile -e .gpu-stack/cupti.whl /tmp/cupti && cp -r /tmp/cupti/nvidia/cuda_cupti "$site/nvidia/"
  export LD_LIBRARY_PATH=$site/nvidia/cuda_cupti/lib:$LD_LIBRARY_PATH
fi
step resnet50-profiles python3 benchmarks/resnet50_tf_vs_torch.py --settings keras,fused \
  --precisions float32,mixed_bfloat16,mixed_float16 --profile --json "$o/resnet50-profiles.json"
step resnet50-levers python3 benchmarks/resnet50_tf_vs_torch.py --settings nobias,spe --no-torch --json "$o/resnet50-levers.json"
step tune-resnet50 python3 benchmarks/tune_resnet50.py --budget 600 --json "$o/tune-resnet50.json"
step resnet50-xla python3 benchmarks/resnet50_tf_vs_torch.py --settings xla --no-torch --timeout 420 --json "$o/resnet50-xla.json"
touch "$o/done"
