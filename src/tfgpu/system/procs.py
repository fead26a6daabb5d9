"""Facts about other processes, from /proc (Linux): alive, command line, TensorFlow loaded."""

from __future__ import annotations

import os
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether the process exists (signal 0 probes without touching it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def uses_tensorflow(pid: int, root: Path = Path("/")) -> bool | None:
    """Whether libtensorflow_framework is mapped into the process; None when /proc does not tell."""
    try:
        with open(root / "proc" / str(pid) / "maps", "rb") as fh:
            return any(b"libtensorflow_framework" in line for line in fh)
    except OSError:
        return None


def cpu_seconds(pid: int, root: Path = Path("/")) -> float | None:
    """User + system CPU time of a process and its waited-for children (/proc/PID/stat)."""
    try:
        text = (root / "proc" / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[-1].split()
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    try:
        return sum(int(fields[i]) for i in (11, 12, 13, 14)) / ticks
    except (IndexError, ValueError):
        return None
