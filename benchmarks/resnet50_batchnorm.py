"""Issue 16: is Keras 3's BatchNormalization what keeps TF's ResNet-50 at 0.29 of PyTorch on the H200?

Keras 3 normalises with separate moments / subtract / multiply ops on the TensorFlow backend
(keras-core issue 225, "BatchNorm is slow", https://github.com/keras-team/keras-core/issues/225),
where tf.keras called cuDNN's fused kernel (tf.nn.fused_batch_norm). This script trains the same
Keras 3 ResNet-50 (synthetic ImageNet shapes, the batch kept on the GPU) twice per precision:
with Keras's layer, and through tfgpu.setup(batchnorm="fused") (configure/batchnorm.py), and
prints images/s for each, with the ratio. (The H200 figures of 2026-12-03 were measured with an
earlier form of this script: a BatchNormalization subclass calling the same fused kernel.)

    python benchmarks/resnet50_batchnorm.py [--batch 256] [--steps 30] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import time


def build(keras):
    return keras.applications.ResNet50(weights=None, input_shape=(224, 224, 3), classes=1000)


def measure(keras, tf, fused: bool, precision: str, batch: int, steps: int) -> dict:
    keras.mixed_precision.set_global_policy(precision)
    keras.utils.set_random_seed(0)
    model = build(keras)
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", jit_compile=False)
    with tf.device("/GPU:0"):
        x = tf.random.uniform((batch, 224, 224, 3))
        y = tf.random.uniform((batch,), maxval=1000, dtype=tf.int32)
    ds = tf.data.Dataset.from_tensors((x, y)).repeat()
    start = time.perf_counter()
    model.fit(ds, steps_per_epoch=5, epochs=1, verbose=0)
    warmup = time.perf_counter() - start
    start = time.perf_counter()
    model.fit(ds, steps_per_epoch=steps, epochs=1, verbose=0)
    seconds = time.perf_counter() - start
    keras.mixed_precision.set_global_policy("float32")
    keras.backend.clear_session()
    return {"fused": fused, "precision": precision, "images_per_second": batch * steps / seconds, "warmup": warmup}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    import keras
    import tensorflow as tf

    from tfgpu.configure.batchnorm import use_fused_batch_normalization

    rows = []
    for fused in (False, True):  # the patch is process-wide: Keras's layer first, then the fused one
        if fused:
            use_fused_batch_normalization()
        for precision in ("float32", "mixed_bfloat16"):
            row = measure(keras, tf, fused, precision, args.batch, args.steps)
            rows.append(row)
            print(
                f"{precision:15} {'fused' if fused else 'keras'} BN: {row['images_per_second']:,.0f} img/s "
                f"(warm-up {row['warmup']:.1f} s)",
                flush=True,
            )
    for precision in ("float32", "mixed_bfloat16"):
        plain, fused_row = (r["images_per_second"] for r in rows if r["precision"] == precision)
        print(f"{precision}: fused / Keras 3 = {fused_row / plain:.2f}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"batch": args.batch, "steps": args.steps, "rows": rows}, fh, indent=2)


if __name__ == "__main__":
    main()
