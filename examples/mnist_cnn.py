"""The Keras MNIST CNN as tutorials write it, on synthetic MNIST-shaped data (no download).

    python examples/mnist_cnn.py --mode seed     # model.fit(x, y, batch_size=64) on NumPy arrays
    python examples/mnist_cnn.py --mode tuned    # tf.data, batch 1024, prefetch, jit_compile=False
    add --monitor run.png to attach tfgpu's GpuMonitor and draw the run

Prints samples/s. The two modes are the configurations measured on an H200 in issue 6/9.
It is also a `tfgpu tune` script (build_model, make_dataset, COMPILE, BASELINE: the seed form):

    tfgpu tune examples/mnist_cnn.py
"""

from __future__ import annotations

import argparse
import time


def build_model():
    """The tutorial CNN: two conv/pool blocks, dropout, softmax."""
    import keras

    model = keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            keras.layers.Conv2D(32, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Conv2D(64, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Flatten(),
            keras.layers.Dropout(0.5),
            keras.layers.Dense(10, activation="softmax"),
        ]
    )
    return model


def make_data(n: int):
    """Random images and labels of MNIST's shapes."""
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.random((n, 28, 28, 1), dtype=np.float32)
    y = rng.integers(0, 10, size=(n,))
    return x, y


def make_dataset():
    """MNIST's 60,000 training images, for `tfgpu tune`."""
    return make_data(60000)


COMPILE = {"optimizer": "adam", "loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]}
BASELINE = {"batch_size": 64}  # the seed form: fit(x, y, batch_size=64), Keras's default jit_compile="auto"


def main() -> None:
    """Train in the chosen mode and print samples/s."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("seed", "tuned"), default="seed")
    parser.add_argument("--samples", type=int, default=60000)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--monitor", metavar="PNG", help="attach GpuMonitor and write this plot")
    args = parser.parse_args()
    import tensorflow as tf

    x, y = make_data(args.samples)
    model = build_model()
    callbacks = []
    if args.monitor:
        from tfgpu.integrations.keras import GpuMonitor

        callbacks.append(GpuMonitor(plot=args.monitor))
    if args.mode == "seed":
        model.compile(**COMPILE)
        fit = dict(x=x, y=y, batch_size=BASELINE["batch_size"])
    else:
        model.compile(**COMPILE, jit_compile=False)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(1024).prefetch(tf.data.AUTOTUNE)
        fit = dict(x=ds)
    model.fit(**fit, epochs=1, verbose=0)  # warm-up: graph tracing and autotuning are not training speed
    start = time.perf_counter()
    model.fit(**fit, epochs=args.epochs, verbose=0, callbacks=callbacks)
    seconds = time.perf_counter() - start
    print(f"mode={args.mode} samples/s={args.samples * args.epochs / seconds:.0f} seconds={seconds:.1f}")


if __name__ == "__main__":
    main()
