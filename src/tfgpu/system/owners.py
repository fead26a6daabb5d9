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

from tfgpu.model.facts import PackageManager, PackageOwner
from tfgpu.system.files import read_regular_or_none
from tfgpu.system.packages import normalise, relevant_metadata_dirs

MAX_RECORD_BYTES = 8 * 2**20
"""A package's file list; real ones are kilobytes (the cuDNN wheel's RECORD is ~3 KiB)."""
MAX_STATUS_BYTES = 32 * 2**20
"""dpkg's status file: a few MB on a full desktop."""
CUDA_PACKAGE = re.compile(r"cudnn|cuda|cublas|cufft|curand|cusolver|cusparse|nccl|nvjitlink|nvrtc|nvcc|nvidia", re.I)


def package_owners(
    paths: Iterable[str], site_dirs: Sequence[str], conda_prefix: str | None, root: str = "/"
) -> dict[str, PackageOwner]:
    """The package that installed each of ``paths``, where a package manager records one.

    A path no record names is left out. Links count: a path matches a record when both resolve
    to the same file.
    """
    wanted: dict[str, list[str]] = {}
    for path in paths:
        wanted.setdefault(os.path.realpath(path), []).append(path)
    managed = [os.path.realpath(d) + os.sep for d in (*site_dirs, *([conda_prefix] if conda_prefix else []))]
    system = any(not real.startswith(tuple(managed)) for real in wanted)  # dpkg's status is read only for these
    owners: dict[str, PackageOwner] = {}
    records = (*_pip(site_dirs), *_conda(conda_prefix), *(_deb(root) if system else ()))
    for real, owner in records:  # files resolved, links included
        for path in wanted.get(real, ()):
            owners.setdefault(path, owner)
    return owners


def _read_text(path: Path, limit: int) -> str | None:
    data = read_regular_or_none(path, limit)
    return data.decode("utf-8", errors="replace") if data is not None else None


def _pip(site_dirs: Sequence[str]) -> Iterable[tuple[str, PackageOwner]]:
    """The shared libraries the RECORD of each CUDA wheel and TensorFlow distribution lists."""
    for info in relevant_metadata_dirs(site_dirs):
        if info.suffix != ".dist-info" or not (CUDA_PACKAGE.search(info.name) or info.name.startswith("tensorflow")):
            continue  # torch's or NumPy's RECORD (thousands of lines) holds no library TF loads
        name, _, version = info.name[: -len(".dist-info")].partition("-")
        owner = PackageOwner(PackageManager.PIP, normalise(name), version)
        for line in (_read_text(info / "RECORD", MAX_RECORD_BYTES) or "").splitlines():
            relative = line.split(",", 1)[0]
            if ".so" in relative:
                yield os.path.realpath(os.path.join(info.parent, relative)), owner


def _conda(prefix: str | None) -> Iterable[tuple[str, PackageOwner]]:
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
        owner = PackageOwner(PackageManager.CONDA, str(doc.get("name", record.stem)), str(doc.get("version", "")))
        for relative in doc["files"]:
            if isinstance(relative, str) and ".so" in relative:
                yield os.path.realpath(os.path.join(prefix, relative)), owner


def _deb(root: str) -> Iterable[tuple[str, PackageOwner]]:
    info = Path(root) / "var/lib/dpkg/info"
    if not info.is_dir():
        return
    versions = _deb_versions(root)
    for listing in sorted(info.glob("*.list")):
        if not CUDA_PACKAGE.search(listing.name):
            continue
        package = listing.stem.split(":", 1)[0]
        owner = PackageOwner(PackageManager.DEB, package, versions.get(package, ""))
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
