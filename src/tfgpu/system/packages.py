"""Installed distributions that matter for TensorFlow on GPUs, via importlib.metadata."""

from __future__ import annotations

import importlib.metadata as md
import re
from collections.abc import Iterable

from tfgpu.model.facts import Distribution, PackageFacts

TF_DISTRIBUTIONS = (
    "tensorflow",
    "tensorflow-cpu",
    "tensorflow-gpu",
    "tensorflow-intel",
    "tensorflow-macos",
    "tensorflow-aarch64",
    "tf-nightly",
    "tf-nightly-cpu",
    "tf-nightly-gpu",
)
"""Distributions that install the ``tensorflow`` package itself: two at once overwrite each other."""

RELEVANT = (
    *TF_DISTRIBUTIONS,
    "tensorflow-metal",
    "tensorflow-rocm",
    "intel-extension-for-tensorflow",
    "keras",
    "keras-nightly",
    "tf-keras",
    "tensorrt",
    "nvidia-ml-py",
    "pynvml",
)


def normalise(name: str) -> str:
    """PEP 503 normalised name.

    Examples:
        >>> normalise("NVIDIA_cudnn.cu12")
        'nvidia-cudnn-cu12'
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def is_relevant(name: str) -> bool:
    """TensorFlow, Keras, NVML bindings and every ``nvidia-*`` CUDA wheel."""
    return name in RELEVANT or name.startswith("nvidia-")


def collect_packages(paths: Iterable[str] | None = None) -> PackageFacts:
    """The relevant distributions visible on ``paths`` (default ``sys.path``).

    Source: ``importlib.metadata.distributions()``; ``pip list`` shows the same.
    """
    found: dict[str, Distribution] = {}
    dists = md.distributions() if paths is None else md.distributions(path=list(paths))
    for dist in dists:
        raw = dist.metadata["Name"] if dist.metadata else None
        if not raw:
            continue
        name = normalise(raw)
        if is_relevant(name) and name not in found:
            found[name] = Distribution(name, dist.version, str(dist.locate_file("")))
    return PackageFacts(tuple(sorted(found.values(), key=lambda d: d.name)))
