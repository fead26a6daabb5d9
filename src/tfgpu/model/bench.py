"""Benchmark results."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class BenchEntry:
    """One workload's figure, against the GPU's datasheet peak where known."""

    name: str
    kind: str
    ok: bool
    value: float | None
    unit: str
    peak: float | None = None
    device: str = ""
    relative_error: float | None = None
    error: str | None = None
    first_epoch_seconds: float | None = None
    """Models: the first epoch, tracing and compilation included (what a short run pays)."""
    best_measured: float | None = None
    """The best value tfgpu has recorded for this workload on this GPU model."""
    scaling_efficiency: float | None = None
    """Replicated workloads: samples/s over (replicas × the one-replica samples/s)."""
    gpu_speedup: float | None = None
    """CPU workloads: how many times faster the same workload ran on the GPU."""
    peer: float | None = None
    """Models: another framework's recorded rate for the same model, precision and batch on this GPU model."""
    peer_framework: str | None = None
    """Who reached ``peer`` (e.g. "PyTorch 2.11 (TF32, channels_last)")."""

    @property
    def fraction_of_peak(self) -> float | None:
        """Value / peak, when both are known."""
        return self.value / self.peak if self.value and self.peak else None


@dataclass(frozen=True)
class BenchmarkResult:
    """A suite's entries, the GPU they ran on and the peaks' source."""

    suite: str
    gpu_name: str | None
    entries: tuple[BenchEntry, ...]
    peaks_source: str | None
    seconds: float


@dataclass(frozen=True)
class BenchRun:
    """``tfgpu bench``'s answer: the suite's result, and its ratio to a saved run per figure when one was given."""

    result: BenchmarkResult
    ratios: Mapping[str, float] | None = None
