"""Samples into a judgement: the statistics over the judged window, the verdicts and the run's summary figures.

``tfgpu run``, ``tfgpu monitor --watch`` and the GpuMonitor callback each know a different mark
for where training starts (phases measured inside the process, XLA's first program, the second
epoch, the first GPU activity); each passes its window here and gets the same statistics,
verdicts and figures, so the three cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from tfgpu.model.samples import JudgedFrom, SampleStats, Verdict
from tfgpu.monitor.sampler import Sampler
from tfgpu.monitor.verdict import RunFacts, judge


@dataclass(frozen=True)
class Judgement:
    """The verdicts over one window of samples, with where the window began and its figures."""

    verdicts: tuple[Verdict, ...]
    stats: tuple[SampleStats, ...]
    judged_from: JudgedFrom

    @property
    def peak_memory_bytes(self) -> float | None:
        """The most GPU memory any judged GPU held."""
        return max((s.get("memory_used_bytes").max or 0.0 for s in self.stats), default=None)

    @property
    def mean_utilization_percent(self) -> float | None:
        """The busiest GPU's mean utilisation over the window."""
        return max((s.get("utilization_percent").mean or 0.0 for s in self.stats), default=None)

    @property
    def peak_utilization_percent(self) -> float | None:
        """The busiest sample of the busiest GPU."""
        return max((s.get("utilization_percent").max or 0.0 for s in self.stats), default=None)


def judge_window(
    sampler: Sampler | None,
    run: RunFacts,
    judged_from: JudgedFrom,
    since: float | None = None,
    until: float | None = None,
) -> Judgement:
    """Judge the samples from ``since`` to ``until`` (monotonic seconds; None: open) with what the caller knows.

    Without a sampler (no GPU, or NVML failed) the verdict says that no GPU was monitored.
    """
    stats = tuple(sampler.stats(since=since, until=until)) if sampler else ()
    return Judgement(tuple(judge(stats, run)), stats, judged_from)
