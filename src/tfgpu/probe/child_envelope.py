"""What every worker does alike in its child interpreter: the envelope it writes, and the patch it may load.

Stdlib only, imported by the workers (and the parent reads ``SCHEMA_VERSION`` from here), so the
three workers cannot drift apart in the document the parent reads. The child writes one document
to its ``--output`` file, never to stdout (TF and its plugins print there)::

    {"schema_version": 1, "task": ..., "ok": bool, "data": {...}, "error": {...} | null}

``ok`` says the task ran to its end; a task that failed keeps what it learnt in ``data`` and
says why in ``error``.
"""

from __future__ import annotations

import json
import os
import runpy
import traceback
from typing import Any

SCHEMA_VERSION = 1


def new_envelope(task: str) -> dict[str, Any]:
    """An envelope of ``task`` that has not succeeded yet."""
    return {"schema_version": SCHEMA_VERSION, "task": task, "ok": False, "data": {}, "error": None}


def failure(exc: BaseException) -> dict[str, Any]:
    """The ``error`` of an envelope: the exception's type, message and traceback (called in its handler)."""
    return {"type": type(exc).__name__, "message": str(exc), "traceback": traceback.format_exc()}


def write_envelope(envelope: dict[str, Any], path: str) -> None:
    """Atomically: the parent reads the whole envelope or none, even if the child dies while writing."""
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(envelope, fh)
    os.replace(tmp, path)


def use_fused_batchnorm_if_asked() -> None:
    """Load tfgpu's fused-BatchNormalization patch by path when the parent names it (TFGPU_FUSED_BATCHNORM).

    By path, so the worker still never imports tfgpu.
    """
    patch = os.environ.get("TFGPU_FUSED_BATCHNORM")
    if patch and not runpy.run_path(patch)["use_fused_batch_normalization"]():
        raise RuntimeError("fused batch normalization applies to Keras 3 on TensorFlow only")
