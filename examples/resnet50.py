"""Keras ResNet-50 as a tutorial trains it from scratch, on synthetic ImageNet-shaped data.

A `tfgpu tune` script (build_model, make_dataset, COMPILE, BASELINE: the tutorial's settings):

    tfgpu tune examples/resnet50.py
"""

from __future__ import annotations

SAMPLES = 2048


def build_model():
    """ResNet-50, random weights, 1000 classes."""
    import keras

    return keras.applications.ResNet50(weights=None, input_shape=(224, 224, 3), classes=1000)


def make_dataset():
    """Random 224x224 RGB images and labels (1.2 GB of float32: enough steps for a steady rate)."""
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.random((SAMPLES, 224, 224, 3), dtype=np.float32)
    y = rng.integers(0, 1000, size=(SAMPLES,))
    return x, y


COMPILE = {"optimizer": "sgd", "loss": "sparse_categorical_crossentropy"}
BASELINE = {"batch_size": 64}  # fit(x, y, batch_size=64), Keras's default jit_compile="auto"
