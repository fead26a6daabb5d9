#!/usr/bin/env bash
# Issue 28 on the lent H200: real TensorFlow 2.21 / Keras 3.15 logs of known faults, for explain.
# Each fault is a small user script run as a user runs it (TF's and Keras's default logging, stdout and
# stderr together, the command line first as a terminal paste shows it); its log goes to $o/NAME.log.
# The fault each script has is written in benchmarks/corpus/gpu-faults.json before explain reads the
# logs (what the script does, and what the run showed: a fault that did not happen is recorded as such).
# SET picks the faults: a (the first set, written from afterwards), b, c, d, e, f, g, h, i, j, o, q, t or v (later sets, each registered and scored the same way).
#   SET=b setsid nohup bash scripts/h200_issue28.sh run >/tmp/i28b.log 2>&1 </dev/null &
#   SET=b bash scripts/h200_issue28.sh wait SECONDS
set -u
SET=${SET:-a}
source scripts/h200_background.sh "i28$SET" "${1:-run}" "${2:-}"
w=/tmp/f28; rm -rf "$w"; mkdir -p "$w"
fault() {  # fault NAME [ENV=VALUE...]: run $w/NAME.py as `python3 train.py` with those variables; the log is $o/NAME.log
  local name=$1; shift  # the command line shows a CUDA_VISIBLE_DEVICES the user typed, not the shell's own variables
  local shown="python3 train.py"; [[ ${1:-} == CUDA_VISIBLE_DEVICES=* ]] && shown="$1 $shown"
  echo "== $name"  # LIMIT: seconds before the run is stopped (a fault that hangs); SIGKILL 15 s later, as TF catches SIGTERM
  # VMEM: a cap on the run's virtual memory in KiB (`ulimit -v`, as a cluster's job limits set it)
  ( cd "$w" && echo "\$ $shown" && { [ -z "${VMEM:-}" ] || ulimit -v "$VMEM"; } &&
    env "$@" timeout -k 15 "${LIMIT:-300}" python3 "$name.py"; echo "[exit $?]" ) >"$o/$name.log" 2>&1
  tail -2 "$o/$name.log" | cut -c1-200
}
hold() {  # hold MIB: another process takes all of the GPU's memory but MIB (gpu-holder.py, set e), until release
  ( cd "$w" && env -u PYTHONPATH python3 gpu-holder.py "$1" >"$o/holder-$1.out" 2>&1 & )
  for _ in $(seq 60); do grep -q "holder ready" "$o/holder-$1.out" 2>/dev/null && break; sleep 1; done
  nvidia-smi --query-gpu=memory.used,memory.total --format=csv >"$o/holder-$1-nvidia-smi.txt" 2>&1; }
release() { pkill -f gpu-holder.py; sleep 3; }
old=/opt/cuda-11.8
install_cuda_11_8() {  # a CUDA 11.8 toolkit in $old (nvidia-cuda-nvcc-cu11's files: bin/ptxas 11.8, nvvm/libdevice) beside the wheels
  mkdir -p "$old" && python3 -m zipfile -e /root/nvcc-cu11.whl /tmp/nvcc-cu11 && cp -r /tmp/nvcc-cu11/nvidia/cuda_nvcc/. "$old/" && chmod +x "$old/bin/ptxas"; }
cat >"$w/oom-tensor.py" <<'PY'
import tensorflow as tf
x = tf.random.normal([220000, 220000])  # 193 GB of float32 on a 141 GB GPU
print(float(tf.reduce_sum(x)))
PY
cat >"$w/oom-keras-fit.py" <<'PY'
import tensorflow as tf, keras
batch = 262144
data = tf.data.Dataset.from_tensors((tf.zeros([batch, 4096]), tf.zeros([batch, 1]))).repeat(2)
model = keras.Sequential([keras.Input((4096,)), keras.layers.Dense(65536, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(data, epochs=1, verbose=2)
PY
cat >"$w/holder.py" <<'PY'
import time, tensorflow as tf
x = tf.ones([1])  # TF reserves nearly all the GPU's memory for its allocator
print("holder ready", flush=True)
time.sleep(240)
PY
cat >"$w/oom-gpu-busy.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(4096, 784).astype("float32"), np.random.randint(0, 10, 4096)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(4096, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=1, batch_size=1024, verbose=2)
PY
cat >"$w/growth-after-init.py" <<'PY'
import tensorflow as tf
x = tf.ones([2, 2])
gpus = tf.config.list_physical_devices("GPU")
tf.config.experimental.set_memory_growth(gpus[0], True)
PY
cat >"$w/growth-with-virtual.py" <<'PY'
import tensorflow as tf
gpus = tf.config.list_physical_devices("GPU")
tf.config.set_logical_device_configuration(gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=4096)])
tf.config.experimental.set_memory_growth(gpus[0], True)
print(tf.reduce_sum(tf.ones([4])))
PY
cat >"$w/fork-after-init.py" <<'PY'
import multiprocessing as mp
import tensorflow as tf
print(tf.reduce_sum(tf.ones([4])))  # the parent initialises CUDA
def child():
    print("child:", tf.reduce_sum(tf.ones([4])))
if __name__ == "__main__":
    mp.set_start_method("fork")
    p = mp.Process(target=child)
    p.start(); p.join(120)
    print("child exit code", p.exitcode)
PY
cat >"$w/retracing.py" <<'PY'
import tensorflow as tf
@tf.function
def scale(x):
    return x * 2
for step in range(12):
    scale(step)  # a Python int: a new trace for every value
print("done")
PY
cat >"$w/no-gpu-kernel.py" <<'PY'
import tensorflow as tf
tf.config.set_soft_device_placement(False)
with tf.device("/GPU:0"):
    print(tf.strings.as_string(tf.constant([1, 2])))
PY
cat >"$w/model-outside-scope.py" <<'PY'
import numpy as np, tensorflow as tf, keras
strategy = tf.distribute.MirroredStrategy()
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
with strategy.scope():
    model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(256, 8), np.random.rand(256, 1), epochs=1, verbose=2)
PY
cat >"$w/xla-py-function.py" <<'PY'
import tensorflow as tf
@tf.function(jit_compile=True)
def step(x):
    y = tf.py_function(lambda v: v * 2, [x], tf.float32)
    return y + 1
print(step(tf.ones([4])))
PY
cat >"$w/legacy-optimizer.py" <<'PY'
import tensorflow as tf
optimizer = tf.keras.optimizers.legacy.Adam(learning_rate=1e-3)
print(optimizer)
PY
cat >"$w/cnn-ok.py" <<'PY'
import numpy as np, keras
rng = np.random.default_rng(0)
x, y = rng.random((8192, 28, 28, 1), dtype=np.float32), rng.integers(0, 10, 8192)
model = keras.Sequential([
    keras.Input((28, 28, 1)),
    keras.layers.Conv2D(32, 3, activation="relu"), keras.layers.MaxPooling2D(),
    keras.layers.Flatten(), keras.layers.Dense(10),
])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
model.fit(x, y, epochs=2, batch_size=128, verbose=2)
PY
cat >"$w/mixed-precision-ok.py" <<'PY'
import numpy as np, keras
keras.mixed_precision.set_global_policy("mixed_float16")
x, y = np.random.rand(8192, 784).astype("float32"), np.random.randint(0, 10, 8192)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(1024, activation="relu"), keras.layers.Dense(10, dtype="float32")])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=2, batch_size=256, verbose=2)
PY
sed -e 's/Dense(4096/Dense(16384/' -e 's/batch_size=1024/batch_size=8192/' "$w/oom-gpu-busy.py" >"$w/oom-gpu-busy-large.py"
cp "$w/cnn-ok.py" "$w/gpu-hidden.py"
cp "$w/cnn-ok.py" "$w/wheel-layout.py"

cat >"$w/visible-after-init.py" <<'PY'
import tensorflow as tf
print(tf.reduce_sum(tf.ones([4])))
tf.config.set_visible_devices([], "GPU")  # too late: the GPU is in use
PY
cat >"$w/virtual-after-init.py" <<'PY'
import tensorflow as tf
print(tf.reduce_sum(tf.ones([4])))
gpus = tf.config.list_physical_devices("GPU")
tf.config.set_logical_device_configuration(gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=8192)] * 2)
PY
cat >"$w/gpu-index-missing.py" <<'PY'
import tensorflow as tf
tf.config.set_soft_device_placement(False)
with tf.device("/GPU:3"):  # this machine has one GPU
    print(tf.matmul(tf.ones([4, 4]), tf.ones([4, 4])))
PY
cat >"$w/oom-embedding.py" <<'PY'
import numpy as np, keras
model = keras.Sequential([keras.Input((16,), dtype="int32"), keras.layers.Embedding(40_000_000, 1024), keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.randint(0, 40_000_000, (512, 16)), np.random.rand(512, 1), epochs=1, verbose=2)
PY
cat >"$w/keras-experimental-import.py" <<'PY'
import tensorflow as tf
from tensorflow.keras.layers.experimental import preprocessing
print(preprocessing.Rescaling(1 / 255))
PY
cat >"$w/keras-save-no-extension.py" <<'PY'
import keras
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
model.save("saved_model_dir")
PY
cat >"$w/pydataset-fork.py" <<'PY'
import numpy as np, keras
class Batches(keras.utils.PyDataset):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
    def __len__(self):
        return 16
    def __getitem__(self, i):
        return np.random.rand(64, 32).astype("float32"), np.random.rand(64, 1).astype("float32")
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(Batches(workers=4, use_multiprocessing=True), epochs=2, verbose=2)
PY
cat >"$w/xla-string-op.py" <<'PY'
import tensorflow as tf
@tf.function(jit_compile=True)
def label(x):
    return tf.strings.as_string(x)
print(label(tf.constant([1.5, 2.5])))
PY
cat >"$w/placement-log-ok.py" <<'PY'
import tensorflow as tf
tf.debugging.set_log_device_placement(True)
a = tf.random.normal([256, 256])
print(float(tf.reduce_sum(tf.matmul(a, a))))
PY
cat >"$w/mirrored-ok.py" <<'PY'
import numpy as np, tensorflow as tf, keras
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(4096, 32), np.random.rand(4096, 1), epochs=2, batch_size=256, verbose=2)
PY
cat >"$w/int-matmul-pinned.py" <<'PY'
import tensorflow as tf
tf.config.set_soft_device_placement(False)
with tf.device("/GPU:0"):
    print(tf.linalg.matmul(tf.ones([4, 4], tf.int32), tf.ones([4, 4], tf.int32)))
PY
cat >"$w/oom-with-growth.py" <<'PY'
import tensorflow as tf
x = tf.zeros([120000, 120000])  # 57.6 GB
y = tf.zeros([120000, 120000])  # and 57.6 GB more
print(float(tf.reduce_sum(x + y)))
PY
cat >"$w/filler.py" <<'PY'
import time, tensorflow as tf
gpus = tf.config.list_physical_devices("GPU")
total = tf.config.experimental.get_device_details(gpus[0]).get("device_name")
tf.config.set_logical_device_configuration(gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=81000)])
x = tf.zeros([int(79 * 2**30 / 4)])  # fill it
print("filler ready", total, flush=True)
time.sleep(240)
PY
cat >"$w/shape-retracing.py" <<'PY'
import tensorflow as tf
@tf.function
def total(x):
    return tf.reduce_sum(x * x)
for n in range(1, 13):
    total(tf.ones([n, 3]))  # a new shape each call: a new trace
print("done")
PY
cp "$w/cnn-ok.py" "$w/context-oom.py"

# Set c: registered after set b was written from (568638b), before any of its logs existed.
cat >"$w/visible-wrong-index.py" <<'PY'
import tensorflow as tf
print("GPUs:", tf.config.list_physical_devices("GPU"))
print(tf.reduce_sum(tf.matmul(tf.ones([256, 256]), tf.ones([256, 256]))))
PY
cat >"$w/determinism-augment.py" <<'PY'
import tensorflow as tf
tf.keras.utils.set_random_seed(1)
tf.config.experimental.enable_op_determinism()
images = tf.random.uniform([8, 64, 64, 3])
print(tf.reduce_mean(tf.image.random_contrast(images, 0.5, 2.0)))  # test-time augmentation on the GPU
PY
cat >"$w/allocator-async-ok.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(8192, 784).astype("float32"), np.random.randint(0, 10, 8192)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(1024, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=2, batch_size=256, verbose=2)
PY
cp "$w/allocator-async-ok.py" "$w/allow-growth-one.py"
cat >"$w/fit-workers.py" <<'PY'
import numpy as np, keras
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(4096, 32), np.random.rand(4096, 1), epochs=2, batch_size=256, workers=4, use_multiprocessing=True)
PY
cat >"$w/fraction-oom.py" <<'PY'
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
config = tf.compat.v1.ConfigProto(gpu_options=tf.compat.v1.GPUOptions(per_process_gpu_memory_fraction=0.05))
a = tf.random.normal([40000, 40000])  # 6.4 GB, and its product as much again
total = tf.reduce_sum(tf.matmul(a, a))
with tf.compat.v1.Session(config=config) as session:
    print(session.run(total))
PY
cat >"$w/mirrored-two-gpus.py" <<'PY'
import numpy as np, tensorflow as tf, keras
strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])  # written for a two-GPU machine
with strategy.scope():
    model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(4096, 32), np.random.rand(4096, 1), epochs=2, batch_size=256, verbose=2)
PY
cat >"$w/xla-oom.py" <<'PY'
import tensorflow as tf
@tf.function(jit_compile=True)
def gram(seed):
    a = tf.random.stateless_normal([150000, 150000], seed)  # 90 GB of float32
    return tf.reduce_sum(tf.matmul(a, a, transpose_b=True))
print(gram(tf.constant([1, 2])))
PY
cat >"$w/quiet-oom.py" <<'PY'
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"  # silence TensorFlow's log
import tensorflow as tf
x = tf.random.normal([220000, 220000])  # 193 GB of float32
print(float(tf.reduce_sum(x)))
PY
cat >"$w/profiler-no-cupti.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(8192, 784).astype("float32"), np.random.randint(0, 10, 8192)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(1024, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=2, batch_size=256, verbose=2, callbacks=[keras.callbacks.TensorBoard("logs", profile_batch=(2, 6))])
PY
cat >"$w/jit-ok.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(8192, 784).astype("float32"), np.random.randint(0, 10, 8192)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(1024, activation="gelu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)
model.fit(x, y, epochs=2, batch_size=256, verbose=2)
PY
cat >"$w/libdevice-missing.py" <<'PY'
import tensorflow as tf
@tf.function(jit_compile=True)
def smooth(x):
    return tf.math.erf(x) * tf.math.exp(-x * x)
print(tf.reduce_sum(smooth(tf.random.normal([4096]))))
PY
cp "$w/libdevice-missing.py" "$w/ptxas-missing.py"
cat >"$w/is-gpu-available-ok.py" <<'PY'
import tensorflow as tf
print("GPU available:", tf.test.is_gpu_available(cuda_only=True))
print("GPU device:", tf.test.gpu_device_name())
PY
cp "$w/cnn-ok.py" "$w/partial-layout.py"

# Set d: registered after set c was written from (db6638a), before any of its logs existed.
cat >"$w/fit-generator.py" <<'PY'
import numpy as np, keras
def batches():
    while True:
        yield np.random.rand(64, 32).astype("float32"), np.random.rand(64, 1).astype("float32")
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit_generator(batches(), steps_per_epoch=8, epochs=2)
PY
cat >"$w/tf-session.py" <<'PY'
import tensorflow as tf
a = tf.constant([[1.0, 2.0]])
sess = tf.Session()
print(sess.run(tf.matmul(a, a, transpose_b=True)))
PY
cp "$w/allocator-async-ok.py" "$w/allocator-typo.py"
cat >"$w/seedless-determinism.py" <<'PY'
import tensorflow as tf
tf.config.experimental.enable_op_determinism()
noise = tf.random.normal([1024])
print(float(tf.reduce_sum(noise)))
PY
cat >"$w/predict-oom.py" <<'PY'
import numpy as np, keras
model = keras.Sequential([keras.Input((4096,)), keras.layers.Dense(65536, activation="relu"), keras.layers.Dense(1)])
x = np.zeros((262144, 4096), dtype="float32")
print(model.predict(x, batch_size=262144, verbose=2).shape)
PY
sed 's/mixed_float16/mixed_bfloat16/' "$w/mixed-precision-ok.py" >"$w/bf16-ok.py"
cat >"$w/logical-split-ok.py" <<'PY'
import numpy as np, tensorflow as tf, keras
gpus = tf.config.list_physical_devices("GPU")
tf.config.set_logical_device_configuration(gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=8192)] * 2)
strategy = tf.distribute.MirroredStrategy()  # two logical GPUs on the one card
with strategy.scope():
    model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(4096, 32), np.random.rand(4096, 1), epochs=2, batch_size=256, verbose=2)
PY
cp "$w/jit-ok.py" "$w/xla-cache-ok.py"
cat >"$w/save-weights-name.py" <<'PY'
import keras
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
model.save_weights("weights.h5")
PY
cat >"$w/set-session.py" <<'PY'
import tensorflow as tf
config = tf.compat.v1.ConfigProto()
config.gpu_options.allow_growth = True
tf.keras.backend.set_session(tf.compat.v1.Session(config=config))
print("session set")
PY

# Set e: registered after set d was written from (84cdc7b), before any of its logs existed.
cat >"$w/gpu-holder.py" <<'PY'
import ctypes, sys, time
keep = int(sys.argv[1]) << 20  # MiB left free for the next process
cuda = ctypes.CDLL("libcuda.so.1")
dev, ctx = ctypes.c_int(), ctypes.c_void_p()
assert cuda.cuInit(0) == 0 and cuda.cuDeviceGet(ctypes.byref(dev), 0) == 0
assert cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0 and cuda.cuCtxSetCurrent(ctx) == 0
free, total, ptr = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_uint64()
def left():
    cuda.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total))
    return free.value
while left() - keep > 2 << 20:
    chunk = min(1 << 30, (left() - keep) // (2 << 20) * (2 << 20))
    if cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(chunk)) != 0:
        break
print(f"holder ready: {left() >> 20} MiB of {total.value >> 20} MiB free", flush=True)
time.sleep(600)
PY
cp "$w/cnn-ok.py" "$w/busy-tight-cnn.py"
cp "$w/allocator-async-ok.py" "$w/busy-tight-mlp.py"
cp "$w/cnn-ok.py" "$w/busy-full-cnn.py"
cp "$w/libdevice-missing.py" "$w/ptxas-old-on-path.py"
cp "$w/libdevice-missing.py" "$w/ptxas-old-data-dir.py"
cat >"$w/rnn-mask-left-padded.py" <<'PY'
import numpy as np, keras
rng = np.random.default_rng(0)
tokens = rng.integers(1, 1000, (2048, 40))
for row, length in zip(tokens, rng.integers(5, 40, 2048)):
    row[: 40 - length] = 0  # pre-padding, as keras.utils.pad_sequences does by default
labels = rng.integers(0, 2, 2048)
model = keras.Sequential([keras.Input((40,)), keras.layers.Embedding(1000, 64, mask_zero=True), keras.layers.LSTM(64), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(tokens, labels, epochs=2, batch_size=128, verbose=2)
PY
cat >"$w/rnn-fully-masked.py" <<'PY'
import numpy as np, keras
rng = np.random.default_rng(0)
tokens = rng.integers(1, 1000, (2048, 40))
for row, length in zip(tokens, rng.integers(0, 40, 2048)):
    row[length:] = 0  # post-padding; a length of 0 leaves an empty sequence
labels = rng.integers(0, 2, 2048)
model = keras.Sequential([keras.Input((40,)), keras.layers.Embedding(1000, 64, mask_zero=True), keras.layers.GRU(64), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(tokens, labels, epochs=2, batch_size=128, verbose=2)
PY
cat >"$w/nccl-logical-duplicate.py" <<'PY'
import numpy as np, tensorflow as tf, keras
gpus = tf.config.list_physical_devices("GPU")
tf.config.set_logical_device_configuration(gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=8192)] * 2)
strategy = tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.NcclAllReduce())
with strategy.scope():
    model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(4096, 32), np.random.rand(4096, 1), epochs=2, batch_size=256, verbose=2)
PY
cat >"$w/cpu-on-purpose-ok.py" <<'PY'
import tensorflow as tf
tf.config.set_visible_devices([], "GPU")  # this experiment runs on the CPU on purpose
import numpy as np, keras
x, y = np.random.rand(4096, 32).astype("float32"), np.random.rand(4096, 1).astype("float32")
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=2, batch_size=256, verbose=2)
PY
cat >"$w/growth-no-gpu.py" <<'PY'
import tensorflow as tf
gpus = tf.config.list_physical_devices("GPU")
tf.config.experimental.set_memory_growth(gpus[0], True)
print("memory growth on", gpus[0].name)
PY
cat >"$w/xla-bicubic.py" <<'PY'
import tensorflow as tf
@tf.function(jit_compile=True)
def augment(images):
    return tf.image.resize(images, [96, 96], method="bicubic")  # upscale a batch inside a compiled step
print(augment(tf.random.uniform([8, 64, 64, 3])).shape)
PY
cat >"$w/xla-random-shuffle.py" <<'PY'
import tensorflow as tf
@tf.function(jit_compile=True)
def mix(batch):
    return tf.random.shuffle(batch)  # shuffle the rows of a batch inside a compiled step
print(mix(tf.reshape(tf.range(32.0), [8, 4])))
PY
cat >"$w/export-ok.py" <<'PY'
import numpy as np, keras
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(1024, 32), np.random.rand(1024, 1), epochs=1, verbose=2)
model.export("exported_model")  # a SavedModel for TF Serving
PY
cat >"$w/cache-partial-ok.py" <<'PY'
import tensorflow as tf, keras
data = tf.data.Dataset.from_tensor_slices((tf.random.normal([4096, 32]), tf.random.normal([4096, 1])))
data = data.cache().shuffle(4096).batch(256)
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(data.take(4), epochs=2, verbose=2)  # a quick check on a few batches of the cached dataset
PY
cp "$w/cnn-ok.py" "$w/stub-libcuda.py"
cat >"$w/mixed-precision-experimental.py" <<'PY'
import tensorflow as tf
policy = tf.keras.mixed_precision.experimental.Policy("mixed_float16")  # TF 2.3's API
tf.keras.mixed_precision.experimental.set_policy(policy)
PY

if [ "$SET" = e ]; then
  hold 640
  LIMIT=150 fault busy-tight-cnn
  LIMIT=150 fault busy-tight-mlp
  release
  hold 128
  LIMIT=150 fault busy-full-cnn
  release
  install_cuda_11_8; "$old/bin/ptxas" --version >"$o/old-ptxas-version.txt" 2>&1
  LIMIT=200 fault ptxas-old-on-path PATH="$old/bin:$PATH"
  LIMIT=200 fault ptxas-old-data-dir XLA_FLAGS=--xla_gpu_cuda_data_dir=$old
  fault rnn-mask-left-padded
  fault rnn-fully-masked
  LIMIT=150 fault nccl-logical-duplicate
  fault cpu-on-purpose-ok
  fault growth-no-gpu CUDA_VISIBLE_DEVICES=
  fault xla-bicubic
  fault xla-random-shuffle
  fault export-ok
  fault cache-partial-ok
  stub=$(ls /usr/local/cuda*/lib64/stubs/libcuda.so /usr/local/cuda*/targets/*/lib/stubs/libcuda.so 2>/dev/null | head -1)
  echo "stub: ${stub:-none}" >"$o/stub.txt"
  if [ -n "$stub" ]; then
    mkdir -p /tmp/stubdir && ln -sf "$stub" /tmp/stubdir/libcuda.so.1
    fault stub-libcuda LD_LIBRARY_PATH="/tmp/stubdir:$LD_LIBRARY_PATH"
  fi
  fault mixed-precision-experimental
  touch "$o/done"
  exit 0
fi

# Set f: registered after set e was written from (09f2705), before any of its logs existed.
cat >"$w/busy-tight-eager.py" <<'PY'
import tensorflow as tf
a = tf.random.normal([2048, 2048])
print(float(tf.reduce_sum(tf.matmul(a, a))))  # an eager matmul: cuBLAS, no XLA
PY
cat >"$w/busy-2gib-bigbatch.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(16384, 4096).astype("float32"), np.random.randint(0, 10, 16384)
model = keras.Sequential([keras.Input((4096,)), keras.layers.Dense(8192, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=1, batch_size=16384, verbose=2)  # one batch of 16384: ~2 GB of activations
PY
cat >"$w/legacy-keras-missing.py" <<'PY'
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"  # Keras 2 through tf.keras, as TF's release notes say
import tensorflow as tf
model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(8,))])
model.compile(optimizer="adam", loss="mse")
print(model.summary())
PY
cat >"$w/cudnnlstm-compat.py" <<'PY'
import tensorflow as tf
model = tf.keras.Sequential([tf.keras.Input((40, 16)), tf.compat.v1.keras.layers.CuDNNLSTM(64), tf.keras.layers.Dense(1)])
print(model.summary())
PY
cat >"$w/multi-gpu-model.py" <<'PY'
import keras
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
parallel = keras.utils.multi_gpu_model(model, gpus=2)  # Keras 2.2's data parallelism
PY
cp "$w/cnn-ok.py" "$w/cudnn-from-torch.py"
cp "$w/cnn-ok.py" "$w/cudnn-wheel-missing.py"
cat >"$w/determinism-cnn-ok.py" <<'PY'
import numpy as np, keras, tensorflow as tf
keras.utils.set_random_seed(0)
tf.config.experimental.enable_op_determinism()
rng = np.random.default_rng(0)
x, y = rng.random((4096, 28, 28, 1), dtype=np.float32), rng.integers(0, 10, 4096)
model = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(32, 3, activation="relu"), keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=2, batch_size=128, verbose=2)
PY
cat >"$w/multiworker-single-ok.py" <<'PY'
import numpy as np, tensorflow as tf, keras
strategy = tf.distribute.MultiWorkerMirroredStrategy()  # no TF_CONFIG: a single worker
with strategy.scope():
    model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(4096, 32), np.random.rand(4096, 1), epochs=2, batch_size=256, verbose=2)
PY
cat >"$w/memory-growth-ok.py" <<'PY'
import tensorflow as tf
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
import numpy as np, keras
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(4096, 32), np.random.rand(4096, 1), epochs=2, batch_size=256, verbose=2)
PY
cp "$w/visible-wrong-index.py" "$w/visible-bad-uuid.py"
cp "$w/jit-ok.py" "$w/xla-flags-typo.py"
cp "$w/jit-ok.py" "$w/xla-flag-in-tf-flags.py"

if [ "$SET" = f ]; then
  site=/root/tfgpu-stack/site/nvidia
  hold 640
  LIMIT=150 fault busy-tight-eager
  release
  hold 2048
  LIMIT=150 fault busy-2gib-bigbatch
  release
  fault legacy-keras-missing
  fault cudnnlstm-compat
  fault multi-gpu-model
  # PyTorch's cuDNN (the machine's own, outside the stack) first on the library path, as in an environment shared with PyTorch.
  torch_cudnn=$(env -u PYTHONPATH python3 -c 'import glob, os, torch; print(os.path.dirname(sorted(glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "**", "libcudnn.so.9"), recursive=True))[0]))' 2>/dev/null)
  echo "torch's cuDNN: ${torch_cudnn:-none}" >"$o/torch-cudnn.txt"; ls "$torch_cudnn" >>"$o/torch-cudnn.txt" 2>&1
  [ -n "$torch_cudnn" ] && fault cudnn-from-torch LD_LIBRARY_PATH="$torch_cudnn:$LD_LIBRARY_PATH"
  mv "$site/cudnn" "$site/cudnn.away"; LIMIT=200 fault cudnn-wheel-missing; mv "$site/cudnn.away" "$site/cudnn"
  LIMIT=200 fault determinism-cnn-ok
  fault multiworker-single-ok
  fault memory-growth-ok
  fault visible-bad-uuid CUDA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000000000
  fault xla-flags-typo XLA_FLAGS=--xla_gpu_autotune_levell=2
  fault xla-flag-in-tf-flags TF_XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda
  touch "$o/done"
  exit 0
fi

# Set g: registered after set f was written from (4ba2109), before any of its logs existed.
prepend() {  # prepend LINES SCRIPT NAME: SCRIPT with LINES (printf's escapes) at its top, as a user edits it
  { printf "$1"; cat "$w/$2"; } >"$w/$3"; }
quiet() {  # quiet LEVEL SCRIPT NAME: SCRIPT with TF's log level set at its top, as a user silences TF
  prepend 'import os\nos.environ["TF_CPP_MIN_LOG_LEVEL"] = "'"$1"'"  # quieter TensorFlow\n' "$2" "$3"; }
quiet 3 cnn-ok.py busy-quiet-cnn.py
cp "$w/cnn-ok.py" "$w/busy-tight-growth.py"
cat >"$w/disable-eager-keras3.py" <<'PY'
import numpy as np, tensorflow as tf, keras
tf.compat.v1.disable_eager_execution()  # carried over from TF 1.x code
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(1024, 32), np.random.rand(1024, 1), epochs=1, verbose=2)
PY
cp "$w/cnn-ok.py" "$w/visible-two-on-one-ok.py"
cp "$w/allocator-async-ok.py" "$w/allow-growth-capital-ok.py"
cat >"$w/h5-save-ok.py" <<'PY'
import numpy as np, keras
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(1024, 32), np.random.rand(1024, 1), epochs=1, verbose=2)
model.save("model.h5")  # Keras 2's HDF5 format
PY
cp "$w/allocator-async-ok.py" "$w/auto-jit-ok.py"
quiet 2 libdevice-missing.py ptxas-old-quiet.py

cat >"$w/load-savedmodel-keras3.py" <<'PY'
import keras
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
model.export("exported_model")  # a SavedModel directory
restored = keras.models.load_model("exported_model")  # as Keras 2 loaded one
PY
cat >"$w/tf-contrib.py" <<'PY'
import tensorflow as tf
initializer = tf.contrib.layers.xavier_initializer()  # TF 1.x's contrib
PY
sed 's/NcclAllReduce()/HierarchicalCopyAllReduce()/' "$w/nccl-logical-duplicate.py" >"$w/hierarchical-two-logical-ok.py"

if [ "$SET" = g ]; then
  hold 640
  LIMIT=150 fault busy-quiet-cnn
  LIMIT=150 fault busy-tight-growth TF_FORCE_GPU_ALLOW_GROWTH=true
  release
  fault disable-eager-keras3
  fault visible-two-on-one-ok CUDA_VISIBLE_DEVICES=0,1
  fault allow-growth-capital-ok TF_FORCE_GPU_ALLOW_GROWTH=True
  fault h5-save-ok
  fault auto-jit-ok TF_XLA_FLAGS=--tf_xla_auto_jit=2
  install_cuda_11_8
  LIMIT=200 fault ptxas-old-quiet PATH="$old/bin:$PATH"
  fault load-savedmodel-keras3
  fault tf-contrib
  fault hierarchical-two-logical-ok
  touch "$o/done"
  exit 0
fi

# Set h: registered after set g was written from (3ffc997), before any of its logs existed.
cp "$w/mirrored-ok.py" "$w/multiworker-peer-missing.py"
sed -i 's/tf.distribute.MirroredStrategy()/tf.distribute.MultiWorkerMirroredStrategy()/' "$w/multiworker-peer-missing.py"
cp "$w/multiworker-peer-missing.py" "$w/multiworker-port-busy.py"
cat >"$w/onedevice-gpu1.py" <<'PY'
import numpy as np, tensorflow as tf, keras
strategy = tf.distribute.OneDeviceStrategy("/gpu:1")  # the second GPU of a two-GPU machine
with strategy.scope():
    model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(4096, 32), np.random.rand(4096, 1), epochs=2, batch_size=256, verbose=2)
PY
cat >"$w/make-text-model.py" <<'PY'
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2
class Lower(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def __call__(self, x):
        return tf.strings.lower(x)
tf.saved_model.save(Lower(), "text_model")
proto = saved_model_pb2.SavedModel()  # the model as exported where TensorFlow Text's ops were loaded
with open("text_model/saved_model.pb", "rb") as f:
    proto.ParseFromString(f.read())
for function in proto.meta_graphs[0].graph_def.library.function:
    for node in function.node_def:
        if node.op == "StringLower":
            node.op = "CaseFoldUTF8"
with open("text_model/saved_model.pb", "wb") as f:
    f.write(proto.SerializeToString())
PY
cat >"$w/op-not-registered.py" <<'PY'
import tensorflow as tf
model = tf.saved_model.load("text_model")  # exported with TensorFlow Text
print(model(tf.constant(["Hello"])))
PY
cp "$w/cnn-ok.py" "$w/compat-libcuda.py"
tf32_off='import tensorflow as tf\ntf.config.experimental.enable_tensor_float_32_execution(False)  # full float32 matmuls\n'
prepend "$tf32_off" cnn-ok.py tf32-off-ok.py
cp "$w/cnn-ok.py" "$w/gpu-private-threads-ok.py"

if [ "$SET" = h ]; then
  two='{"cluster":{"worker":["localhost:12345","localhost:12346"]},"task":{"type":"worker","index":0}}'
  LIMIT=90 fault multiworker-peer-missing TF_CONFIG="$two"
  python3 -c 'import socket, time; s = socket.socket(); s.bind(("localhost", 12400)); s.listen(); time.sleep(120)' &
  sleep 1
  LIMIT=90 fault multiworker-port-busy TF_CONFIG='{"cluster":{"worker":["localhost:12400"]},"task":{"type":"worker","index":0}}'
  kill %1 2>/dev/null
  fault onedevice-gpu1
  ( cd "$w" && python3 make-text-model.py >"$o/make-text-model.out" 2>&1 )
  fault op-not-registered
  compat=$(ls /usr/local/cuda*/compat/libcuda.so.* 2>/dev/null | head -1)
  echo "compat: ${compat:-none}; kernel: $(cat /sys/module/nvidia/version 2>/dev/null)" >"$o/compat.txt"
  real=$(readlink -f "$compat")  # libcuda.so.1 names its version through the link (libcuda.so.580.95.05)
  if [ -n "$compat" ] && [ "${real##*libcuda.so.}" != "$(cat /sys/module/nvidia/version 2>/dev/null)" ]; then
    fault compat-libcuda LD_LIBRARY_PATH="$(dirname "$compat"):$LD_LIBRARY_PATH"
  fi
  fault tf32-off-ok
  fault gpu-private-threads-ok TF_GPU_THREAD_MODE=gpu_private
  touch "$o/done"
  exit 0
fi

# Set i: registered after set h was written from (ab4f056), before any of its logs existed.
cat >"$w/mixed-precision-dtype.py" <<'PY'
import numpy as np, tensorflow as tf, keras
keras.mixed_precision.set_global_policy("mixed_float16")
class Shift(keras.layers.Layer):
    def call(self, inputs):
        return inputs + tf.constant(1.0)  # a float32 constant beside float16 activations
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), Shift(), keras.layers.Dense(1, dtype="float32")])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(1024, 32), np.random.rand(1024, 1), epochs=1, verbose=2)
PY
cat >"$w/optimizer-lr-arg.py" <<'PY'
import keras
optimizer = keras.optimizers.Adam(lr=1e-3)  # Keras 2's argument name
PY
prepend 'import keras\nkeras.mixed_precision.set_global_policy("mixed_bfloat16")\n' cnn-ok.py bf16-cnn-ok.py
prepend 'import keras\nkeras.mixed_precision.set_global_policy("mixed_float16")\n' cnn-ok.py fp16-cnn-ok.py
prepend "$tf32_off" allocator-async-ok.py tf32-off-mlp-ok.py
sed 's/metrics=\["accuracy"\])/metrics=["accuracy"], jit_compile=False)/' "$w/cnn-ok.py" >"$w/cnn-nojit.py"
prepend "$tf32_off" cnn-nojit.py tf32-off-nojit-ok.py
cp "$w/memory-growth-ok.py" "$w/async-growth-ok.py"

if [ "$SET" = i ]; then
  LIMIT=120 fault mixed-precision-dtype
  LIMIT=120 fault optimizer-lr-arg
  LIMIT=120 fault tf32-off-nojit-ok
  LIMIT=120 fault tf32-off-mlp-ok
  LIMIT=120 fault bf16-cnn-ok
  LIMIT=120 fault fp16-cnn-ok
  LIMIT=120 fault async-growth-ok TF_GPU_ALLOCATOR=cuda_malloc_async
  touch "$o/done"
  exit 0
fi

# Set j: registered after set i was written from (4d9414f), before any of its logs existed.
# Its package faults need the wheels copied to /root/wheels-j before the run (protobuf 4.25.8 and 5.29.5 for
# manylinux, keras 2.15.0), each unpacked into its own directory put first on PYTHONPATH, as pip would have installed it.
prepend 'import tensorflow as tf\ngpu = tf.config.list_physical_devices("GPU")[0]\ntf.config.set_logical_device_configuration(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=512)])  # share the card\n' cnn-ok.py memory-limit-oom.py
sed -i 's/batch_size=128/batch_size=4096/' "$w/memory-limit-oom.py"
prepend 'import tensorflow as tf\ngpu = tf.config.list_physical_devices("GPU")[0]\ntf.config.set_logical_device_configuration(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=4096)])  # share the card\n' allocator-async-ok.py memory-limit-ok.py
cat >"$w/nchw-on-cpu.py" <<'PY'
import tensorflow as tf
images = tf.random.normal([8, 3, 64, 64])  # NCHW, as the GPU code this came from
kernel = tf.random.normal([3, 3, 3, 16])
print(tf.nn.conv2d(images, kernel, strides=1, padding="SAME", data_format="NCHW").shape)
PY
cat >"$w/xla-dynamic-shape.py" <<'PY'
import tensorflow as tf
@tf.function(jit_compile=True)
def noise():
    size = tf.random.uniform([], 8, 64, dtype=tf.int32)  # a length drawn at random each call
    return tf.zeros([size])
print(noise())
PY
cat >"$w/trt-convert.py" <<'PY'
from tensorflow.python.compiler.tensorrt import trt_convert as trt
import tensorflow as tf
class Double(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def __call__(self, x):
        return x * 2
tf.saved_model.save(Double(), "double_model")
converter = trt.TrtGraphConverterV2(input_saved_model_dir="double_model", precision_mode=trt.TrtPrecisionMode.FP16)
converter.convert()
converter.save("double_model_trt")
PY
cat >"$w/tf-keras-mlp.py" <<'PY'
import numpy as np, tensorflow as tf
model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu", input_shape=(32,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(1024, 32), np.random.rand(1024, 1), epochs=1, verbose=2)
PY
for name in protobuf-4 protobuf-5 keras2-installed; do cp "$w/tf-keras-mlp.py" "$w/$name.py"; done
cat >"$w/keras-lambda-pyfunc.py" <<'PY'
import numpy as np, tensorflow as tf, keras
def jitter(x):
    y = tf.py_function(lambda v: v + np.random.normal(0, 0.01, v.shape).astype("float32"), [x], tf.float32)
    y.set_shape(x.shape)
    return y
inputs = keras.Input((32,))
noisy = keras.layers.Lambda(jitter, output_shape=(32,))(inputs)
outputs = keras.layers.Dense(1)(keras.layers.Dense(64, activation="relu")(noisy))
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(1024, 32), np.random.rand(1024, 1), epochs=1, verbose=2)
PY
prepend 'import keras\nkeras.mixed_precision.set_global_policy("mixed_float16")\n' allocator-async-ok.py mixed-precision-cpu.py
cat >"$w/prefetch-to-device-ok.py" <<'PY'
import numpy as np, tensorflow as tf, keras
x, y = np.random.rand(8192, 784).astype("float32"), np.random.randint(0, 10, 8192)
data = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(8192).batch(256)
data = data.apply(tf.data.experimental.prefetch_to_device("/gpu:0"))
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(1024, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(data, epochs=2, verbose=2)
PY
sed 's/metrics=\["accuracy"\])/metrics=["accuracy"], steps_per_execution=16)/' "$w/cnn-ok.py" >"$w/steps-per-execution-ok.py"
cat >"$w/keras-jax-beside-tf.py" <<'PY'
import os
os.environ["KERAS_BACKEND"] = "jax"  # Keras on JAX, TensorFlow for the input pipeline
import numpy as np, tensorflow as tf, keras
x, y = np.random.rand(8192, 784).astype("float32"), np.random.randint(0, 10, 8192)
data = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(8192).batch(256)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(1024, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(data, epochs=2, verbose=2)
PY

if [ "$SET" = j ]; then
  pp=/root/pp; mkdir -p "$pp"
  for wheel in /root/wheels-j/*.whl; do python3 -m zipfile -e "$wheel" "$pp/$(basename "$wheel" | cut -d- -f1-2)"; done
  ls "$pp" >"$o/wheels.txt" 2>&1
  LIMIT=200 fault memory-limit-oom
  LIMIT=200 fault memory-limit-ok
  LIMIT=120 fault nchw-on-cpu CUDA_VISIBLE_DEVICES=-1
  LIMIT=120 fault xla-dynamic-shape
  LIMIT=120 fault trt-convert
  LIMIT=120 fault protobuf-4 PYTHONPATH="$pp/protobuf-4.25.8:$PYTHONPATH"
  LIMIT=120 fault protobuf-5 PYTHONPATH="$pp/protobuf-5.29.5:$PYTHONPATH"
  LIMIT=120 fault keras2-installed PYTHONPATH="$pp/keras-2.15.0:$PYTHONPATH"
  LIMIT=200 fault keras-lambda-pyfunc
  LIMIT=120 fault mixed-precision-cpu CUDA_VISIBLE_DEVICES=-1
  LIMIT=200 fault prefetch-to-device-ok
  LIMIT=200 fault steps-per-execution-ok
  LIMIT=200 fault keras-jax-beside-tf  # the machine's own JAX, as a user with both installed has it
  touch "$o/done"
  exit 0
fi

# Set o: registered after set m was written from (542dd1c), before any of its logs existed (set n, registered with
# it, needs no GPU and runs on the development machine: scripts/cpu_issue28.sh).
cat >"$w/labels-out-of-range.py" <<'PY'
import numpy as np, keras
rng = np.random.default_rng(0)
x, y = rng.random((8192, 784), dtype=np.float32), rng.integers(1, 11, 8192)  # classes numbered 1 to 10
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(256, activation="relu"), keras.layers.Dense(10, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=2, batch_size=256, verbose=2)
PY
cp "$w/cnn-ok.py" "$w/vlog-cnn-ok.py"
prepend 'import tensorflow as tf\ntf.config.set_soft_device_placement(False)\n' cnn-ok.py soft-placement-off-ok.py
cat >"$w/fraction-over-one-ok.py" <<'PY'
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
options = tf.compat.v1.GPUOptions(per_process_gpu_memory_fraction=2.0)  # more than the GPU has: unified memory
with tf.compat.v1.Session(config=tf.compat.v1.ConfigProto(gpu_options=options)) as session:
    a = tf.random.normal([8192, 8192])
    print(session.run(tf.reduce_sum(tf.matmul(a, a))))
PY
cp "$w/jit-ok.py" "$w/xla-dump-ok.py"
cat >"$w/textvectorization-jit.py" <<'PY'
import numpy as np, keras
words = ["gpu", "busy", "idle", "memory", "kernel", "batch", "epoch", "tensor"]
rng = np.random.default_rng(0)
texts = np.array([" ".join(rng.choice(words, 6)) for _ in range(2048)])
labels = rng.random((2048, 1)).astype("float32")
vectorize = keras.layers.TextVectorization(max_tokens=100, output_sequence_length=8)
vectorize.adapt(texts)
model = keras.Sequential([keras.Input((1,), dtype="string"), vectorize, keras.layers.Embedding(100, 16),
                          keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(texts, labels, epochs=1, batch_size=64, verbose=2)
PY

# Set q: registered after sets n, o and p were written from (72506b7), before any of its logs existed: memory the
# process cannot have (a virtual-memory cap, a logical device larger than the GPU, the host's RAM), the GPU taken by a
# sibling worker of the same script, and three runs expected to work (bf16 LSTM, no cuDNN workspace, the async
# allocator on two logical GPUs).
cp "$w/cnn-ok.py" "$w/ulimit-virtual.py"
cp "$w/cnn-ok.py" "$w/cudnn-workspace-zero-ok.py"
cat >"$w/memory-limit-over-gpu.py" <<'PY'
import numpy as np, tensorflow as tf, keras
gpus = tf.config.list_physical_devices("GPU")
tf.config.set_logical_device_configuration(gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=400000)])
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(256, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(np.random.rand(4096, 784), np.random.randint(0, 10, 4096), epochs=1, batch_size=256, verbose=2)
PY
cat >"$w/host-tensor-oom.py" <<'PY'
import tensorflow as tf
with tf.device("/CPU:0"):
    table = tf.random.normal([200000, 200000])  # 160 GB of float32 in the host's memory
print(float(tf.reduce_mean(table)))
PY
cat >"$w/numpy-host-oom.py" <<'PY'
import numpy as np, keras
x = np.random.rand(200000, 200000)  # 320 GB of float64 features, built in the host's memory
model = keras.Sequential([keras.Input((200000,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, x[:, :1], epochs=1, verbose=2)
PY
cat >"$w/pool-workers-oom.py" <<'PY'
import multiprocessing as mp
def train(worker):
    import numpy as np, keras  # each worker starts its own TensorFlow on the one GPU
    x, y = np.random.rand(65536, 1024).astype("float32"), np.random.randint(0, 10, 65536)
    model = keras.Sequential([keras.Input((1024,)), keras.layers.Dense(16384, activation="relu"), keras.layers.Dense(10)])
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, epochs=1, batch_size=8192, verbose=2)
    return worker
if __name__ == "__main__":
    with mp.get_context("spawn").Pool(2) as pool:
        print(pool.map(train, [0, 1]))
PY
cat >"$w/lstm-bf16-ok.py" <<'PY'
import numpy as np, keras
keras.mixed_precision.set_global_policy("mixed_bfloat16")
x, y = np.random.rand(4096, 50, 16).astype("float32"), np.random.rand(4096, 1).astype("float32")
model = keras.Sequential([keras.Input((50, 16)), keras.layers.LSTM(128), keras.layers.Dense(1, dtype="float32")])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=2, batch_size=256, verbose=2)
PY
cp "$w/logical-split-ok.py" "$w/async-logical-split-ok.py"

# Set t: registered after sets q, r and s were written from (3d8de8d), before any of its logs existed: one library of
# an older CUDA 12 first on LD_LIBRARY_PATH (as a system toolkit's lib64 put there by an old install leaves it, beside
# the CUDA 12.5 wheels), JAX's preallocation beside TensorFlow in one script, an XLA cache directory that cannot be
# made, a GPU UUID that is not the machine's, a tiny logical device, determinism asked by the environment variable,
# and two runs expected to work (CUDA_LAUNCH_BLOCKING, TF_GPU_THREAD_MODE).
sed 's/, jit_compile=True//' "$w/jit-ok.py" >"$w/launch-blocking-ok.py"; cp "$w/launch-blocking-ok.py" "$w/thread-private-ok.py"
cp "$w/launch-blocking-ok.py" "$w/nvjitlink-old.py"; cp "$w/launch-blocking-ok.py" "$w/visible-uuid-wrong.py"
cp "$w/cnn-ok.py" "$w/cudart-old.py"; cp "$w/cnn-ok.py" "$w/nvrtc-old.py"; cp "$w/jit-ok.py" "$w/xla-cache-unwritable.py"
cat >"$w/jax-first.py" <<'PY'
import jax.numpy as jnp
print("jax:", jnp.ones(4).sum())  # JAX preallocates 75% of the GPU's memory
import numpy as np, keras
x, y = np.random.rand(65536, 1024).astype("float32"), np.random.randint(0, 10, 65536)
model = keras.Sequential([keras.Input((1024,)), keras.layers.Dense(65536, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=1, batch_size=65536, verbose=2)
PY
sed -e 's/memory_limit=400000/memory_limit=256/' -e 's/Dense(256,/Dense(8192,/' -e 's/4096/8192/g' -e 's/batch_size=256/batch_size=8192/' \
  "$w/memory-limit-over-gpu.py" >"$w/memory-limit-tiny.py"  # 256 MB and one batch of 8192 through Dense(8192)
cat >"$w/determinism-env-sparse.py" <<'PY'
import tensorflow as tf
sparse = tf.sparse.from_dense(tf.eye(512))
with tf.device("/GPU:0"):
    print(float(tf.reduce_sum(tf.sparse.sparse_dense_matmul(sparse, tf.ones([512, 8])))))
PY

cat >"$w/profiler-keras-ok.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(4096, 784).astype("float32"), np.random.randint(0, 10, 4096)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(512, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
board = keras.callbacks.TensorBoard("logs", profile_batch=(2, 6))
model.fit(x, y, epochs=2, batch_size=256, verbose=2, callbacks=[board])
PY
cat >"$w/profiler-api-ok.py" <<'PY'
import tensorflow as tf
tf.profiler.experimental.start("logs-api")
x = tf.random.normal([4096, 4096])
for _ in range(10):
    x = tf.linalg.matmul(x, x) / 4096.0
print(float(tf.reduce_sum(x)))
tf.profiler.experimental.stop()
PY

if [ "$SET" = v ]; then
  LIMIT=300 fault profiler-keras-ok
  LIMIT=300 fault profiler-api-ok
  find "$w/logs" "$w/logs-api" -type f -printf '%s %p\n' >"$o/profiler-files.txt" 2>&1
  touch "$o/done"
  exit 0
fi

if [ "$SET" = t ]; then
  old12() {  # old12 DIR WHEEL: that wheel's lib directory (one library of an older CUDA 12) in /opt/DIR
    python3 -m zipfile -e "/root/old-wheels/$2" "/tmp/$1-whl" && mkdir -p "/opt/$1" && cp -r /tmp/"$1"-whl/nvidia/*/lib/. "/opt/$1/"; }
  old12 nvjitlink-12.1 nvidia_nvjitlink_cu12-12.1.105-py3-none-manylinux1_x86_64.whl
  old12 cudart-12.0 nvidia_cuda_runtime_cu12-12.0.107-py3-none-manylinux1_x86_64.whl
  old12 nvrtc-12.0 nvidia_cuda_nvrtc_cu12-12.0.76-py3-none-manylinux1_x86_64.whl
  ls -l /opt/nvjitlink-12.1 /opt/cudart-12.0 /opt/nvrtc-12.0 >"$o/old-libraries.txt" 2>&1
  LIMIT=200 fault nvjitlink-old LD_LIBRARY_PATH="/opt/nvjitlink-12.1:$LD_LIBRARY_PATH"
  LIMIT=200 fault cudart-old LD_LIBRARY_PATH="/opt/cudart-12.0:$LD_LIBRARY_PATH"
  LIMIT=200 fault nvrtc-old LD_LIBRARY_PATH="/opt/nvrtc-12.0:$LD_LIBRARY_PATH"
  LIMIT=200 fault jax-first
  LIMIT=200 fault xla-cache-unwritable TF_XLA_FLAGS=--tf_xla_persistent_cache_directory=/proc/tfgpu-xla-cache
  LIMIT=120 fault visible-uuid-wrong CUDA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000000000
  LIMIT=200 fault memory-limit-tiny
  LIMIT=120 fault determinism-env-sparse TF_DETERMINISTIC_OPS=1
  LIMIT=200 fault thread-private-ok TF_GPU_THREAD_MODE=gpu_private
  LIMIT=200 fault launch-blocking-ok CUDA_LAUNCH_BLOCKING=1
  touch "$o/done"
  exit 0
fi

if [ "$SET" = q ]; then
  cat /proc/sys/vm/overcommit_memory >"$o/overcommit.txt"; free -g >>"$o/overcommit.txt"
  LIMIT=200 VMEM=16777216 fault ulimit-virtual
  LIMIT=200 fault memory-limit-over-gpu
  LIMIT=120 VMEM=104857600 fault host-tensor-oom  # the machine overcommits (vm.overcommit_memory=1): a 100 GiB cap makes the allocation fail as it does where it does not
  LIMIT=120 VMEM=104857600 fault numpy-host-oom
  LIMIT=300 fault pool-workers-oom
  LIMIT=200 fault lstm-bf16-ok
  LIMIT=200 fault cudnn-workspace-zero-ok TF_CUDNN_WORKSPACE_LIMIT_IN_MB=0
  LIMIT=200 fault async-logical-split-ok TF_GPU_ALLOCATOR=cuda_malloc_async
  touch "$o/done"
  exit 0
fi

if [ "$SET" = o ]; then
  LIMIT=200 fault labels-out-of-range
  LIMIT=200 fault vlog-cnn-ok TF_CPP_VMODULE=gpu_device=2,bfc_allocator=1
  ls -l "$o/vlog-cnn-ok.log" >"$o/vlog-size.txt"
  LIMIT=200 fault soft-placement-off-ok
  LIMIT=200 fault fraction-over-one-ok
  LIMIT=200 fault xla-dump-ok XLA_FLAGS=--xla_dump_to=/tmp/xla-dump
  LIMIT=200 fault textvectorization-jit
  touch "$o/done"
  exit 0
fi

if [ "$SET" = d ]; then
  fault fit-generator
  fault tf-session
  fault allocator-typo TF_GPU_ALLOCATOR=cuda_malloc_asynch
  fault seedless-determinism
  fault predict-oom
  fault bf16-ok
  fault logical-split-ok
  fault xla-cache-ok TF_XLA_FLAGS=--tf_xla_persistent_cache_directory=/tmp/xla-cache
  fault save-weights-name
  fault set-session
  touch "$o/done"
  exit 0
fi

if [ "$SET" = c ]; then
  site=/root/tfgpu-stack/site/nvidia
  away() {  # away DIR: hide a wheel's directory for one fault (a wheel the user lacks); back after it
    mv "$site/$1" "$site/$1.away"; shift; fault "$@"; }
  back() { for d in "$site"/*.away "$site"/*/*.away "$site"/*/*/*.away; do [ -e "$d" ] && mv "$d" "${d%.away}"; done; }
  trap back EXIT
  fault visible-wrong-index CUDA_VISIBLE_DEVICES=1
  fault determinism-augment
  fault allocator-async-ok TF_GPU_ALLOCATOR=cuda_malloc_async
  fault allow-growth-one TF_FORCE_GPU_ALLOW_GROWTH=1
  fault fit-workers
  fault fraction-oom
  fault mirrored-two-gpus
  fault xla-oom
  fault quiet-oom
  fault jit-ok
  fault is-gpu-available-ok
  fault profiler-no-cupti  # the stack carries no nvidia-cuda-cupti-cu12 wheel: as a user who installed without it
  away cuda_nvcc/nvvm/libdevice libdevice-missing; back
  away cuda_nvcc/bin/ptxas ptxas-missing; back
  # The wheel layout with only the directory TF's RUNPATH omits (cusolver) added, as a user who fixed the first error has it.
  fault partial-layout LD_LIBRARY_PATH="$site/cusolver/lib${base_ld_library_path:+:$base_ld_library_path}"
  touch "$o/done"
  exit 0
fi

if [ "$SET" = b ]; then
  fault visible-after-init
  fault virtual-after-init
  fault gpu-index-missing
  fault oom-embedding
  fault keras-experimental-import
  fault keras-save-no-extension
  fault pydataset-fork
  fault xla-string-op
  fault placement-log-ok
  fault mirrored-ok
  fault int-matmul-pinned
  fault oom-with-growth TF_FORCE_GPU_ALLOW_GROWTH=true
  fault shape-retracing
  ( cd "$w" && python3 filler.py >"$o/filler.out" 2>&1 & )
  for _ in $(seq 60); do grep -q "filler ready" "$o/filler.out" 2>/dev/null && break; sleep 2; done
  nvidia-smi --query-gpu=memory.used,memory.total --format=csv >"$o/filler-nvidia-smi.txt" 2>&1
  fault context-oom
  pkill -f filler.py
  touch "$o/done"
  exit 0
fi

fault oom-tensor
fault oom-keras-fit
( cd "$w" && python3 holder.py >"$o/holder.out" 2>&1 & )
for _ in $(seq 60); do grep -q "holder ready" "$o/holder.out" 2>/dev/null && break; sleep 2; done
nvidia-smi --query-gpu=memory.used,memory.total --format=csv >"$o/holder-nvidia-smi.txt" 2>&1
fault oom-gpu-busy
fault oom-gpu-busy-large
pkill -f holder.py; sleep 3
fault growth-after-init
fault growth-with-virtual
fault fork-after-init
fault retracing
fault no-gpu-kernel
fault model-outside-scope
fault xla-py-function
fault legacy-optimizer
fault cnn-ok
fault mixed-precision-ok
fault gpu-hidden CUDA_VISIBLE_DEVICES=-1
# The wheel layout as pip leaves it: PYTHONPATH only, no library directory on LD_LIBRARY_PATH.
fault wheel-layout LD_LIBRARY_PATH="$base_ld_library_path"
touch "$o/done"
