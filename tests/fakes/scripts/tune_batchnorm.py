"""A tiny CNN with BatchNormalization for the tune tests: the fused lever needs one."""

import keras
import numpy as np


def build_model():
    return keras.Sequential(
        [
            keras.Input((8, 8, 3)),
            keras.layers.Conv2D(8, 3),
            keras.layers.BatchNormalization(),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(3),
        ]
    )


def make_dataset():
    rng = np.random.default_rng(0)
    return rng.random((512, 8, 8, 3)).astype("float32"), rng.integers(0, 3, 512)


COMPILE = {"optimizer": "adam", "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True)}
