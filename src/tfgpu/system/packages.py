"""Installed distributions that matter for TensorFlow on GPUs, via importlib.metadata."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from email.parser import BytesHeaderParser
from pathlib import Path

from tfgpu.model.facts import Distribution, PackageFacts
from tfgpu.system.files import read_regular_head

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
        raw, version = _name_and_version(path)
        if not raw or not version:
            continue
        name = normalise(raw)
        if is_relevant(name) and name not in found:
            found[name] = Distribution(name, version, str(path.parent))
    return PackageFacts(tuple(sorted(found.values(), key=lambda d: d.name)))


MAX_METADATA_HEAD_BYTES = 256 * 1024
"""Name and Version are among the first headers; a long description after them is not needed."""


def _name_and_version(path: Path) -> tuple[str | None, str | None]:
    """The Name and Version headers of a ``.dist-info`` METADATA or an ``.egg-info`` PKG-INFO (file or directory).

    Read as importlib.metadata would, but from the first MAX_METADATA_HEAD_BYTES of a regular file
    only: a FIFO or a device where METADATA should be hung the doctor or grew it without bound.
    """
    inside = "METADATA" if path.suffix == ".dist-info" else "PKG-INFO"
    target = path / inside if path.is_dir() else path
    head = read_regular_head(target, MAX_METADATA_HEAD_BYTES)
    if head is None:
        return None, None
    headers = BytesHeaderParser().parsebytes(head.split(b"\n\n", 1)[0] + b"\n")
    name, version = headers.get("Name"), headers.get("Version")
    return (str(name).strip() if name else None), (str(version).strip() if version else None)
