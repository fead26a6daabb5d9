"""Exit statuses: the contract for shell scripts and CI."""

from __future__ import annotations

import enum


class ExitStatus(enum.IntEnum):
    """What ``tfgpu`` returns (httpie's status.py)."""

    SUCCESS = 0
    ERROR = 1
    USAGE = 2
    FINDINGS_ERROR = 3
    STRESS_FAILED = 4
    TIMEOUT = 5
    NO_GPU = 6
    """monitor: there is no NVIDIA GPU to watch (burn falls back to the CPU instead)."""
    GPU_DEGRADED = 7
    """snapshot: a GPU works but is slowed (heat, a hardware slowdown): schedule with care."""
    GPU_FAILED = 8
    """snapshot: a GPU is lost or reports uncorrected errors, or NVML cannot be read: drain the node."""
    INTERRUPTED = 130
