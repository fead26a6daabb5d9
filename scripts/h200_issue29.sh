#!/usr/bin/env bash
# Issue 29 on the lent H200: PyTorch's cuDNN pin beside TF, as a user's virtual environment has it.
# `pip install torch==2.5.1` (its wheel for CUDA 12.4) after `pip install tensorflow[and-cuda]`
# replaces TF's nvidia-cudnn-cu12 9.3.0.75 with the 9.1.0.70 torch pins. Here: a venv holding the
# stack's wheels (hard links of /root/tfgpu-stack/site), pip itself installing the real 9.1.0.70 wheel
# (pruned to sm_90 like the stack, carried as .gpu-stack/cudnn91-*) with torch 2.5.1's Requires-Dist
# (tests/fixtures/packages/torch-2.5.1-METADATA, from pip's --report), then what a user does:
# `tfgpu env`'s line, the doctor, a Keras CNN with Keras's defaults, exactly the fix the doctor
# printed (pip reaches a local wheel directory through PIP_NO_INDEX/PIP_FIND_LINKS: no network
# there), the doctor and the CNN again. The CNN after the fix runs under GpuMonitor(textfile=...)
# (issue 30: the exporter's training gauges from a real fit, read back by prometheus_client's parser).
# STEPS picks the parts: cudnn, tune (benchmarks/tune_resnet50.py --budget TUNE_BUDGET, issue 26's XLA reserve),
# cachefit (issue 30: the same CNN under `tfgpu run` twice, GpuMonitor's textfile after each: the XLA
# cache's compiles, then its loads, the epoch's idle ratio and verdict, on the GPU).
set -u
NAME=${NAME:-i29}
RAW=1 source scripts/h200_background.sh "$NAME" "${1:-run}" "${2:-}"
store=/root/tfgpu-stack site=/root/tfgpu-stack/site venv=/root/venv29 wheels=/root/wheels29
mkdir -p /root/wheels && cp .whl/*.whl /root/wheels/ 2>/dev/null
python3 -m pip install -q --no-index --no-deps --target /root/promc /root/wheels/prometheus_client*.whl
keras_cnn() {  # a Keras CNN with Keras's defaults (jit_compile="auto": XLA on a GPU; convolutions through cuDNN)
  python3 - "$@" <<'PY'
import sys
import numpy as np, keras
rng = np.random.default_rng(0)
x, y = rng.random((8192, 28, 28, 1), dtype=np.float32), rng.integers(0, 10, 8192)
model = keras.Sequential([
    keras.Input((28, 28, 1)),
    keras.layers.Conv2D(32, 3, activation="relu"), keras.layers.MaxPooling2D(),
    keras.layers.Conv2D(64, 3, activation="relu"), keras.layers.MaxPooling2D(),
    keras.layers.Flatten(), keras.layers.Dense(10),
])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
callbacks = []
if len(sys.argv) > 1:
    from tfgpu.integrations.keras import GpuMonitor
    callbacks.append(GpuMonitor(textfile=sys.argv[1], batch_size=128))
history = model.fit(x, y, epochs=3, batch_size=128, verbose=2, callbacks=callbacks)
print("trained: loss", [round(v, 4) for v in history.history["loss"]], "jit_compile", model.jit_compile)
PY
}
cudnn() {
  mkdir -p "$wheels"
  cat /root/cudnn91-* >"$wheels/nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl"  # moved there as carried
  # The 9.3.0.75 wheel the fix reinstalls: packed from the stack's own copy (the same pruned files).
  rm -rf /tmp/cudnn93 && mkdir -p /tmp/cudnn93/nvidia
  cp -a "$site/nvidia/cudnn" /tmp/cudnn93/nvidia/ && cp -a "$site"/nvidia_cudnn_cu12-*.dist-info /tmp/cudnn93/
  python3 -m wheel pack /tmp/cudnn93 -d "$wheels" >"$o/wheel-pack.txt" 2>&1
  ls -la "$wheels" >>"$o/wheel-pack.txt"
  rm -rf "$venv" && python3 -m venv --without-pip --system-site-packages "$venv"
  local sp; sp=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  cp -al "$site"/. "$sp"/
  # The device's python3 is itself a venv (/opt/torch/.venv: nvidia-ml-py, rich, packaging, pip):
  # its packages come after the venv's own, as a user's installed tools would.
  python3 -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" >"$sp/zz-device-python.pth"
  ( # the user's shell: their venv, tfgpu from this tree, nothing else on the paths
    unset PYTHONPATH; export LD_LIBRARY_PATH=$base_ld_library_path
    export PATH=$venv/bin:$PATH PYTHONPATH=$PWD/src:/root/promc
    python -m pip install --no-index --find-links "$wheels" --no-deps 'nvidia-cudnn-cu12==9.1.0.70' >"$o/pip-torch-pin.txt" 2>&1
    mkdir -p "$sp/torch-2.5.1.dist-info" && cp tests/fixtures/packages/torch-2.5.1-METADATA "$sp/torch-2.5.1.dist-info/METADATA"
    echo pip >"$sp/torch-2.5.1.dist-info/INSTALLER"
    python -m pip list 2>/dev/null | grep -i -E "cudnn|torch|tensorflow " >"$o/pip-list-before.txt"
    python -m tfgpu env >"$o/cudnn-tfgpu-env.txt" 2>&1; eval "$(python -m tfgpu env 2>/dev/null)"
    step cudnn-doctor python -m tfgpu doctor --exit-zero
    python -m tfgpu doctor --json --exit-zero >"$o/cudnn-doctor.json" 2>"$o/cudnn-doctor-json.stderr"
    step cudnn-keras keras_cnn
    fix=$(python -c "import json,sys; d=json.load(open(sys.argv[1])); print(next((f.get('hint') or '') for f in d['findings'] if f['id']=='cudnn-older-than-build'))" "$o/cudnn-doctor.json" 2>"$o/cudnn-fix.err")
    echo "$fix" >"$o/cudnn-fix.txt"
    ( export PIP_NO_INDEX=1 PIP_FIND_LINKS=$wheels; [ -n "$fix" ] && eval "$fix" ) >"$o/cudnn-fix-output.txt" 2>&1
    echo "fix exit $?" >>"$o/cudnn-fix-output.txt"
    python -m pip list 2>/dev/null | grep -i -E "cudnn|torch|tensorflow " >"$o/pip-list-after.txt"
    step cudnn-doctor-fixed python -m tfgpu doctor --exit-zero
    step cudnn-keras-fixed keras_cnn "$o/gpumonitor.prom"
    python3 - "$o/gpumonitor.prom" >"$o/gpumonitor-parsed.txt" 2>&1 <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
for family in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in family.samples:
        if s.name.startswith(("tfgpu_training", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE")):
            print(s.name, s.labels, s.value)
PY
  )
}
cachefit() {
  sed -n "/^  python3 - \"\$@\" <<'PY'$/,/^PY$/p" scripts/h200_issue29.sh | sed '1d;$d' >"$o/cnn.py"
  for run in 1 2; do
    step "cachefit-$run" env PYTHONPATH="/root/promc:$PYTHONPATH" python3 -m tfgpu run -- python3 "$o/cnn.py" "$o/cachefit-$run.prom"
    python3 - "$o/cachefit-$run.prom" >"$o/cachefit-$run-parsed.txt" 2>&1 <<'PY'
import sys
sys.path.insert(0, "/root/promc")
from prometheus_client.parser import text_string_to_metric_families
for family in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in family.samples:
        if s.name.startswith(("tfgpu_training", "tfgpu_xla", "DCGM_FI_DEV_GPU_UTIL")):
            print(s.name, s.labels, s.value)
PY
  done
}
for part in ${STEPS:-cudnn tune}; do
  case $part in
    cudnn) cudnn ;;
    cachefit) cachefit ;;
    tune) step tune python3 benchmarks/tune_resnet50.py --budget "${TUNE_BUDGET:-300}" \
            --hand-from docs/examples/h200-tune-resnet50-warm-2026-12-03.json --json "$o/tune.json" ;;
    *) echo "unknown part $part" ;;
  esac
done
touch "$o/done"
