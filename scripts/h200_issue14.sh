#!/usr/bin/env bash
# Issue 14 on the lent H200, from the wheel layout exactly as pip leaves it (device.sh raw:
# PYTHONPATH only), applying only the fix tfgpu prints. Run after `.gpu-stack/device.sh assemble`:
#   bash scripts/h200_issue14.sh
# 1. doctor as pip leaves it; 2. eval "$(tfgpu env)", doctor (full and --quick), the guide's CNN
# under tfgpu run with Keras's defaults; 3. the same fix without nvidia/cuda_nvrtc/lib: doctor,
# the raw probe worker (fixtures), the CNN under tfgpu run, explain on its log.
# Everything lands in $OUT/i14.tgz, refreshed after each step.
set -u
phase=${1:-all}
o=/tmp/i14${phase#all}; rm -rf "$o"; mkdir -p "$o"
source .gpu-stack/device.sh raw
unset LD_LIBRARY_PATH
export PYTHONPATH=$PYTHONPATH:$PWD/src PYTHONUNBUFFERED=1
step() {
  local name=$1 t0=$SECONDS; shift
  timeout 400 "$@" >"$o/$name" 2>&1; echo "[exit $? after $((SECONDS - t0)) s]" >>"$o/$name"
  tail -4 "$o/$name" | cut -c1-220; tar -C /tmp -czf "/tmp/$(basename "$o").tgz" "$(basename "$o")"
}
if [ "$phase" = collect ]; then cp /tmp/i14*.tgz "$OUT/"; ls /tmp/i14*/; exit 0; fi
if [ "$phase" = 3 ]; then
  # With the probe's XLA budget (60 s): the full doctor as a user runs it, fixed and without nvrtc,
  # and the raw worker in the fixed layout (the FakeProbe fixture).
  eval "$(python3 -m tfgpu env 2>/dev/null)"; full=$LD_LIBRARY_PATH
  step doctor-fixed.txt python3 -m tfgpu doctor
  step worker-fixed.stderr env TF_CPP_MIN_LOG_LEVEL=0 python3 src/tfgpu/probe/worker.py devices --output "$o/worker-fixed.json"
  export LD_LIBRARY_PATH=$(echo "$full" | tr : '\n' | grep -v cuda_nvrtc | paste -sd:)
  step doctor-no-nvrtc.txt python3 -m tfgpu doctor
  echo PHASE3 DONE >"$o/done"; tar -C /tmp -czf "/tmp/$(basename "$o").tgz" "$(basename "$o")"; exit 0
fi
if [ "$phase" = 2 ]; then
  # The tiny CNN's first XLA epoch took 135 s in phase 1 (the probe timed out at 180 s): the
  # no-nvrtc checks with --quick and the worker's own limit, then where XLA's time goes.
  eval "$(python3 -m tfgpu env 2>/dev/null)"; full=$LD_LIBRARY_PATH
  export LD_LIBRARY_PATH=$(echo "$full" | tr : '\n' | grep -v cuda_nvrtc | paste -sd:)
  step doctor-no-nvrtc-quick.txt python3 -m tfgpu doctor --quick
  step worker-no-nvrtc.stderr env TF_CPP_MIN_LOG_LEVEL=0 python3 src/tfgpu/probe/worker.py devices --output "$o/worker-no-nvrtc.json"
  step run-first-cnn-no-nvrtc.txt python3 -m tfgpu run -- python3 examples/first_cnn.py
  step explain-no-nvrtc.txt python3 -m tfgpu explain "$o/run-first-cnn-no-nvrtc.txt"
  export LD_LIBRARY_PATH=$full
  step xla-autotune-0.txt env XLA_FLAGS=--xla_gpu_autotune_level=0 TF_CPP_MIN_LOG_LEVEL=0 python3 benchmarks/xla_first_step.py
  step xla-vlog.txt env TF_CPP_MIN_LOG_LEVEL=0 TF_CPP_VMODULE=conv_algorithm_picker=2,autotuner_util=2,gpu_compiler=1,nvptx_compiler=1 python3 benchmarks/xla_first_step.py
  echo PHASE2 DONE >"$o/done"; tar -C /tmp -czf "/tmp/$(basename "$o").tgz" "$(basename "$o")"; exit 0
fi
nvidia-smi --query-gpu=name,driver_version,memory.used,utilization.gpu --format=csv >"$o/nvidia-smi.txt" 2>&1
step doctor-raw.json python3 -m tfgpu doctor --json
step env-raw.txt python3 -m tfgpu env
eval "$(python3 -m tfgpu env 2>/dev/null)"
full=$LD_LIBRARY_PATH; echo "LD_LIBRARY_PATH=$full" >"$o/fix-applied.txt"
step doctor-fixed.txt python3 -m tfgpu doctor
step doctor-fixed.json python3 -m tfgpu doctor --json
step doctor-fixed-quick.txt python3 -m tfgpu doctor --quick
step run-first-cnn.txt python3 -m tfgpu run -- python3 examples/first_cnn.py
export LD_LIBRARY_PATH=$(echo "$full" | tr : '\n' | grep -v cuda_nvrtc | paste -sd:)
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >"$o/fix-without-nvrtc.txt"
step doctor-no-nvrtc.txt python3 -m tfgpu doctor
step worker-no-nvrtc.stderr env TF_CPP_MIN_LOG_LEVEL=0 python3 src/tfgpu/probe/worker.py devices --output "$o/worker-no-nvrtc.json"
step run-first-cnn-no-nvrtc.txt python3 -m tfgpu run -- python3 examples/first_cnn.py
step explain-no-nvrtc.txt python3 -m tfgpu explain "$o/run-first-cnn-no-nvrtc.txt"
export LD_LIBRARY_PATH=$full
step worker-fixed.stderr env TF_CPP_MIN_LOG_LEVEL=0 python3 src/tfgpu/probe/worker.py devices --output "$o/worker-fixed.json"
echo DONE
