#!/usr/bin/env bash
# The doctor on an older nvJitLink ahead of the wheels (issue 28's set t found the fault; this checks the doctor's
# answer as a user lives it). The wheel layout as pip leaves it, fixed by the lines `tfgpu env` prints (RAW=1), then
# CUDA 12.1's libnvJitLink.so.12 (nvidia-nvjitlink-cu12 12.1.105, carried as .gpu-stack/old/) first on
# LD_LIBRARY_PATH, as an old toolkit's lib64 in a shell profile puts it; the doctor; then the line `tfgpu env` prints, exactly as printed (the old directory stays on LD_LIBRARY_PATH),
# the doctor and a Keras CNN with Keras's defaults; then the wheel itself too old (the 12.1 file in its directory): the doctor.
# The doctor's other fix, the directory taken out of
# LD_LIBRARY_PATH, was run by this script's first version (1bf0b18) on 2026-12-07: the doctor found nothing and the
# CNN trained on the GPU; without a fix the CNN trains on the CPU (set t's nvjitlink-old.log).
# This version ran on an H100 on 2026-12-07 (df14298's doctor): docs/examples/h100-doctor-shadowed-nvjitlink.txt and
# tests/fixtures/probe/h100-nvjitlink-shadowed.*.
# The wheel, on this machine: pip download --no-deps nvidia-nvjitlink-cu12==12.1.105 --platform manylinux1_x86_64
#   --only-binary=:all: -d .gpu-stack/old; carry .gpu-stack/old in the assemble call and copy it to /root/old-wheels.
#   setsid nohup bash scripts/h200_shadowed_nvjitlink.sh run >/tmp/inv.log 2>&1 </dev/null &
#   bash scripts/h200_shadowed_nvjitlink.sh wait SECONDS
set -u
RAW=1 source scripts/h200_background.sh inv "${1:-run}" "${2:-}"
old=/opt/nvjitlink-12.1
python3 -m zipfile -e /root/old-wheels/nvidia_nvjitlink_cu12-12.1.105-py3-none-manylinux1_x86_64.whl /tmp/nvjitlink-12.1 &&
  mkdir -p "$old" && cp /tmp/nvjitlink-12.1/nvidia/nvjitlink/lib/libnvJitLink.so.12 "$old/"
cnn() {  # the Keras CNN with Keras's defaults: where it trains is what the user sees
  python3 - <<'PY'
import numpy as np, tensorflow as tf, keras
print("GPUs:", tf.config.list_physical_devices("GPU"))
rng = np.random.default_rng(0)
x, y = rng.random((8192, 28, 28, 1), dtype=np.float32), rng.integers(0, 10, 8192)
model = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(32, 3, activation="relu"),
                          keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=2, batch_size=128, verbose=2)
PY
}
export LD_LIBRARY_PATH="$old${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >"$o/ld-library-path-before.txt"
step doctor-before python3 -m tfgpu doctor
shadowed=$LD_LIBRARY_PATH
python3 -m tfgpu env >"$o/tfgpu-env-shadowed.txt" 2>&1
eval "$(python3 -m tfgpu env 2>/dev/null)"  # the fix: the line tfgpu env prints
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >"$o/ld-library-path-env.txt"
step doctor-env python3 -m tfgpu doctor
step cnn-env cnn
# The wheel itself too old (pip resolved nvidia-nvjitlink-cu12 12.1, NVIDIA/cuvs#1794): the 12.1 file in the wheel's
# directory, nothing on LD_LIBRARY_PATH but the machine's own and the tfgpu env line; the doctor, then the file put back.
export LD_LIBRARY_PATH=$base_ld_library_path
wheel_lib=/root/tfgpu-stack/site/nvidia/nvjitlink/lib/libnvJitLink.so.12
cp "$wheel_lib" /root/libnvJitLink.so.12.wheel && cp "$old/libnvJitLink.so.12" "$wheel_lib"
eval "$(python3 -m tfgpu env 2>/dev/null)"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >"$o/ld-library-path-old-wheel.txt"
step doctor-old-wheel python3 -m tfgpu doctor
cp /root/libnvJitLink.so.12.wheel "$wheel_lib"
# last, as the least needed: the raw probe worker in the shadowed layout (the FakeProbe fixture for this fault)
export LD_LIBRARY_PATH=$shadowed
step worker-shadowed env TF_CPP_MIN_LOG_LEVEL=0 python3 src/tfgpu/probe/worker.py devices --output "$o/worker-shadowed.json"
touch "$o/done"
