"""What ``tfgpu run`` reports when the command has ended."""

from __future__ import annotations

from dataclasses import dataclass

from tfgpu.model.phases import PhaseTimes
from tfgpu.model.samples import JudgedFrom, Verdict
from tfgpu.model.xla_cache import CacheUse


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
    tracing_seconds: float | None = None
    """All the time tf.function spent building graphs in the training process (TensorFlow's own counter)."""
