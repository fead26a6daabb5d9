"""``setup(xla=False)`` for Keras 3: its ``compile(jit_compile="auto")`` picks XLA on any GPU.

TF's JIT switch (``tf.config.optimizer.set_jit``) governs auto-clustering only; Keras 3 resolves
its default ``jit_compile="auto"`` to XLA whenever TensorFlow lists a GPU, whatever that switch
says. XLA's first epoch is its compilation (55-62 s for the seeds' MNIST CNN on the H200, more
than 8 minutes for ResNet-50: docs/performance.md), which is why a user asks for XLA off. Keras
has no public setting for the default, so the resolver of "auto" is replaced for this process;
a model compiled with ``jit_compile=True`` keeps it.
"""

from __future__ import annotations

import importlib
from typing import Any

_PATCHED = "_tfgpu_auto_jit_off"


def keras_auto_jit_off() -> bool:
    """Make Keras 3's ``jit_compile="auto"`` resolve to False in this process.

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
    if getattr(trainer._resolve_auto_jit_compile, _PATCHED, False):
        return True

    def resolve(self: Any) -> bool:
        return False

    setattr(resolve, _PATCHED, True)
    trainer._resolve_auto_jit_compile = resolve
    return True
