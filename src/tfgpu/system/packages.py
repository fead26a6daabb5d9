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
    "torch",
    "numpy",
    "jax",
    "jax-cuda12-plugin",
    "jax-cuda13-plugin",
)
"""Besides every ``nvidia-*`` wheel; ``torch`` because its wheels pin the CUDA wheels TF loads too; ``numpy``
for the versions block (a NumPy TF was not built against fails at import); JAX and its CUDA plugins
and PyTorch because ``KERAS_BACKEND`` can make either the framework that trains."""


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


def relevant_metadata_dirs(paths: Iterable[str]) -> Iterator[Path]:
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
    for path in relevant_metadata_dirs(sys.path if paths is None else paths):
        raw, version, requires = _metadata(path)
        if not raw or not version:
            continue
        name = normalise(raw)
        if is_relevant(name) and name not in found:
            pins = nvidia_pins(requires) if name not in TF_DISTRIBUTIONS and not name.startswith("nvidia-") else ()
            found[name] = Distribution(name, version, str(path.parent), pins, _installer(path))
    return PackageFacts(tuple(sorted(found.values(), key=lambda d: d.name)))


MAX_METADATA_HEAD_BYTES = 256 * 1024
"""Name and Version are among the first headers; a long description after them is not needed."""


MAX_INSTALLER_BYTES = 256


def _installer(path: Path) -> str | None:
    """The first line of a ``.dist-info``'s INSTALLER file (PEP 376), None without one."""
    head = read_regular_head(path / "INSTALLER", MAX_INSTALLER_BYTES) if path.suffix == ".dist-info" else None
    line = head.decode("utf-8", "replace").strip().splitlines()[0] if head and head.strip() else ""
    return line if line.isprintable() and line else None


def nvidia_pins(requires: list[str]) -> tuple[str, ...]:
    """The ``Requires-Dist`` lines that pin an NVIDIA wheel to one version on this platform, normalised.

    Read for the other frameworks only (PyTorch, JAX): TensorFlow's own pins are in the knowledge base.

    Examples:
        >>> nvidia_pins(["nvidia-cudnn-cu12==9.1.0.70", "nvidia-nccl-cu12>=2.21",
        ...              'nvidia-cublas-cu12==12.4.5.8; extra == "cuda"', "filelock"])
        ('nvidia-cudnn-cu12==9.1.0.70',)
    """
    wanted = [line for line in requires if "nvidia" in line.lower() and "==" in line]
    if not wanted:
        return ()
    from packaging.requirements import InvalidRequirement, Requirement  # 40 ms: only for a framework that pins

    out = []
    for line in wanted:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        name = normalise(req.name)
        if not name.startswith("nvidia-") or (req.marker is not None and not req.marker.evaluate({"extra": ""})):
            continue
        exact = [s.version for s in req.specifier if s.operator == "=="]
        if len(exact) == 1:
            out.append(f"{name}=={exact[0]}")
    return tuple(out)


def _metadata(path: Path) -> tuple[str | None, str | None, list[str]]:
    """The Name, Version and Requires-Dist headers of a ``.dist-info`` METADATA or an ``.egg-info`` PKG-INFO.

    Read as importlib.metadata would, but from the first MAX_METADATA_HEAD_BYTES of a regular file
    only: a FIFO or a device where METADATA should be hung the doctor or grew it without bound.
    """
    inside = "METADATA" if path.suffix == ".dist-info" else "PKG-INFO"
    target = path / inside if path.is_dir() else path
    head = read_regular_head(target, MAX_METADATA_HEAD_BYTES)
    if head is None:
        return None, None, []
    headers = BytesHeaderParser().parsebytes(head.split(b"\n\n", 1)[0] + b"\n")
    name, version = headers.get("Name"), headers.get("Version")
    requires = [str(r) for r in headers.get_all("Requires-Dist") or []]
    return (str(name).strip() if name else None), (str(version).strip() if version else None), requires
