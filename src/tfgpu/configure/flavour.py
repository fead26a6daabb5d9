"""Which Keras trains the script, read the way Keras and TensorFlow read it, without importing either.

tfgpu's options act on TensorFlow. Under Keras 3 with the JAX or torch backend, TensorFlow does
not run the model: ``--xla off`` there switched Keras's own compilation off for JAX (7.0 s →
25.8 s for one epoch in issue 23's run) while saying nothing. Options name the flavour they meet.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from enum import Enum
from pathlib import Path

from tfgpu.configure.options import GpuOptions
from tfgpu.system.files import read_regular

MAX_CONFIG_BYTES = 1 << 16


class KerasFlavour(str, Enum):
    """tf_keras (Keras 2 inside TF), or Keras 3 and its backend."""

    TF_KERAS = "tf_keras"
    TENSORFLOW = "tensorflow"
    JAX = "jax"
    TORCH = "torch"
    OTHER = "other"

    @property
    def on_tensorflow(self) -> bool:
        """Whether TensorFlow runs the model (tfgpu's options reach it)."""
        return self in (KerasFlavour.TF_KERAS, KerasFlavour.TENSORFLOW)


def keras_flavour(environ: Mapping[str, str]) -> KerasFlavour:
    """TF_USE_LEGACY_KERAS (TF's test), else KERAS_BACKEND, else ``$KERAS_HOME/keras.json``, else tensorflow.

    Examples:
        >>> keras_flavour({"KERAS_BACKEND": "jax"}), keras_flavour({"TF_USE_LEGACY_KERAS": "1", "HOME": "/nonexistent"})
        (<KerasFlavour.JAX: 'jax'>, <KerasFlavour.TF_KERAS: 'tf_keras'>)
    """
    if environ.get("TF_USE_LEGACY_KERAS") in ("true", "True", "1"):
        return KerasFlavour.TF_KERAS
    backend = (environ.get("KERAS_BACKEND") or _configured_backend(environ) or "tensorflow").strip().lower()
    try:
        return KerasFlavour(backend) if backend != KerasFlavour.TF_KERAS.value else KerasFlavour.OTHER
    except ValueError:
        return KerasFlavour.OTHER


def _configured_backend(environ: Mapping[str, str]) -> str | None:
    """The ``backend`` of Keras's config file (keras/src/backend/config.py: KERAS_HOME, else ~/.keras)."""
    home = environ.get("KERAS_HOME") or os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".keras")
    try:
        data = json.loads(read_regular(Path(home) / "keras.json", MAX_CONFIG_BYTES))
    except (OSError, ValueError):
        return None
    backend = data.get("backend") if isinstance(data, dict) else None
    return backend if isinstance(backend, str) else None


TENSORFLOW_ONLY = ("xla", "tf32", "memory", "batchnorm", "deterministic", "log_placement", "strategy", "split")
"""Options that configure TensorFlow itself; precision sets Keras's global policy, and gpus
CUDA_VISIBLE_DEVICES, which every backend reads."""


def options_beyond_flavour(options: GpuOptions, flavour: KerasFlavour) -> list[str]:
    """What each TensorFlow-only option that was set does not do for a model TensorFlow does not train.

    Examples:
        >>> options_beyond_flavour(GpuOptions(xla=False, precision="mixed"), KerasFlavour.JAX)
        ["xla=False configures TensorFlow, and this script's Keras trains on jax (Keras's backend): it does not reach the model"]
    """
    if flavour.on_tensorflow:
        return []
    return [
        f"{name}={getattr(options, name)!r} configures TensorFlow, and this script's Keras trains on "
        f"{flavour.value} (Keras's backend): it does not reach the model"
        for name in TENSORFLOW_ONLY
        if getattr(options, name) not in (None, False) or (name == "xla" and options.xla is False)
    ]
