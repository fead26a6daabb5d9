#!/usr/bin/env bash
# tfgpu run's failure verdict with this machine's facts (dc007c5), on the lent GPU from `device.sh raw`: the guide's
# first CNN (Keras's defaults) with nvidia/cuda_nvrtc/lib not on LD_LIBRARY_PATH (only cusolver's, the line tfgpu env
# printed before 2026-12-02) crashes in its first step; the verdict's fix should name the cuda_nvrtc directory. Then the
# line tfgpu env prints now, applied as printed, and the same CNN under tfgpu run (it trains); and how long tfgpu run
# takes from its invocation to the command's first statement. Last, the out-of-memory note: another TF process holds the
# GPU (TF's default reservation) while a Keras MLP too large for what it left runs under tfgpu run.
#   setsid nohup bash scripts/h200_run_failure_facts.sh run >/tmp/rff.log 2>&1 </dev/null &
#   bash scripts/h200_run_failure_facts.sh wait SECONDS
set -u
RAW=1 source scripts/h200_background.sh rff "${1:-run}" "${2:-}"
site=/root/tfgpu-stack/site
export LD_LIBRARY_PATH="$site/nvidia/cusolver/lib${base_ld_library_path:+:$base_ld_library_path}"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >"$o/ld-library-path-no-nvrtc.txt"
step run-no-nvrtc python3 -m tfgpu run -- python3 examples/first_cnn.py --verbose 2
python3 -m tfgpu env >"$o/tfgpu-env.txt" 2>&1
eval "$(python3 -m tfgpu env 2>/dev/null)"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >"$o/ld-library-path-env.txt"
for i in 1 2 3; do
  t=$(date +%s.%N)
  python3 -m tfgpu run -- python3 -c "import time; print('child-start', round(time.time() - $t, 3))" 2>&1 | grep child-start
done >"$o/child-start.txt"
step run-env python3 -m tfgpu run -- python3 examples/first_cnn.py --verbose 2
w=/tmp/rff-scripts; mkdir -p "$w"
cat >"$w/holder.py" <<'PY'
import time, tensorflow as tf
x = tf.ones([1])  # TF reserves nearly all the GPU's memory for its allocator
print("holder ready", flush=True)
time.sleep(150)
PY
cat >"$w/mlp-large.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(16384, 784).astype("float32"), np.random.randint(0, 10, 16384)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(16384, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=1, batch_size=8192, verbose=2)
PY
(python3 "$w/holder.py" >"$o/holder.out" 2>&1 &)
for _ in $(seq 90); do grep -q "holder ready" "$o/holder.out" 2>/dev/null && break; sleep 1; done
nvidia-smi --query-gpu=memory.used,memory.total --format=csv >"$o/holder-nvidia-smi.txt" 2>&1
step run-busy python3 -m tfgpu run -- python3 "$w/mlp-large.py"
pkill -f holder.py
touch "$o/done"
