#!/usr/bin/env bash
# Issues 26, 29 and 30 on the lent H200, from the wheel layout as pip leaves it plus the lines
# `tfgpu env` prints (RAW=1; scripts/h200_background.sh says how to run and wait). Carry
# .gpu-stack/cupti.whl (tf.profiler's libcupti.so.12) and .whl (prometheus_client, and the
# nvidia-cuda-nvcc-cu12 12.2 wheel for its old ptxas) in the call that starts it. STEPS picks the parts:
#   exporter  issue 30: `tfgpu monitor --prometheus-port 9400` in the background for the whole run,
#             scraped every 20 s; prometheus_client's own parser reads the scrapes at the end
#   profiles  issue 26: resnet50_tf_vs_torch.py, every setting in float32 and bf16 with kernel
#             profiles against PyTorch, then fit() with and without steps_per_execution under XLA (~11 min)
#   ptxas     issue 29: a CUDA 12.2 ptxas first on PATH (as `export PATH=/usr/local/cuda-12.2/bin:$PATH`
#             leaves it): the doctor, a Keras model with Keras's defaults, then the doctor's printed fix
#   bench     issue 26: tfgpu bench --suite models (ResNet-50 with each lever, against PyTorch's rate)
#   tune      issue 26: benchmarks/tune_resnet50.py --budget TUNE_BUDGET against the hand trials of 2026-12-03
set -u
RAW=1 source scripts/h200_background.sh "${NAME:-i26}" "${1:-run}" "${2:-}"
site=/root/tfgpu-stack/site
mkdir -p /root/wheels && cp .whl/*.whl /root/wheels/ 2>/dev/null
if [ -f .gpu-stack/cupti.whl ] && [ ! -d "$site/nvidia/cuda_cupti" ]; then
  python3 -m zipfile -e .gpu-stack/cupti.whl /tmp/cupti && cp -r /tmp/cupti/nvidia/cuda_cupti "$site/nvidia/"
fi
exporter() {  # the monitor's Prometheus endpoint, scraped until the run is done
  python3 -m pip install -q --no-index --no-deps --target /root/promc /root/wheels/prometheus_client*.whl
  mkdir -p "$o/exporter"
  PYTHONPATH=/root/promc:$PYTHONPATH python3 -m tfgpu monitor --prometheus-port 9400 --interval 1 \
    >"$o/exporter/monitor.txt" 2>&1 &
  local n=0
  while [ ! -e "$o/done" ]; do
    sleep 20; n=$((n + 1))
    python3 -c "import sys,urllib.request; sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:9400/metrics', timeout=5).read().decode())" \
      >"$o/exporter/scrape-$(printf %03d $n).prom" 2>&1
    nvidia-smi --query-gpu=utilization.gpu,memory.used,power.draw --format=csv,noheader >>"$o/exporter/nvidia-smi.csv"
  done
}
keras_defaults() {  # a real Keras model with Keras's defaults (jit_compile="auto": XLA on a GPU)
  python3 - <<'EOF'
import numpy as np, keras
rng = np.random.default_rng(0)
x, y = rng.random((4096, 784), dtype=np.float32), rng.integers(0, 10, 4096)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(256, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
history = model.fit(x, y, epochs=2, batch_size=64, verbose=2)
print("trained: loss", [round(v, 4) for v in history.history["loss"]])
EOF
}
for part in ${STEPS:-exporter profiles ptxas bench tune}; do
  case $part in
    exporter) exporter & ;;
    profiles) step profiles env LD_LIBRARY_PATH="$site/nvidia/cuda_cupti/lib:${LD_LIBRARY_PATH:-}" \
                python3 benchmarks/resnet50_tf_vs_torch.py --settings keras,fused,nobias,auto,xla \
                --precisions float32,mixed_bfloat16 --profile --timeout 420 --json "$o/profiles.json"
              step spe python3 benchmarks/resnet50_tf_vs_torch.py --settings xla-fit,xla-spe --precisions mixed_bfloat16 \
                --no-torch --timeout 420 --json "$o/spe.json" ;;
    ptxas) python3 -m zipfile -e /root/wheels/nvidia_cuda_nvcc_cu12-12.2*.whl /tmp/nvcc122
           mkdir -p /tmp/cuda-12.2/bin && cp /tmp/nvcc122/nvidia/cuda_nvcc/bin/ptxas /tmp/cuda-12.2/bin/ && chmod +x /tmp/cuda-12.2/bin/ptxas
           ( export PATH=/tmp/cuda-12.2/bin:$PATH
             /tmp/cuda-12.2/bin/ptxas --version >"$o/ptxas-version.txt" 2>&1
             python3 -m tfgpu doctor --json --exit-zero >"$o/ptxas-doctor.json" 2>"$o/ptxas-doctor.stderr"
             echo "doctor exit $?" >"$o/ptxas-doctor.txt"
             step ptxas-keras keras_defaults
             fix=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(next((f.get('hint') or '') for f in d['findings'] if f['id']=='xla-ptxas-older-than-build'))" "$o/ptxas-doctor.json" 2>"$o/ptxas-fix.err")
             echo "$fix" >"$o/ptxas-fix.txt"
             eval "$fix"
             step ptxas-doctor-fixed python3 -m tfgpu doctor --exit-zero
             step ptxas-keras-fixed keras_defaults ) ;;
    bench) step bench python3 -m tfgpu bench --suite models --save "$o/bench-models.json" ;;
    tune) step tune python3 benchmarks/tune_resnet50.py --budget "${TUNE_BUDGET:-240}" \
            --hand-from docs/examples/h200-tune-resnet50-warm-2026-12-03.json --json "$o/tune.json" ;;
    *) echo "unknown part $part" ;;
  esac
done
python3 - "$o/exporter" >"$o/exporter-parsed.txt" 2>&1 <<'EOF'
import glob, sys
sys.path.insert(0, "/root/promc")
from prometheus_client.parser import text_string_to_metric_families
for path in sorted(glob.glob(sys.argv[1] + "/scrape-*.prom")):
    families = list(text_string_to_metric_families(open(path).read()))
    busy = [s for f in families for s in f.samples if s.name == "DCGM_FI_DEV_GPU_UTIL"]
    print(path.rsplit("/", 1)[-1], len(families), "families;", "; ".join(f"{s.labels} {s.value}" for s in busy))
EOF
touch "$o/done"
