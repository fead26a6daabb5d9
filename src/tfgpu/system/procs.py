"""Facts about other processes, from /proc (Linux): alive, command line, TensorFlow loaded."""

from __future__ import annotations

import ctypes
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


PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Adopt this process's orphaned descendants (Linux prctl), so a stopped run can find them.

    ``tfgpu run`` keeps the user's command in its own terminal session (breakpoint() and input()
    still work), so it cannot signal a process group; when the command's own children outlive
    it they are re-parented here instead of to init, and ``children`` lists them.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def children(pid: int, root: Path = Path("/")) -> list[int]:
    """The live processes whose parent is ``pid`` (/proc/*/stat), for ending adopted orphans."""
    out = []
    for entry in (root / "proc").iterdir() if (root / "proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        if len(fields) > 1 and fields[1] == str(pid) and fields[0] != "Z":
            out.append(int(entry.name))
    return out
