"""Installed distributions that matter for TensorFlow on GPUs, via importlib.metadata."""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

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


def _candidates(paths: Iterable[str]) -> Iterator[Path]:
    """Metadata directories whose file name says the distribution is relevant.

    Reading every METADATA file of a big environment costs ~50 ms; the directory name
    (``name-version.dist-info``, PEP 427) is enough to skip the irrelevant ones.
    """
    for entry in paths:
        try:
            with os.scandir(entry or ".") as it:
                names = [e.name for e in it if e.name.endswith((".dist-info", ".egg-info"))]
        except OSError:
            continue
        for name in sorted(names):
            if is_relevant(normalise(name.rsplit(".", 1)[0].split("-", 1)[0])):
                yield Path(entry or ".") / name


def collect_packages(paths: Iterable[str] | None = None) -> PackageFacts:
    """The relevant distributions visible on ``paths`` (default ``sys.path``), first one wins.

    Source: the ``*.dist-info`` metadata that ``importlib.metadata`` reads; ``pip list`` shows the same.
    """
    found: dict[str, Distribution] = {}
    for path in _candidates(sys.path if paths is None else paths):
        dist = md.PathDistribution(path)
        raw = dist.metadata["Name"] if dist.metadata else None
        if not raw:
            continue
        name = normalise(raw)
        if is_relevant(name) and name not in found:
            found[name] = Distribution(name, dist.version, str(path.parent))
    return PackageFacts(tuple(sorted(found.values(), key=lambda d: d.name)))
