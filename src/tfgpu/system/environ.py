"""The environment variables that change how TensorFlow finds and uses GPUs."""

from __future__ import annotations

import re
from collections.abc import Mapping

NAMES = (
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_CACHE_MAXSIZE",
    "CUDA_CACHE_DISABLE",
    "CUDA_FORCE_PTX_JIT",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "PATH",
    "XLA_FLAGS",
    "CONDA_PREFIX",
    "VIRTUAL_ENV",
    "NVIDIA_VISIBLE_DEVICES",
    "NVIDIA_REQUIRE_CUDA",
    "NVIDIA_TENSORFLOW_VERSION",
    "NVIDIA_BUILD_ID",
    "CUDA_VERSION",
    "WSL_DISTRO_NAME",
)
PREFIXES = ("TF_", "NCCL_", "KERAS_")


def collect_environ(environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The relevant variables, sorted by name (values as they are; redaction is the report's job)."""
    keep = {k: v for k, v in environ.items() if k in NAMES or k.startswith(PREFIXES)}
    return tuple(sorted(keep.items()))


_INDEX = re.compile(r"^[0-9]+$")  # CUDA reads ASCII digits; Python's \d also takes "٣" and "²"
# GPU-<uuid>, MIG-<uuid>, and the older MIG-GPU-<uuid>/<gi>/<ci>; anchored at both ends, so an entry
# with anything else in it is invalid to CUDA and never reaches a printed fix.
_UUID = re.compile(r"^(?:GPU|MIG)-[0-9a-fA-F-]+(?:/[0-9]+/[0-9]+)?$", re.I)


def parse_visible_devices(value: str) -> tuple[list[str], str | None]:
    """The entries CUDA will honour, and the first entry that stops parsing (if any).

    CUDA reads the comma-separated list left to right and ignores everything from the first
    invalid entry on (CUDA C Programming Guide, "CUDA Environment Variables").

    Examples:
        >>> parse_visible_devices("0,1")
        (['0', '1'], None)
        >>> parse_visible_devices("0,gpu1,2")
        (['0'], 'gpu1')
        >>> parse_visible_devices("GPU-a;touch /tmp/x")
        ([], 'GPU-a;touch /tmp/x')
        >>> parse_visible_devices("0,\u0663")  # ARABIC-INDIC DIGIT THREE is no index to CUDA
        (['0'], '\u0663')
    """
    honoured: list[str] = []
    for raw in value.split(","):
        entry = raw.strip()
        if _INDEX.match(entry) or _UUID.match(entry):
            honoured.append(entry)
        else:
            return honoured, entry
    return honoured, None
