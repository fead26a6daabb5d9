"""The options of ``tfgpu.setup()`` / ``tfgpu run``, parsed and checked without TensorFlow."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from tfgpu.model.errors import DiagnosticError
from tfgpu.model.xla_cache import CacheMode

GPU_GUIDE = "https://www.tensorflow.org/guide/gpu"
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(KiB|MiB|GiB|TiB|KB|MB|GB|TB|%)\s*$", re.I | re.ASCII)
_UNITS = {"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
PRECISIONS = ("float32", "mixed", "auto")
STRATEGIES = ("auto", "default", "one", "mirrored", "multiworker")
BATCHNORMS = ("keras", "fused")


@dataclass(frozen=True)
class GpuOptions:
    """What to configure. None everywhere means: leave TensorFlow's default."""

    gpus: tuple[str, ...] | None = None
    """NVML indices or UUIDs, or ("auto:N",); None = all."""
    memory: str | None = None
    """"growth", "async", or a limit: "6GiB", "80%"."""
    memory_limit_bytes: int | None = None
    memory_limit_fraction: float | None = None
    precision: str | None = None
    xla: bool | str | None = None
    tf32: bool | None = None
    deterministic: bool | None = None
    log_placement: bool = False
    strategy: str | None = None
    split: int | None = None
    batchnorm: str | None = None
    """"fused": Keras 3's BatchNormalization through cuDNN's fused kernel (configure/batchnorm.py)."""
    xla_cache: CacheMode | None = None
    """XLA's compiled programs kept across runs (xlacache/); None = $TFGPU_XLA_CACHE, else on."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (for the ``tfgpu run`` bootstrap and summaries)."""
        return asdict(self)


def _bad(what: str, value: object, allowed: str) -> DiagnosticError:
    return DiagnosticError(
        "setup-invalid-option", f"{what}={value!r} is not valid", hint=f"use {allowed}", link=GPU_GUIDE
    )


def parse_gpus(value: object) -> tuple[str, ...] | None:
    """``"all"``, ``0``, ``[0, 1]``, ``"0,1"``, ``"GPU-…"``, ``"auto:2"`` → a tuple of entries, or None for all.

    Examples:
        >>> parse_gpus("0,1"), parse_gpus("auto:2"), parse_gpus("all")
        (('0', '1'), ('auto:2',), None)
    """
    if value is None or value == "all":
        return None
    if isinstance(value, bool):
        raise _bad("gpus", value, '"all", an index, a list of indices or UUIDs, or "auto:N"')
    if isinstance(value, int):
        items = [str(value)]
    elif isinstance(value, str):
        items = [v.strip() for v in value.split(",") if v.strip()]
    elif isinstance(value, (list, tuple)):
        items = [str(v).strip() for v in value]
    else:
        raise _bad("gpus", value, '"all", an index, a list of indices or UUIDs, or "auto:N"')
    for item in items:
        if (item.isascii() and item.isdigit()) or item.startswith(("GPU-", "MIG-")):  # "²".isdigit() is True
            continue
        if re.fullmatch(r"auto:\d+", item) and len(items) == 1 and int(item[5:]) > 0:
            continue
        raise _bad("gpus", value, '"all", an index, a list of indices or UUIDs, or "auto:N" (N >= 1)')
    if not items:
        raise _bad("gpus", value, "at least one GPU")
    return tuple(items)


def parse_memory(value: object) -> tuple[str | None, int | None, float | None]:
    """(mode, limit_bytes, limit_fraction) of a memory option.

    Examples:
        >>> parse_memory("6GiB"), parse_memory("80%"), parse_memory("growth")
        ((None, 6442450944, None), (None, None, 0.8), ('growth', None, None))
    """
    if value is None:
        return None, None, None
    if value in ("growth", "async"):
        return str(value), None, None
    match = _SIZE.match(str(value))
    if not match:
        raise _bad("memory", value, '"growth", "async", a size such as "6GiB", or a share such as "80%"')
    number, unit = float(match.group(1)), match.group(2).lower()
    if unit == "%":
        if not 0 < number <= 100:
            raise _bad("memory", value, "a share between 1% and 100%")
        return None, None, number / 100
    limit = int(number * _UNITS[unit])
    if not 2**20 <= limit <= MAX_MEMORY_BYTES:
        raise _bad("memory", value, "a limit from 1MiB to 64TiB")
    return None, limit, None


def parse_xla_cache(value: object) -> CacheMode | None:
    """True / "on", False / "off", "read-only", or None (the environment decides).

    Examples:
        >>> parse_xla_cache(False), parse_xla_cache("read-only"), parse_xla_cache(None)
        (<CacheMode.OFF: 'off'>, <CacheMode.READ_ONLY: 'read-only'>, None)
    """
    if value is None:
        return None
    if value is True:
        return CacheMode.ON
    if value is False:
        return CacheMode.OFF
    if isinstance(value, str):
        try:
            return CacheMode(value)
        except ValueError:
            pass
    raise _bad("xla_cache", value, 'True, False, "on", "off" or "read-only"')


MAX_MEMORY_BYTES = 64 * 2**40
"""No GPU has a thousandth of this: a larger limit is a typo (99999999999999999999TiB was accepted)."""

MAX_SPLIT = 64
"""More logical devices than this on one GPU is a typo (split=2**40 once tried to allocate 9.8 GB)."""


def make_options(
    gpus: object = None,
    memory: object = None,
    precision: str | None = None,
    xla: bool | str | None = None,
    tf32: bool | None = None,
    deterministic: bool | None = None,
    log_placement: bool = False,
    strategy: str | None = None,
    split: int | None = None,
    batchnorm: str | None = None,
    xla_cache: bool | str | None = None,
) -> GpuOptions:
    """Check every option and their combinations.

    Raises:
        DiagnosticError: an invalid value or a combination TF cannot honour.
    """
    mode, limit, fraction = parse_memory(memory)
    if precision is not None and precision not in PRECISIONS:
        raise _bad("precision", precision, " / ".join(PRECISIONS))
    if xla not in (None, True, False, "auto") or (isinstance(xla, int) and not isinstance(xla, bool)):  # 0 == False
        raise _bad("xla", xla, 'True, False or "auto"')
    if strategy is not None and strategy not in STRATEGIES:
        raise _bad("strategy", strategy, " / ".join(STRATEGIES))
    if batchnorm is not None and batchnorm not in BATCHNORMS:
        raise _bad("batchnorm", batchnorm, " / ".join(f'"{b}"' for b in BATCHNORMS))
    cache = parse_xla_cache(xla_cache)
    if split is not None and (isinstance(split, bool) or not isinstance(split, int) or not 1 <= split <= MAX_SPLIT):
        raise _bad("split", split, f"an integer from 1 to {MAX_SPLIT}")
    for name, flag in (("tf32", tf32), ("deterministic", deterministic), ("log_placement", log_placement)):
        if flag is not None and not isinstance(flag, bool):
            raise _bad(name, flag, "True or False")  # "no" is truthy: it must not switch the option on
    if mode == "growth" and split and split > 1:
        raise DiagnosticError(
            "setup-growth-with-split",
            "memory='growth' and split=N cannot be combined",
            hint="drop memory='growth' (each logical GPU gets a fixed share) or drop split",
            note="TF refuses memory growth on a GPU that is split into logical devices.",
            link=GPU_GUIDE,
        )
    return GpuOptions(
        gpus=parse_gpus(gpus),
        memory=str(memory) if memory is not None else None,
        memory_limit_bytes=limit,
        memory_limit_fraction=fraction,
        precision=precision,
        xla=xla,
        tf32=tf32,
        deterministic=deterministic,
        log_placement=log_placement,
        strategy=strategy,
        split=split,
        batchnorm=batchnorm,
        xla_cache=cache,
    )
