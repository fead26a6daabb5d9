"""The first CNN of a beginner's guide, exactly as written there, on MNIST-shaped random data.

    python examples/first_cnn.py          # or: tfgpu run -- python examples/first_cnn.py
    python examples/first_cnn.py --verbose 0    # fit(verbose=0): no progress bar (issue 23's case)

Keras's defaults throughout: compile(optimizer="adam") with its default jit_compile ("auto",
XLA on a GPU), fit on NumPy arrays with batch_size=64 and validation_split=0.2. Issue 14 ran it
on the H200 to check that a "Healthy" doctor means this model trains.
"""

from __future__ import annotations

import argparse

import numpy as np


def main() -> None:
    """Build, compile and fit the guide's CNN for five epochs (``--verbose`` is fit's, Keras's "auto" unless given)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--verbose", type=int, choices=(0, 1, 2))
    verbose = parser.parse_args().verbose
    import keras

    rng = np.random.default_rng(0)
    x = rng.random((60000, 28, 28, 1), dtype=np.float32)
    y = rng.integers(0, 10, size=(60000,))
    model = keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            keras.layers.Conv2D(32, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Conv2D(64, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Flatten(),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(10),
        ]
    )
    model.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(x, y, epochs=5, batch_size=64, validation_split=0.2, verbose="auto" if verbose is None else verbose)


if __name__ == "__main__":
    main()
