"""Keras 3 BatchNormalization with and without tfgpu's fused kernel, on the same inputs: prints RESULT {json}."""

import json

import keras
import numpy as np

import tfgpu

X = np.random.default_rng(0).normal(2.0, 3.0, (8, 6, 6, 4)).astype("float32")


def batchnorm_run():
    keras.utils.set_random_seed(0)
    layer = keras.layers.BatchNormalization(momentum=0.9)
    trained = np.asarray(layer(X, training=True))
    stats = [np.asarray(layer.moving_mean), np.asarray(layer.moving_variance)]
    inferred = np.asarray(layer(X, training=False))
    return trained, stats, inferred


def fit_loss(policy):
    keras.mixed_precision.set_global_policy(policy)
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((6, 6, 4)),
            keras.layers.Conv2D(8, 3),
            keras.layers.BatchNormalization(),
            keras.layers.Flatten(),
            keras.layers.BatchNormalization(),  # 2-D: Keras's own path
            keras.layers.Dense(3, dtype="float32"),
        ]
    )
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=False)
    history = model.fit(X, np.arange(8) % 3, epochs=2, batch_size=4, verbose=0)
    keras.mixed_precision.set_global_policy("float32")
    return float(history.history["loss"][-1])


reference = batchnorm_run()
reference_loss = fit_loss("float32")
setup = tfgpu.setup(batchnorm="fused", strategy="default", verbose=False)
fused = batchnorm_run()
print(
    "RESULT",
    json.dumps(
        {
            "applied": setup.applied,
            "patched": keras.layers.BatchNormalization.call.__name__,
            "train_diff": float(np.max(np.abs(reference[0] - fused[0]))),
            "mean_diff": float(np.max(np.abs(reference[1][0] - fused[1][0]))),
            "variance_diff": float(np.max(np.abs(reference[1][1] - fused[1][1]))),
            "infer_diff": float(np.max(np.abs(reference[2] - fused[2]))),
            "loss": reference_loss,
            "fused_loss": fit_loss("float32"),
            "bf16_loss": fit_loss("mixed_bfloat16"),
        }
    ),
)
