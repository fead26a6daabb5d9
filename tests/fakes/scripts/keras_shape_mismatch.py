"""A Keras 3 shape mismatch on a CPU machine, after the line the full tensorflow wheel logs there at start."""

import sys

print(
    "2026-12-03 10:00:00.000000: I external/local_xla/xla/tsl/cuda/cudart_stub.cc:32] Could not find cuda drivers on your machine, GPU will not be used.",
    file=sys.stderr,
)
import keras
import numpy as np

m = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Flatten(), keras.layers.Dense(10)])
m.compile("adam", "sparse_categorical_crossentropy")
m.fit(np.zeros((64, 784)), np.zeros(64), verbose=0)
