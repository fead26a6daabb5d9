"""Where the cache lives and how it is used, from the environment (XDG base directory convention)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from tfgpu.model.errors import UsageError
from tfgpu.model.xla_cache import CacheMode

ROOT_VARIABLE = "TFGPU_CACHE_DIR"
MODE_VARIABLE = "TFGPU_XLA_CACHE"
LIMIT_VARIABLE = "TFGPU_XLA_CACHE_LIMIT"
DEFAULT_LIMIT_BYTES = 4 * 2**30
"""Room for a few models' programs (ResNet-50's are tens of MB, the MNIST CNN's 1 MB) and few versions."""

_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


def cache_root(environ: Mapping[str, str]) -> Path:
    """``$TFGPU_CACHE_DIR``, else ``$XDG_CACHE_HOME/tfgpu``, else ``~/.cache/tfgpu``; XLA's part is ``xla/``.

    Examples:
        >>> str(cache_root({"XDG_CACHE_HOME": "/c"}))
        '/c/tfgpu/xla'
    """
    if environ.get(ROOT_VARIABLE):
        return Path(environ[ROOT_VARIABLE]) / "xla"
    base = environ.get("XDG_CACHE_HOME") or os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".cache")
    return Path(base) / "tfgpu" / "xla"


def cache_mode(environ: Mapping[str, str], asked: CacheMode | None = None) -> CacheMode:
    """The option if given, else ``$TFGPU_XLA_CACHE`` (on / off / read-only), else on.

    Raises:
        UsageError: the variable holds something else.
    """
    if asked is not None:
        return asked
    value = environ.get(MODE_VARIABLE, "").strip().lower()
    if not value:
        return CacheMode.ON
    try:
        return CacheMode(value)
    except ValueError:
        raise UsageError(f"{MODE_VARIABLE}={value!r}: use on, off or read-only") from None


def cache_limit_bytes(environ: Mapping[str, str]) -> int:
    """``$TFGPU_XLA_CACHE_LIMIT`` ("2G", "500M", bytes), else DEFAULT_LIMIT_BYTES.

    Examples:
        >>> cache_limit_bytes({"TFGPU_XLA_CACHE_LIMIT": "2G"})
        2147483648

    Raises:
        UsageError: not a size, or one below 1 MiB.
    """
    value = environ.get(LIMIT_VARIABLE, "").strip()
    if not value:
        return DEFAULT_LIMIT_BYTES
    text = value.lower().removesuffix("ib").removesuffix("b")
    unit = text[-1:] if text[-1:] in _UNITS and not text[-1:].isdigit() else ""
    number = text[: len(text) - len(unit)]
    if not number.isdigit() or not 2**20 <= int(number) * _UNITS[unit] < 2**60:
        raise UsageError(f"{LIMIT_VARIABLE}={value!r}: give a size from 1M up, such as 2G or 500M")
    return int(number) * _UNITS[unit]
