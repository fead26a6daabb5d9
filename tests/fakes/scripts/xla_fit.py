"""A small Keras model compiled with XLA (jit_compile=True), fitted for two epochs on the CPU."""

import keras
import numpy as np

rng = np.random.default_rng(0)
x = rng.random((256, 8, 8, 1), dtype=np.float32)
y = np.arange(256) % 4
model = keras.Sequential(
    [
        keras.Input((8, 8, 1)),
        keras.layers.Conv2D(4, 3, activation="relu"),
        keras.layers.Flatten(),
        keras.layers.Dense(4),
    ]
)
model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)
model.fit(x, y, epochs=2, batch_size=64, verbose=2)
