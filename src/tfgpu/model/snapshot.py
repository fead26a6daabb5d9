"""One look at every GPU, judged healthy, degraded or failed: what a scheduler's health check needs."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from tfgpu.model.samples import GpuSample


class Health(str, Enum):
    """A GPU's (or the node's) state for a scheduler: take work, take it with a warning, or drain."""

    HEALTHY = "healthy"
    DEGRADED = "degraded"
    FAILED = "failed"

    @property
    def rank(self) -> int:
        """Worse is larger: the node's health is its worst GPU's."""
        return (Health.HEALTHY, Health.DEGRADED, Health.FAILED).index(self)


@dataclass(frozen=True)
class GpuSnapshot:
    """One GPU's reading and what it says about the GPU."""

    index: int
    name: str
    uuid: str
    health: Health
    reasons: tuple[str, ...]
    sample: GpuSample


@dataclass(frozen=True)
class Snapshot:
    """Every GPU NVML sees on this host, or why none could be read (``error``)."""

    hostname: str
    health: Health
    gpus: tuple[GpuSnapshot, ...]
    error: str | None = None
