"""What ``tfgpu run`` reports when the command has ended."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from tfgpu.model.phases import PhaseTimes
from tfgpu.model.samples import Verdict
from tfgpu.model.xla_cache import CacheUse


class JudgedFrom(str, Enum):
    """Where the window the GPU is judged over begins: the best mark the run gave."""

    TRAINING = "its training steps (the first step, tracing and compilation, left out)"
    FIRST_PROGRAM = "when XLA's first compiled program was written (start-up and compilation left out)"
    FIRST_ACTIVITY = "its first activity on"


@dataclass(frozen=True)
class RunReport:
    """What happened: the exit status, the time, and the verdicts (how it ended first, then the GPU's)."""

    exit_status: int
    seconds: float
    verdicts: tuple[Verdict, ...]
    peak_memory_bytes: float | None
    mean_utilization_percent: float | None
    xla_cache_directory: str | None = None
    xla_cache: CacheUse | None = None
    """What the run compiled into and loaded from the XLA cache (None: no cache, or nothing observed)."""
    phases: PhaseTimes | None = None
    """Seconds per phase measured inside the training process (None: no Keras training was seen)."""
    peak_utilization_percent: float | None = None
    """The busiest sample of the busiest GPU over the judged window."""
    host_memory_peak_bytes: float | None = None
    """The command's peak resident memory on the host (its own, from wait4)."""
    judged_from: JudgedFrom = JudgedFrom.FIRST_ACTIVITY
