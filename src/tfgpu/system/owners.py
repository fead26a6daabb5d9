"""Which package installed a library file: a pip distribution, a conda package or a Debian package.

A fix has to go to the tool that owns the copy TF loads: ``pip install --upgrade`` cannot replace
a conda package's cuDNN, and ``apt`` owns /usr/lib's. Read from the package managers' own records
(a dist-info's RECORD, conda-meta/*.json's ``files``, dpkg's info/*.list and status), only for the
packages whose names say CUDA, so a large system stays cheap to read.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from tfgpu.system.files import read_regular_or_none

MAX_RECORD_BYTES = 8 * 2**20
"""A package's file list; real ones are kilobytes (the cuDNN wheel's RECORD is ~3 KiB)."""
MAX_STATUS_BYTES = 32 * 2**20
"""dpkg's status file: a few MB on a full desktop."""
CUDA_PACKAGE = re.compile(r"cudnn|cuda|cublas|cufft|curand|cusolver|cusparse|nccl|nvjitlink|nvrtc|nvcc|nvidia", re.I)


def package_owners(
    paths: Iterable[str], site_dirs: Sequence[str], conda_prefix: str | None, root: str = "/"
) -> dict[str, str]:
    """The package that installed each of ``paths``, where a package manager records one.

    Owners read ``pip nvidia-cudnn-cu12 9.3.0.75``, ``conda cudnn 8.9.2.26`` or
    ``deb libcudnn8 8.9.6.50-1+cuda12.2``; a path no record names is left out. Links count:
    a path matches a record when both resolve to the same file.
    """
    wanted: dict[str, list[str]] = {}
    for path in paths:
        wanted.setdefault(os.path.realpath(path), []).append(path)
    managed = [os.path.realpath(d) + os.sep for d in (*site_dirs, *([conda_prefix] if conda_prefix else []))]
    system = any(not real.startswith(tuple(managed)) for real in wanted)  # dpkg's status is read only for these
    owners: dict[str, str] = {}
    records = (*_pip(site_dirs), *_conda(conda_prefix), *(_deb(root) if system else ()))
    for real, owner in records:  # files resolved, links included
        for path in wanted.get(real, ()):
            owners.setdefault(path, owner)
    return owners


def _read_text(path: Path, limit: int) -> str | None:
    data = read_regular_or_none(path, limit)
    return data.decode("utf-8", errors="replace") if data is not None else None


def _pip(site_dirs: Sequence[str]) -> Iterable[tuple[str, str]]:
    for site in site_dirs:
        for info in sorted(Path(site).glob("*.dist-info")) if os.path.isdir(site) else ():
            if not CUDA_PACKAGE.search(info.name) and not info.name.startswith("tensorflow"):
                continue
            name, _, version = info.name[: -len(".dist-info")].partition("-")
            owner = f"pip {name.replace('_', '-').lower()} {version}"
            for line in (_read_text(info / "RECORD", MAX_RECORD_BYTES) or "").splitlines():
                relative = line.split(",", 1)[0]
                if ".so" in relative:
                    yield os.path.realpath(os.path.join(site, relative)), owner


def _conda(prefix: str | None) -> Iterable[tuple[str, str]]:
    meta = Path(prefix or "") / "conda-meta"
    if not prefix or not meta.is_dir():
        return
    for record in sorted(meta.glob("*.json")):
        if not CUDA_PACKAGE.search(record.name):
            continue
        try:
            doc = json.loads(_read_text(record, MAX_RECORD_BYTES) or "{}")
        except ValueError:
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("files"), list):
            continue
        owner = f"conda {doc.get('name', record.stem)} {doc.get('version', '')}".strip()
        for relative in doc["files"]:
            if isinstance(relative, str) and ".so" in relative:
                yield os.path.realpath(os.path.join(prefix, relative)), owner


def _deb(root: str) -> Iterable[tuple[str, str]]:
    info = Path(root) / "var/lib/dpkg/info"
    if not info.is_dir():
        return
    versions = _deb_versions(root)
    for listing in sorted(info.glob("*.list")):
        if not CUDA_PACKAGE.search(listing.name):
            continue
        package = listing.stem.split(":", 1)[0]
        owner = f"deb {package} {versions.get(package, '')}".strip()
        for line in (_read_text(listing, MAX_RECORD_BYTES) or "").splitlines():
            if ".so" in line:
                yield os.path.realpath(os.path.join(root, line.lstrip("/"))), owner


def _deb_versions(root: str) -> dict[str, str]:
    text = _read_text(Path(root) / "var/lib/dpkg/status", MAX_STATUS_BYTES) or ""
    versions: dict[str, str] = {}
    for stanza in text.split("\n\n"):
        fields = dict(re.findall(r"^(Package|Version): (.+)$", stanza, re.M))
        if "Package" in fields and "Version" in fields and CUDA_PACKAGE.search(fields["Package"]):
            versions[fields["Package"]] = fields["Version"]
    return versions
