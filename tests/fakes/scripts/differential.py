"""One training script in several shapes, for the do-no-harm differential test (issue 23).

    python differential.py MODE     # fit0 fit1 fit2 loop keras_first crash streams

It prints what must not change under ``tfgpu run``: its own sys.path, the files its modules came
from, and seeded losses; ``crash`` ends with a Keras-like error, ``streams`` writes to both streams.
"""

import json
import sys

mode = sys.argv[1]
if mode == "keras_first":
    import keras
    import tensorflow as tf
else:
    import tensorflow as tf

    keras = tf.keras
import numpy as np

print("PATH", json.dumps(sys.path))
keras.utils.set_random_seed(1)
x = np.random.default_rng(0).random((64, 4), dtype=np.float32)
y = x @ np.arange(8, dtype=np.float32).reshape(4, 2)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2)])
model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
if mode == "loop":
    optimizer = keras.optimizers.SGD(0.01)

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    losses = [float(step(x, y)) for _ in range(3)]
elif mode == "crash":
    print("training starts", flush=True)
    raise ValueError("Input 0 of layer 'dense' is incompatible with the layer: expected axis -1 to have value 4")
else:
    verbose = {"fit0": 0, "fit1": 1, "fit2": 2}.get(mode, 0)
    history = model.fit(x, y, epochs=3, batch_size=16, shuffle=True, verbose=verbose)
    losses = history.history["loss"]
if mode == "streams":
    print("to stderr", file=sys.stderr)
modules = {name: getattr(sys.modules[name], "__file__", None) for name in ("numpy", "tensorflow", "keras")}
print("MODULES", json.dumps(modules))
print("LOSSES", json.dumps([round(v, 6) for v in losses]))
