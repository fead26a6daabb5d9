"""``setup(xla=True/False)`` for Keras 3: its ``compile(jit_compile="auto")`` picks XLA on any GPU, and only there.

TF's JIT switch (``tf.config.optimizer.set_jit``) governs auto-clustering only; Keras 3 resolves
its default ``jit_compile="auto"`` to XLA whenever TensorFlow lists a GPU, whatever that switch
says. XLA's first epoch is its compilation (55-62 s for the seeds' MNIST CNN on the H200, more
than 8 minutes for ResNet-50: docs/performance.md), which is why a user asks for XLA off. Keras
has no public setting for the default, so the resolver of "auto" is replaced for this process;
a model compiled with an explicit ``jit_compile`` keeps it. ``xla=True`` makes "auto" mean XLA
on the CPU too (TF's auto-clustering flag alone does not reach a Keras 3 model).
"""

from __future__ import annotations

import importlib
from typing import Any


def keras_auto_jit(on: bool) -> bool:
    """Make Keras 3's ``jit_compile="auto"`` resolve to ``on`` in this process.

    Returns False when it cannot (Keras 2 / tf.keras, whose default is already no XLA, or a
    Keras without the resolver this relies on); calling it twice is harmless.
    """
    import keras

    if not keras.__version__.startswith("3."):
        return False
    try:
        trainer: Any = importlib.import_module("keras.src.trainers.trainer").Trainer
    except (ImportError, AttributeError):
        return False
    if not callable(getattr(trainer, "_resolve_auto_jit_compile", None)):
        return False

    def resolve(self: Any) -> bool:
        return on

    trainer._resolve_auto_jit_compile = resolve
    return True
