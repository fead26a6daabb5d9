"""What ``tfgpu monitor`` is asked, what each poll reads, and what a monitoring session ends with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tfgpu.model.facts import GpuLink
from tfgpu.model.samples import GpuSample, Verdict


@dataclass(frozen=True)
class MonitorRequest:
    """What ``tfgpu monitor`` was asked: how often and how long to sample, what to follow, where to write."""

    interval_seconds: float = 1.0
    duration_seconds: float | None = None
    once: bool = False
    watch_pid: int | None = None
    csv: str | None = None
    jsonl: str | None = None
    prometheus_port: int | None = None
    textfile: str | None = None
    plot: str | None = None


@dataclass(frozen=True)
class Reading:
    """One poll of every GPU: the samples, the GPUs' names and the processes on each."""

    samples: tuple[GpuSample, ...]
    names: Mapping[int, str]
    processes: Mapping[int, list[str]]


@dataclass(frozen=True)
class MonitorResult:
    """What a monitoring session ends with: its last reading, and the verdict or why there was nothing to watch."""

    no_gpu: str | None = None
    """Why NVML showed no GPU to monitor (then nothing else is set)."""
    last: Reading | None = None
    links: Mapping[int, tuple[GpuLink, ...] | str] = field(default_factory=dict)
    """With ``once`` on several GPUs: how each reaches the others."""
    verdicts: tuple[Verdict, ...] = ()
    """Unless ``once``: where the time went, judged from the watched process's first GPU activity on."""
    plot: str | None = None
    """The PNG written."""
