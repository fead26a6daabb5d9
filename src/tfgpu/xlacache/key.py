"""The cache key: everything that makes a compiled program invalid when it changes."""

from __future__ import annotations

import hashlib
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path

from tfgpu.model.xla_cache import CacheKey
from tfgpu.system.files import read_regular_or_none

CPU_INFO = Path("/proc/cpuinfo")
CPU_INFO_MAX_BYTES = 1 << 20


def key_for(parts: Mapping[str, str]) -> CacheKey:
    """The digest of ``parts`` (sorted, so the order they were gathered in does not matter).

    Examples:
        >>> key_for({"tensorflow": "2.21.0"}) == key_for({"tensorflow": "2.21.0"})
        True
        >>> key_for({"tensorflow": "2.21.0"}).digest == key_for({"tensorflow": "2.20.0"}).digest
        False
    """
    items = tuple(sorted(parts.items()))
    text = "\n".join(f"{name}={value}" for name, value in items)
    return CacheKey(hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16], items)


def cpu_model(path: Path = CPU_INFO) -> str:
    """The CPU's model and its feature flags' digest: XLA's CPU programs use the features they were built on."""
    data = read_regular_or_none(path, CPU_INFO_MAX_BYTES)
    if data is None:
        return platform.machine()
    text = data.decode("utf-8", "replace")
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    stripped = {k.strip(): v.strip() for k, v in fields.items()}
    flags = stripped.get("flags", "")
    digest = hashlib.sha256(flags.encode()).hexdigest()[:8] if flags else "-"
    return f"{platform.machine()} {stripped.get('model name', '?')} flags:{digest}"


def key_parts(
    versions: Mapping[str, str],
    *,
    driver: str | None,
    gpus: Sequence[str],
    environ: Mapping[str, str],
    cpu: str,
    tfgpu_flags: Mapping[str, Sequence[tuple[str, str]]] | None = None,
) -> dict[str, str]:
    """What the key is made of: the training interpreter's packages, the driver, the GPUs, the CPU, the flags.

    The user's own XLA flags count (an autotune level changes the program, not its HLO), and so
    do the ones tfgpu adds (``tfgpu_flags``) and LD_LIBRARY_PATH (it decides which CUDA and cuDNN
    a process loads).
    """
    parts = {name: version for name, version in versions.items()}
    parts["driver"] = driver or "none"
    parts["gpus"] = ",".join(gpus) or "none"
    parts["cpu"] = cpu
    for variable in ("TF_XLA_FLAGS", "XLA_FLAGS", "LD_LIBRARY_PATH"):
        if environ.get(variable):
            parts[variable] = environ[variable]
    for variable, flags in (tfgpu_flags or {}).items():
        parts[f"tfgpu {variable}"] = " ".join(f"--{name}={value}" for name, value in flags)
    return parts
