#!/usr/bin/env bash
# Issue 24 (XLA that pays once) on the lent H200, from the wheel layout as pip leaves it plus the
# lines `tfgpu env` prints (RAW=1; scripts/h200_background.sh says how to run and wait). Carry
# .whl (py-spy) in the call that starts it. STEPS picks the parts:
#   mnist    the seed guide's CNN under tfgpu run, twice with one cache (~2.5 min)
#   phases   the same CNN once more with a fresh cache and XLA's phase timers, py-spy stacks every 5 s (~1.5 min)
#   torch    PyTorch's ResNet-50 b256 on the same GPU (the peer; its own CUDA, so without LD_LIBRARY_PATH) (~1 min)
#   nojit-fused, nojit-keras  Keras 3 ResNet-50 b256 without XLA, fused batch norm or Keras's own (~1 min each)
#   resnet   Keras 3 ResNet-50 (fused batch norm, jit_compile=True) twice with one cache, timers and stacks (<= 2 x RESNET_TIMEOUT)
#   resnet-keras  the same with Keras's own BatchNormalization (tfgpu's automatic XLA lever, no user flag)
#   quiet    issue 23: the CNN with fit(verbose=0) and --xla-cache off (no cache, no lever: XLA's whole compile), once
#   profiles issue 26: ResNet-50 (PROFILE_SETTINGS of resnet50_tf_vs_torch.py, default xla: fused batch norm under XLA through tfgpu.setup), float32 and bf16, kernel
#            profiles, against PyTorch's rates and torch.profiler (~4 min; carry .gpu-stack/cupti.whl)
set -u
RAW=1 source scripts/h200_background.sh "${NAME:-i24}" "${1:-run}" "${2:-}"
if [ -d .whl ] && [ ! -x /root/pyspy/bin/py-spy ]; then
  python3 -m pip install -q --no-index --no-deps --target /root/pyspy .whl/py_spy*.whl
fi
spy=/root/pyspy/bin/py-spy
site=/root/tfgpu-stack/site
if [ -f .gpu-stack/cupti.whl ] && [ ! -d "$site/nvidia/cuda_cupti" ]; then  # tf.profiler's libcupti.so.12, for profiles
  python3 -m zipfile -e .gpu-stack/cupti.whl /tmp/cupti && cp -r /tmp/cupti/nvidia/cuda_cupti "$site/nvidia/"
fi
timers=TF_CPP_VMODULE=gpu_compiler=1,nvptx_compiler=1,device_compiler=1,autotuner_util=1,gemm_fusion_autotuner=1,conv_algorithm_picker=1,gemm_algorithm_picker=1,compile_module_to_llvm_ir=1
stacks() {  # stacks NAME PATTERN PERIOD: native stacks of the training process (not tfgpu run above it) until it ends
  local name=$1 pattern=$2 period=$3 pid=""
  for _ in $(seq 60); do pid=$(pgrep -f "$pattern" | head -1); [ -n "$pid" ] && break; sleep 1; done
  [ -n "$pid" ] || return 0
  while kill -0 "$pid" 2>/dev/null; do
    { echo "=== $(date +%T) ptxas=$(pgrep -c ptxas) threads=$(ls /proc/$pid/task 2>/dev/null | wc -l)"
      timeout 20 "$spy" dump --native --pid "$pid" 2>&1 | head -60; } >>"$o/$name-stacks.txt"
    sleep "$period"
  done
}
for part in ${STEPS:-mnist phases nojit-fused resnet torch nojit-keras}; do
  case $part in
    mnist) step mnist python3 benchmarks/xla_cache.py mnist --runs 2 --cache /tmp/i24-mnist --json "$o/mnist.json" ;;
    phases) stacks phases '^[^ ]+ [^ ]*first_cnn[.]py' 5 & step phases python3 benchmarks/xla_cache.py mnist --runs 1 \
              --cache /tmp/i24-phases --env "$timers" --stderr "$o/phases" --json "$o/phases.json"; wait ;;
    torch) step torch env -u LD_LIBRARY_PATH python3 benchmarks/torch_resnet50.py ;;
    nojit-fused|nojit-keras) step "$part" python3 benchmarks/xla_cache.py resnet50 --runs 1 --jit off \
              --batchnorm "${part#nojit-}" --json "$o/$part.json" ;;
    resnet) stacks resnet '^[^ ]+ [^ ]*xla_cache[.]py resnet50-child' "${STACK_PERIOD:-20}" & step resnet python3 benchmarks/xla_cache.py resnet50 --runs 2 \
              --cache /tmp/i24-resnet --timeout "${RESNET_TIMEOUT:-420}" --env "$timers" --stderr "$o/resnet" --json "$o/resnet.json"; wait ;;
    resnet-keras) stacks resnet-keras '^[^ ]+ [^ ]*xla_cache[.]py resnet50-child' 60 & step resnet-keras python3 benchmarks/xla_cache.py \
              resnet50 --runs 2 --batchnorm keras --cache /tmp/i24-resnet-keras --timeout "${RESNET_TIMEOUT:-420}" \
              --env "$timers" --stderr "$o/resnet-keras" --json "$o/resnet-keras.json"; wait ;;
    quiet) step quiet python3 benchmarks/xla_cache.py mnist --runs 1 --verbose 0 --run-option=--xla-cache=off \
              --cache /tmp/i24-quiet --stderr "$o/quiet" --json "$o/quiet.json" ;;
    profiles) step profiles env LD_LIBRARY_PATH="$site/nvidia/cuda_cupti/lib:${LD_LIBRARY_PATH:-}" \
              python3 benchmarks/resnet50_tf_vs_torch.py --settings "${PROFILE_SETTINGS:-xla}" --precisions float32,mixed_bfloat16 --profile \
              --timeout 420 --json "$o/profiles.json"
              (cd /tmp/tfgpu-profile 2>/dev/null && find . -name gpu-planes.xplane.pb | tar -czf "$o/gpu-planes.tgz" -T -) ;;
    *) echo "unknown part $part" ;;
  esac
done
TFGPU_CACHE_DIR=/tmp/i24-mnist python3 -m tfgpu cache >"$o/cache.txt" 2>&1
touch "$o/done"
