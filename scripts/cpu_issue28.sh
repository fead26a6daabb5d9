#!/usr/bin/env bash
# Issue 28 on a machine without a GPU: real TensorFlow 2.21 / Keras 3.15 logs of faults that need no GPU to happen
# (Keras 3 and TF 2 API changes, packages built for another TF or NumPy) and of a GPU build run where no GPU is.
# Each fault is a small user script run as a user runs it (`python3 train.py`, TF's and Keras's default logging,
# stdout and stderr together); its category is written in benchmarks/corpus/gpu-faults.json before its log exists.
#   [SET=l] bash scripts/cpu_issue28.sh WORKDIR OUTDIR     # SET: k (the first set, the default), l, m, n, p, r, s, u or w
# WORKDIR holds the wheels (wheels/: tensorflow 2.21.0 for this Python, tensorflow-text 2.15.0, numpy 1.24.4,
# tensorflow-addons 0.23.0, typeguard 2.13.3; for set l tensorflow-hub 0.16.1 and h5py 3.9.0; for set r ml_dtypes 0.4.1; for set u tensorflow-probability 0.23.0 with dm-tree 0.1.8, cloudpickle 3.1.1 and decorator 5.1.1, tf-keras 2.15.1, transformers 4.46.3 with huggingface-hub 0.26.5, tokenizers 0.20.3, safetensors 0.4.5, regex 2024.11.6, pyyaml 6.0.2, tqdm 4.67.1, filelock 3.16.1 and fsspec 2024.10.0) and set k gets two virtual environments: tensorflow-cpu 2.21.0 (the
# project's own test dependency, .venv) is the CPU build; WORKDIR/gpu-build is the GPU build, first alone, then with
# the CUDA wheels of tensorflow[and-cuda] from ~/.cache/tfgpu-stage/big (../shared/gpu/stage.sh downloads them).
set -u
work=$1 out=$2; mkdir -p "$out"
cpu_python=$PWD/.venv/bin/python gpu_python=$work/gpu-build/bin/python
w=$work/scripts; rm -rf "$w"; mkdir -p "$w"
fault() {  # fault NAME PYTHON [ENV=VALUE...]: run $w/NAME.py as `python3 train.py`; the log is $out/NAME.log
  local name=$1 python=$2; shift 2
  echo "== $name"
  ( cd "$w" && echo "\$ python3 train.py" && env "$@" timeout -k 15 300 "$python" "$name.py"; echo "[exit $?]" ) >"$out/$name.log" 2>&1
  tail -2 "$out/$name.log" | cut -c1-200
}
overlay() {  # overlay WHEEL...: the wheels unpacked into one directory, to go first on PYTHONPATH as pip would install them
  local dir=$work/overlay-$(basename "$1" | cut -d- -f1-2); rm -rf "$dir"; mkdir -p "$dir"
  for wheel in "$@"; do python3 -m zipfile -e "$wheel" "$dir"; done; echo "$dir"; }
cat >"$w/mlp.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(4096, 784).astype("float32"), np.random.randint(0, 10, 4096)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(256, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=2, batch_size=256, verbose=2)
PY
for name in gpu-build-no-gpu-ok and-cuda-no-gpu-ok cpu-build-ok numpy-1-24; do cp "$w/mlp.py" "$w/$name.py"; done
cat >"$w/keras-engine-import.py" <<'PY'
from keras.engine.topology import Layer  # a custom layer written for Keras 2
class Scale(Layer):
    def call(self, inputs):
        return inputs * 2
PY
cat >"$w/keras-tensor-in-tf-op.py" <<'PY'
import tensorflow as tf, keras
inputs = keras.Input((16,))
hidden = keras.layers.Dense(8)(inputs)
outputs = tf.nn.softmax(hidden) * tf.reduce_max(hidden)  # TF ops on a functional model's symbolic tensors
model = keras.Model(inputs, outputs)
PY
cat >"$w/predict-classes.py" <<'PY'
import numpy as np, keras
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
print(model.predict_classes(np.random.rand(4, 8)))
PY
cat >"$w/nb-epoch-arg.py" <<'PY'
import numpy as np, keras
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(64, 8), np.random.rand(64, 1), nb_epoch=2, verbose=2)  # Keras 1's name for epochs
PY
cat >"$w/np-utils-import.py" <<'PY'
import numpy as np
from keras.utils.np_utils import to_categorical
print(to_categorical(np.array([0, 2, 1]), 3))
PY
cat >"$w/tf-placeholder.py" <<'PY'
import tensorflow as tf
x = tf.compat.v1.placeholder(tf.float32, shape=[None, 784])  # a TF 1.x graph input
y = tf.reduce_sum(x)
PY
cat >"$w/tf-gfile.py" <<'PY'
import tensorflow as tf
with tf.gfile.GFile("labels.txt", "w") as f:  # TF 1.x's file API
    f.write("cat\ndog\n")
PY
cat >"$w/tensorflow-text-old.py" <<'PY'
import tensorflow as tf
import tensorflow_text as text
tokenizer = text.WhitespaceTokenizer()
print(tokenizer.tokenize(tf.constant(["hello world"])))
PY
cat >"$w/addons-custom-op.py" <<'PY'
import tensorflow as tf
import tensorflow_addons as tfa
print(tfa.text.skip_gram_sample(tf.constant(["the", "quick", "brown", "fox"]), min_skips=1, max_skips=1))
PY

# Set l: registered after set k was written from (12bc5fd), before any of its logs existed.
cat >"$w/gpus-index-cpu-package.py" <<'PY'
import tensorflow as tf
gpus = tf.config.list_physical_devices("GPU")
tf.config.experimental.set_memory_growth(gpus[0], True)  # as the GPU guides write it
PY
cat >"$w/tf-keras-layer-in-keras3.py" <<'PY'
import keras, tf_keras
model = keras.Sequential([keras.Input((8,)), tf_keras.layers.Dense(4)])  # a layer from tf_keras (Keras 2)
PY
cat >"$w/hub-keraslayer-sequential.py" <<'PY'
import tensorflow as tf, tensorflow_hub as hub, keras
class Embed(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 8], tf.float32)])
    def __call__(self, x):
        return x * 2
tf.saved_model.save(Embed(), "embed_model")  # a SavedModel as TF Hub serves them
model = keras.Sequential([hub.KerasLayer("embed_model", input_shape=[8]), keras.layers.Dense(1)])
PY
cat >"$w/keras-wrappers-sklearn.py" <<'PY'
from keras.wrappers.scikit_learn import KerasClassifier  # Keras 2's scikit-learn wrapper
PY
cat >"$w/advanced-activations-import.py" <<'PY'
from keras.layers.advanced_activations import LeakyReLU  # Keras 2.2's module
PY
cat >"$w/mirrored-cpu-ok.py" <<'PY'
import numpy as np, tensorflow as tf, keras
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(1024, 32), np.random.rand(1024, 1), epochs=2, batch_size=128, verbose=2)
PY
cat >"$w/legacy-mixed-precision-cpu-ok.py" <<'PY'
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"  # Keras 2 (tf_keras) for this code
import numpy as np, tensorflow as tf
tf.keras.mixed_precision.set_global_policy("mixed_float16")
model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu", input_shape=(32,)), tf.keras.layers.Dense(1, dtype="float32")])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(1024, 32), np.random.rand(1024, 1), epochs=1, verbose=2)
PY
cat >"$w/h5py-numpy1-build.py" <<'PY'
import numpy as np, keras
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(64, 8), np.random.rand(64, 1), epochs=1, verbose=2)
model.save("model.h5")  # HDF5 through h5py
PY
# Set m: registered after set l was written from (993f7d7), before any of its logs existed. The pip runs use a fresh
# virtual environment (WORKDIR/pip-env) and the package index this machine is given, as a user's `pip install` does.
cat >"$w/mirrored-gpu-on-cpu-package.py" <<'PY'
import numpy as np, tensorflow as tf, keras
strategy = tf.distribute.MirroredStrategy(["/gpu:0"])  # train on the GPU
with strategy.scope():
    model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(1024, 32), np.random.rand(1024, 1), epochs=1, batch_size=128, verbose=2)
PY
cat >"$w/pinned-gpu-on-cpu-package.py" <<'PY'
import tensorflow as tf
tf.config.set_soft_device_placement(False)  # fail rather than fall back to the CPU
with tf.device("/GPU:0"):
    a = tf.random.normal([1024, 1024])
    print(float(tf.reduce_sum(tf.matmul(a, a))))
PY
# Set n: registered after set m was written from (542dd1c), before any of its logs existed: Keras training faults
# that need no GPU to happen (set o, their GPU twin and the GPU-only runs, is scripts/h200_issue28.sh).
cat >"$w/threading-after-init.py" <<'PY'
import tensorflow as tf
print(tf.reduce_sum(tf.ones([4])))
tf.config.threading.set_intra_op_parallelism_threads(4)
PY
cat >"$w/input-ran-out.py" <<'PY'
import numpy as np, tensorflow as tf, keras
rng = np.random.default_rng(0)
x, y = rng.random((4096, 784), dtype=np.float32), rng.integers(0, 10, 4096)
data = tf.data.Dataset.from_tensor_slices((x, y)).batch(128)  # 32 batches, no repeat()
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(256, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(data, epochs=3, steps_per_epoch=50, verbose=2)
PY
cat >"$w/lambda-safe-mode.py" <<'PY'
import numpy as np, keras
inputs = keras.Input((32,))
scaled = keras.layers.Lambda(lambda t: t * 2.0)(inputs)
model = keras.Model(inputs, keras.layers.Dense(1)(scaled))
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(256, 32), np.random.rand(256, 1), epochs=1, verbose=2)
model.save("scaled.keras")
restored = keras.models.load_model("scaled.keras")
print(restored.summary())
PY
cat >"$w/proto-2gb.py" <<'PY'
import numpy as np, tensorflow as tf
table = np.full((600_000_000,), 0.5, dtype=np.float32)  # 2.4 GB of embeddings
@tf.function
def lookup(ids):
    return tf.gather(table, ids)
print(lookup(tf.constant([1, 2, 3])))
PY
cat >"$w/check-numerics.py" <<'PY'
import numpy as np, tensorflow as tf, keras
tf.debugging.enable_check_numerics()
x = np.random.rand(1024, 32).astype("float32")
x[5, 3] = -1.0  # one bad reading
class LogFeatures(keras.layers.Layer):
    def call(self, t):
        return tf.math.log(t)
model = keras.Sequential([keras.Input((32,)), LogFeatures(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, np.random.rand(1024, 1), epochs=1, batch_size=128, verbose=2)
PY
cat >"$w/labels-out-of-range-cpu.py" <<'PY'
import numpy as np, keras
rng = np.random.default_rng(0)
x, y = rng.random((8192, 784), dtype=np.float32), rng.integers(1, 11, 8192)  # classes numbered 1 to 10
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(256, activation="relu"), keras.layers.Dense(10, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=2, batch_size=256, verbose=2)
PY
# Set p: registered after set n was written from (4d1af75), before any of its logs existed: Keras 3 training code's
# own mistakes (labels of the wrong shape for the loss, data of the wrong dtype, length or shape, a custom layer
# loaded unregistered, a loss cut off from the weights) and two working runs whose tf.data prints its own notices.
cat >"$w/categorical-int-labels.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(2048, 784).astype("float32"), np.random.randint(0, 10, 2048)  # class numbers, not one-hot
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(128, activation="relu"), keras.layers.Dense(10, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, batch_size=128, verbose=2)
PY
cat >"$w/sparse-onehot-labels.py" <<'PY'
import numpy as np, keras
x = np.random.rand(2048, 784).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 10, 2048), 10)  # one-hot rows
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(128, activation="relu"), keras.layers.Dense(10, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, batch_size=128, verbose=2)
PY
cat >"$w/object-dtype-input.py" <<'PY'
import numpy as np, keras
rng = np.random.default_rng(0)
rows = [rng.random(rng.integers(5, 9)).tolist() for _ in range(512)]  # readings of uneven length
x, y = np.array(rows, dtype=object), rng.random((512, 1))
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=1, verbose=2)
PY
cat >"$w/cardinality-mismatch.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(1000, 32).astype("float32"), np.random.rand(999, 1)  # one label short
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=1, verbose=2)
PY
cat >"$w/input-shape-mismatch.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(1024, 28, 28).astype("float32"), np.random.randint(0, 10, 1024)  # images, not flattened
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(128, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=1, verbose=2)
PY
cat >"$w/custom-layer-unregistered.py" <<'PY'
import numpy as np, keras
class Scale(keras.layers.Layer):
    def call(self, inputs):
        return inputs * 2.0
model = keras.Sequential([keras.Input((8,)), Scale(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(64, 8), np.random.rand(64, 1), epochs=1, verbose=2)
model.save("scaled.keras")
PY
cat >"$w/custom-layer-load.py" <<'PY'
import keras
model = keras.models.load_model("scaled.keras")  # another script: the Scale class is not defined here
model.summary()
PY
cat >"$w/no-gradients.py" <<'PY'
import numpy as np, tensorflow as tf, keras
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam()
x, y = np.random.rand(64, 8).astype("float32"), np.random.rand(64, 1).astype("float32")
with tf.GradientTape() as tape:
    prediction = model(x).numpy()  # leaves TensorFlow: the tape loses the weights
    loss = tf.reduce_mean((tf.constant(prediction) - y) ** 2)
gradients = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(gradients, model.trainable_variables))
PY
cat >"$w/shuffle-buffer-ok.py" <<'PY'
import numpy as np, tensorflow as tf, keras
x, y = np.random.rand(400000, 32).astype("float32"), np.random.rand(400000, 1).astype("float32")
data = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(400000).batch(4096)  # a buffer as large as the data
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(data, epochs=1, verbose=2)
PY
cat >"$w/dataset-epochs-ok.py" <<'PY'
import numpy as np, tensorflow as tf, keras
x, y = np.random.rand(4096, 32).astype("float32"), np.random.rand(4096, 1).astype("float32")
data = tf.data.Dataset.from_tensor_slices((x, y)).batch(128)  # no repeat(), no steps_per_epoch: one pass an epoch
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(data, validation_data=data.take(4), epochs=3, verbose=2)
PY
pip_fault() {  # pip_fault NAME ARGS...: `python3 -m pip install ARGS` in a fresh environment; the log is $out/NAME.log
  local name=$1; shift
  rm -rf "$work/pip-env"; python3 -m venv "$work/pip-env"
  echo "== $name"
  ( cd "$w" && echo "\$ python3 -m pip install $*" && timeout -k 15 600 "$work/pip-env/bin/python" -m pip install --no-cache-dir "$@"; echo "[exit $?]" ) >"$out/$name.log" 2>&1
  tail -2 "$out/$name.log" | cut -c1-200
}
# Set r: registered with the GPU's set q after sets n, o and p were written from (72506b7), before any of its logs
# existed: a file of the user's that hides TensorFlow or Keras, Python code a tf.function cannot run, weights saved by
# another architecture, an unbatched dataset, ml_dtypes 0.4.1 (TF 2.21 asks for 0.5.1 or newer), and a working run with a Keras warning.
own_dir() {  # own_dir NAME SHOWN PYTHON: run $w/NAME/ (its own directory, whose files the script sees) as `python3 SHOWN`
  local name=$1 shown=$2 python=$3
  echo "== $name"
  ( cd "$w/$name" && echo "\$ python3 $shown" && timeout -k 15 300 "$python" "$shown"; echo "[exit $?]" ) >"$out/$name.log" 2>&1
  tail -2 "$out/$name.log" | cut -c1-200
}
mkdir -p "$w/shadow-tensorflow-file" "$w/script-named-keras"
cat >"$w/shadow-tensorflow-file/tensorflow.py" <<'PY'
# the user's first experiment, saved as tensorflow.py beside the training script
import numpy as np
print(np.ones(3))
PY
cat >"$w/shadow-tensorflow-file/train.py" <<'PY'
import tensorflow as tf
print(tf.reduce_sum(tf.ones([4])))
PY
cat >"$w/script-named-keras/keras.py" <<'PY'
import numpy as np
import keras  # the script itself is keras.py
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(64, 8), np.random.rand(64, 1), epochs=1, verbose=2)
PY
cat >"$w/numpy-in-function.py" <<'PY'
import tensorflow as tf
@tf.function
def normalise(x):
    values = x.numpy()  # eager-only: x is symbolic while the function is traced
    return tf.constant(values / values.max())
print(normalise(tf.constant([1.0, 2.0, 4.0])))
PY
cat >"$w/tensor-as-bool.py" <<'PY'
import tensorflow as tf
@tf.function(autograph=False)
def clip(x):
    if tf.reduce_max(x) > 1.0:  # a Python if on a symbolic tensor
        return x / tf.reduce_max(x)
    return x
print(clip(tf.constant([1.0, 2.0, 4.0])))
PY
cat >"$w/variable-in-function.py" <<'PY'
import tensorflow as tf
@tf.function
def accumulate(x):
    total = tf.Variable(0.0)  # a new variable on every call
    total.assign_add(tf.reduce_sum(x))
    return total.read_value()
print(accumulate(tf.constant([1.0, 2.0])))
print(accumulate(tf.constant([3.0, 4.0])))
PY
cat >"$w/weights-other-architecture.py" <<'PY'
import numpy as np, keras
old = keras.Sequential([keras.Input((784,)), keras.layers.Dense(128, activation="relu"), keras.layers.Dense(10)])
old.save_weights("mnist.weights.h5")  # saved from last week's model
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(10)])
model.load_weights("mnist.weights.h5")
PY
cat >"$w/unbatched-dataset.py" <<'PY'
import numpy as np, tensorflow as tf, keras
x, y = np.random.rand(2048, 784).astype("float32"), np.random.randint(0, 10, 2048)
data = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(2048)  # no .batch()
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(128, activation="relu"), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(data, epochs=1, verbose=2)
PY
cat >"$w/input-shape-argument-ok.py" <<'PY'
import numpy as np, keras
model = keras.Sequential([keras.layers.Dense(64, activation="relu", input_shape=(784,)), keras.layers.Dense(10)])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(np.random.rand(2048, 784), np.random.randint(0, 10, 2048), epochs=1, verbose=2)
PY
cp "$w/mlp.py" "$w/ml-dtypes-old.py"
# Set s: registered after set r was written from (6875341), before any of its logs existed: a callback watching a metric the
# model does not log (Keras 1/2's val_acc), data a script reads that is not there or not an image, and a working run
# with TensorBoard's callback.
cat >"$w/early-stopping-val-acc.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(2048, 32).astype("float32"), np.random.randint(0, 2, 2048)
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
stop = keras.callbacks.EarlyStopping(monitor="val_acc", patience=2)  # Keras 1/2's name for val_accuracy
model.fit(x, y, validation_split=0.2, epochs=4, callbacks=[stop], verbose=2)
PY
cat >"$w/checkpoint-val-acc.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(2048, 32).astype("float32"), np.random.randint(0, 2, 2048)
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
best = keras.callbacks.ModelCheckpoint("best.keras", monitor="val_acc", save_best_only=True)
model.fit(x, y, validation_split=0.2, epochs=3, callbacks=[best], verbose=2)
PY
cat >"$w/corrupt-image.py" <<'PY'
import os, numpy as np, keras
for label in ("cats", "dogs"):
    os.makedirs(f"images/{label}", exist_ok=True)
    for i in range(8):
        keras.utils.save_img(f"images/{label}/{i}.jpg", np.random.randint(0, 255, (64, 64, 3)).astype("uint8"))
with open("images/dogs/8.jpg", "wb") as f:
    f.write(b"<html>download interrupted</html>")  # a .jpg that is not an image
data = keras.utils.image_dataset_from_directory("images", image_size=(64, 64), batch_size=4)
model = keras.Sequential([keras.Input((64, 64, 3)), keras.layers.Rescaling(1 / 255), keras.layers.Flatten(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=keras.losses.BinaryCrossentropy(from_logits=True))
model.fit(data, epochs=1, verbose=2)
PY
cat >"$w/image-directory-missing.py" <<'PY'
import keras
data = keras.utils.image_dataset_from_directory("dataset/train", image_size=(180, 180), batch_size=32)
PY
cat >"$w/tfrecord-missing.py" <<'PY'
import tensorflow as tf
records = tf.data.TFRecordDataset("data/train-00000-of-00004.tfrecord")
for record in records.take(1):
    print(len(record.numpy()))
PY
cat >"$w/model-file-missing.py" <<'PY'
import keras
model = keras.models.load_model("models/best_model.keras")
model.summary()
PY
cat >"$w/tensorboard-callback-ok.py" <<'PY'
import numpy as np, keras
x, y = np.random.rand(2048, 32).astype("float32"), np.random.randint(0, 2, 2048)
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=2, callbacks=[keras.callbacks.TensorBoard("logs")], verbose=2)
PY
# Set u: registered after set t (the lent GPU machine), before any of its logs existed: packages of the Keras 2 world
# beside TF 2.21's Keras 3 (TensorFlow Probability 0.23, tf-keras 2.15, Transformers' TF models, ImageDataGenerator)
# and two working runs whose TF prints its own notes (XLA on the CPU, oneDNN switched off).
cat >"$w/tfp-old.py" <<'PY'
import tensorflow as tf
import tensorflow_probability as tfp
normal = tfp.distributions.Normal(loc=0.0, scale=1.0)
print(float(normal.log_prob(tf.constant(0.5))))
PY
cat >"$w/tf-keras-old.py" <<'PY'
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"  # tf.keras is the tf-keras package (Keras 2)
import numpy as np, tensorflow as tf
model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu", input_shape=(8,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(256, 8), np.random.rand(256, 1), epochs=1, verbose=2)
PY
cat >"$w/transformers-keras3.py" <<'PY'
from transformers import BertConfig, TFBertModel
model = TFBertModel(BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128))
print(model.config.hidden_size)
PY
cat >"$w/image-data-generator.py" <<'PY'
import numpy as np
from keras.preprocessing.image import ImageDataGenerator
augment = ImageDataGenerator(rotation_range=20, horizontal_flip=True)
batch = next(augment.flow(np.random.rand(8, 32, 32, 3), batch_size=4))
print(batch.shape)
PY
sed 's/loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))/loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)/' "$w/mlp.py" >"$w/jit-cpu-ok.py"
cp "$w/mlp.py" "$w/onednn-off-ok.py"
cat >"$w/retracing-loop.py" <<'PY'
import tensorflow as tf
@tf.function
def scale(x, factor):
    return x * factor
x = tf.ones([4])
for step in range(12):
    print(float(tf.reduce_sum(scale(x, step * 0.5))))  # a new Python float each call: a new trace each call
PY
cat >"$w/tf-configproto.py" <<'PY'
import tensorflow as tf
config = tf.ConfigProto()  # TF 1.x's session options, as allow_growth snippets write them
config.gpu_options.allow_growth = True
print(tf.reduce_sum(tf.ones([4])))
PY
cat >"$w/tf-app-flags.py" <<'PY'
import tensorflow as tf
flags = tf.app.flags  # TF 1.x's command-line flags
flags.DEFINE_integer("epochs", 2, "training epochs")
print(flags.FLAGS.epochs)
PY
cat >"$w/keras-merge-layer.py" <<'PY'
import keras
from keras.layers import Merge  # Keras 1's merge layer
left, right = keras.Input((4,)), keras.Input((4,))
print(Merge(mode="concat")([left, right]))
PY
cat >"$w/keras-experimental-preprocessing.py" <<'PY'
import numpy as np
from tensorflow.keras.layers.experimental import preprocessing  # TF 2.3-2.5's home of the preprocessing layers
norm = preprocessing.Normalization()
norm.adapt(np.random.rand(32, 4))
print(norm(np.random.rand(2, 4)))
PY
cat >"$w/numpy-huge.py" <<'PY'
import numpy as np, tensorflow as tf
features = np.zeros((1_000_000, 1_000_000), dtype=np.float32)  # a dense matrix of 4 TB, built on the host
print(tf.reduce_sum(features[:1]))
PY
cat >"$w/cudnnlstm-layer.py" <<'PY'
import numpy as np, keras
model = keras.Sequential([keras.Input((20, 8)), keras.layers.CuDNNLSTM(16), keras.layers.Dense(1)])  # TF 1.x Keras's cuDNN LSTM
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(64, 20, 8), np.random.rand(64, 1), epochs=1, verbose=2)
PY
sed 's/^model = keras.Sequential/keras.mixed_precision.set_global_policy("mixed_bfloat16")\nmodel = keras.Sequential/' "$w/mlp.py" >"$w/bf16-cpu-ok.py"
if [ "${SET:-k}" = w ]; then
  for name in retracing-loop tf-configproto tf-app-flags keras-merge-layer keras-experimental-preprocessing numpy-huge cudnnlstm-layer bf16-cpu-ok; do
    fault "$name" "$cpu_python"
  done
  exit 0
fi
if [ "${SET:-k}" = u ]; then
  fault tfp-old "$cpu_python" PYTHONPATH="$(overlay "$work"/wheels/tensorflow_probability-0.23.0-*.whl "$work"/wheels/dm_tree-0.1.8-*.whl "$work"/wheels/cloudpickle-3.1.1-*.whl "$work"/wheels/decorator-5.1.1-*.whl)"
  fault tf-keras-old "$cpu_python" PYTHONPATH="$(overlay "$work"/wheels/tf_keras-2.15.1-*.whl)"
  fault transformers-keras3 "$cpu_python" PYTHONPATH="$(overlay "$work"/wheels/transformers-4.46.3-*.whl "$work"/wheels/huggingface_hub-0.26.5-*.whl \
    "$work"/wheels/tokenizers-0.20.3-*.whl "$work"/wheels/safetensors-0.4.5-*.whl "$work"/wheels/regex-2024.11.6-*.whl "$work"/wheels/PyYAML-6.0.2-*.whl \
    "$work"/wheels/tqdm-4.67.1-*.whl "$work"/wheels/filelock-3.16.1-*.whl "$work"/wheels/fsspec-2024.10.0-*.whl)"
  fault image-data-generator "$cpu_python"
  fault jit-cpu-ok "$cpu_python"
  fault onednn-off-ok "$cpu_python" TF_ENABLE_ONEDNN_OPTS=0
  exit 0
fi
if [ "${SET:-k}" = s ]; then
  for name in early-stopping-val-acc checkpoint-val-acc corrupt-image image-directory-missing tfrecord-missing model-file-missing tensorboard-callback-ok; do
    fault "$name" "$cpu_python"
  done
  exit 0
fi
if [ "${SET:-k}" = r ]; then
  own_dir shadow-tensorflow-file train.py "$cpu_python"
  own_dir script-named-keras keras.py "$cpu_python"
  for name in numpy-in-function tensor-as-bool variable-in-function weights-other-architecture unbatched-dataset input-shape-argument-ok; do
    fault "$name" "$cpu_python"
  done
  fault ml-dtypes-old "$cpu_python" PYTHONPATH="$(overlay "$work"/wheels/ml_dtypes-0.4.1-*.whl)"
  exit 0
fi
if [ "${SET:-k}" = p ]; then
  for name in categorical-int-labels sparse-onehot-labels object-dtype-input cardinality-mismatch input-shape-mismatch; do
    fault "$name" "$cpu_python"
  done
  ( cd "$w" && "$cpu_python" custom-layer-unregistered.py >"$out/custom-layer-save.out" 2>&1 )  # the saving script, its own run
  fault custom-layer-load "$cpu_python"
  fault no-gradients "$cpu_python"
  fault shuffle-buffer-ok "$cpu_python"
  fault dataset-epochs-ok "$cpu_python"
  exit 0
fi
if [ "${SET:-k}" = n ]; then
  fault threading-after-init "$cpu_python"
  fault input-ran-out "$cpu_python"
  fault lambda-safe-mode "$cpu_python"
  fault proto-2gb "$cpu_python"
  fault check-numerics "$cpu_python"
  fault labels-out-of-range-cpu "$cpu_python"
  exit 0
fi
if [ "${SET:-k}" = m ]; then
  pip_fault pip-tensorflow-gpu tensorflow-gpu
  pip_fault pip-tf-210-py311 tensorflow==2.10.0
  fault mirrored-gpu-on-cpu-package "$cpu_python"
  fault pinned-gpu-on-cpu-package "$cpu_python"
  exit 0
fi
if [ "${SET:-k}" = l ]; then
  fault gpus-index-cpu-package "$cpu_python"
  fault tf-keras-layer-in-keras3 "$cpu_python"
  fault hub-keraslayer-sequential "$cpu_python" PYTHONPATH="$(overlay "$work"/wheels/tensorflow_hub-0.16.1-*.whl)"
  fault keras-wrappers-sklearn "$cpu_python"
  fault advanced-activations-import "$cpu_python"
  fault mirrored-cpu-ok "$cpu_python"
  fault legacy-mixed-precision-cpu-ok "$cpu_python"
  fault h5py-numpy1-build "$cpu_python" PYTHONPATH="$(overlay "$work"/wheels/h5py-3.9.0-*.whl)"
  exit 0
fi

fault gpu-build-no-gpu-ok "$gpu_python"
"$work/gpu-build/bin/pip" install -q --no-deps "$HOME"/.cache/tfgpu-stage/big/nvidia_*.whl
fault and-cuda-no-gpu-ok "$gpu_python"
fault cpu-build-ok "$cpu_python"
fault keras-engine-import "$cpu_python"
fault keras-tensor-in-tf-op "$cpu_python"
fault predict-classes "$cpu_python"
fault nb-epoch-arg "$cpu_python"
fault np-utils-import "$cpu_python"
fault tf-placeholder "$cpu_python"
fault tf-gfile "$cpu_python"
fault tensorflow-text-old "$cpu_python" PYTHONPATH="$(overlay "$work"/wheels/tensorflow_text-2.15.0-*.whl)"
fault numpy-1-24 "$cpu_python" PYTHONPATH="$(overlay "$work"/wheels/numpy-1.24.4-*.whl)"
fault addons-custom-op "$cpu_python" PYTHONPATH="$(overlay "$work"/wheels/tensorflow_addons-0.23.0-*.whl "$work"/wheels/typeguard-2.13.3-*.whl)"
