#!/usr/bin/env bash
# Produce docs/examples/ on the lent H200 (run there after `.gpu-stack/device.sh assemble`).
# Writes everything into $OUT/h200.tgz. See ../shared/gpu/README.md for the stack.
set -u
store=/root/tfgpu-stack
o=/tmp/h200; rm -rf "$o"; mkdir -p "$o"
export PYTHONUNBUFFERED=1
run() { local name=$1; shift; echo "== $name: $*"; ( "$@" ) >"$o/$name.out" 2>"$o/$name.err"; echo "rc=$?" >>"$o/$name.out"; tail -3 "$o/$name.out"; }

# 1. TF 2.21 from the tensorflow[and-cuda] wheels, no LD_LIBRARY_PATH line: the real wheel-layout fault.
export PYTHONPATH=$store/site:$PWD/src
unset LD_LIBRARY_PATH
run doctor-wheel-layout python3 -m tfgpu doctor
run doctor-wheel-layout-json python3 -m tfgpu doctor --json
run doctor-wheel-layout-md python3 -m tfgpu doctor --markdown
run env-wheel-layout python3 -m tfgpu env
run tf-log-wheel-layout env TF_CPP_MIN_LOG_LEVEL=0 python3 -c "import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))"
run worker-wheel-layout env TF_CPP_MIN_LOG_LEVEL=0 python3 src/tfgpu/probe/worker.py devices --output "$o/worker-wheel-layout.json"
run startup-bench python3 benchmarks/doctor_startup.py --runs 7

# 2. The fix tfgpu prints, applied.
eval "$(python3 -m tfgpu env)"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >"$o/ld-library-path-applied.txt"
run doctor-fixed python3 -m tfgpu doctor
run doctor-fixed-json python3 -m tfgpu doctor --json
run tf-log-fixed env TF_CPP_MIN_LOG_LEVEL=0 python3 -c "import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))"
run worker-fixed env TF_CPP_MIN_LOG_LEVEL=0 python3 src/tfgpu/probe/worker.py devices --output "$o/worker-fixed.json"

# 3. Fixed, but CUDA_VISIBLE_DEVICES="" hides the GPU.
run doctor-hidden env CUDA_VISIBLE_DEVICES= python3 -m tfgpu doctor
run doctor-hidden-json env CUDA_VISIBLE_DEVICES= python3 -m tfgpu doctor --json
run worker-hidden env CUDA_VISIBLE_DEVICES= TF_CPP_MIN_LOG_LEVEL=0 python3 src/tfgpu/probe/worker.py devices --output "$o/worker-hidden.json"

nvidia-smi >"$o/nvidia-smi.txt" 2>&1
tar -C /tmp -czf "$OUT/h200.tgz" h200
ls -la "$o" | head -50
