"""A tiny model for the tune tests: the `tfgpu tune` script contract (build_model, make_dataset)."""

import keras
import numpy as np


def build_model():
    return keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)])


def make_dataset():
    rng = np.random.default_rng(0)
    return rng.random((2048, 8)).astype("float32"), rng.integers(0, 3, 2048)


COMPILE = {"optimizer": "adam", "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True)}
BASELINE = {"batch_size": 32}
