#!/usr/bin/env bash
# Issue 27 on the lent H200: the commands whose one domain call was rebuilt (monitor's watch_gpus,
# run_command's phases, bench_machine, burn_machine, the doctor's render and tfgpu env), each run as a
# user runs it, against real NVML and TF 2.21 on the GPU, with the exit status kept beside the output:
#   setsid nohup bash scripts/h200_issue27.sh run >/tmp/i27.log 2>&1 </dev/null &
#   bash scripts/h200_issue27.sh wait SECONDS
set -u
source scripts/h200_background.sh i27 "${1:-run}" "${2:-}"
cat >"$o/fit.py" <<'PY'
import numpy as np, keras
rng = np.random.default_rng(0)
x, y = rng.random((16384, 28, 28, 1), dtype=np.float32), rng.integers(0, 10, 16384)
model = keras.Sequential([
    keras.Input((28, 28, 1)),
    keras.layers.Conv2D(32, 3, activation="relu"), keras.layers.MaxPooling2D(),
    keras.layers.Conv2D(64, 3, activation="relu"), keras.layers.MaxPooling2D(),
    keras.layers.Flatten(), keras.layers.Dense(10),
])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
history = model.fit(x, y, epochs=4, batch_size=128, verbose=2)
print("trained: loss", [round(v, 4) for v in history.history["loss"]])
PY
export COLUMNS=160
step monitor-once python3 -m tfgpu monitor --once
step doctor python3 -m tfgpu doctor --quick
step env python3 -m tfgpu env
step run-fit python3 -m tfgpu run --json "$o/run.json" -- python3 "$o/fit.py"
python3 "$o/fit.py" >"$o/watched-fit.txt" 2>&1 &
step monitor-watch python3 -m tfgpu monitor --watch $! --interval 0.5 --csv "$o/watch.csv"
step burn python3 -m tfgpu burn --minutes 0.25 --json
step bench python3 -m tfgpu bench --suite quick
touch "$o/done"
