"""Time the probe's tiny Keras CNN step by step under XLA (Keras's default jit_compile on a GPU).

    python benchmarks/xla_first_step.py [--policy float32] [--steps 3]

Prints the wall time of each of the first steps (the first one traces and compiles) and then
of a warm step; run it with XLA_FLAGS / TF_CPP_VMODULE set to see where the first step's time goes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src" / "tfgpu" / "probe"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--policy", default="float32")
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    import numpy as np
    import tensorflow as tf
    import worker  # the probe worker's model, so the figure is the doctor's

    keras = tf.keras
    keras.mixed_precision.set_global_policy(args.policy)
    model = worker._tiny_cnn(keras)
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x = np.random.default_rng(0).standard_normal((worker.TRAINING_BATCH, *worker.TRAINING_SHAPE), dtype=np.float32)
    y = np.arange(worker.TRAINING_BATCH) % 10
    for step in range(args.steps):
        start = time.perf_counter()
        loss = model.train_on_batch(x, y)
        print(
            f"step {step}: {time.perf_counter() - start:.2f} s (loss {float(np.asarray(loss).ravel()[0]):.3f})",
            flush=True,
        )
    print(f"jit_compile resolved: {model.jit_compile}")


if __name__ == "__main__":
    main()
