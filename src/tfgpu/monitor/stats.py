"""Aggregate samples into statistics (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from tfgpu.model.samples import SAMPLE_METRICS, GpuSample, MetricStats, SampleStats

IDLE_PERCENT = 5.0


def metric_stats(values: Sequence[float | None]) -> MetricStats:
    """Mean, min, max and last of the reported values.

    Examples:
        >>> metric_stats([1.0, None, 3.0])
        MetricStats(mean=2.0, min=1.0, max=3.0, last=3.0, count=2)
    """
    present = [v for v in values if v is not None]
    if not present:
        return MetricStats(None, None, None, None, 0)
    return MetricStats(sum(present) / len(present), min(present), max(present), present[-1], len(present))


def compute_stats(index: int, samples: Sequence[GpuSample]) -> SampleStats:
    """Statistics of one GPU's samples."""
    metrics = tuple((m, metric_stats([getattr(s, m) for s in samples])) for m in SAMPLE_METRICS)
    reasons: dict[str, int] = {}
    for sample in samples:
        for reason in sample.throttle_reasons:
            reasons[reason] = reasons.get(reason, 0) + 1
    utils = [s.utilization_percent for s in samples if s.utilization_percent is not None]
    idle = sum(1 for u in utils if u < IDLE_PERCENT) / len(utils) if utils else None
    totals = [s.memory_total_bytes for s in samples if s.memory_total_bytes]
    max_clocks = [s.max_sm_clock_mhz for s in samples if s.max_sm_clock_mhz]
    seconds = samples[-1].time_seconds - samples[0].time_seconds if len(samples) > 1 else 0.0
    ecc = [s.ecc_uncorrected_errors for s in samples if s.ecc_uncorrected_errors is not None]
    return SampleStats(
        index=index,
        samples=len(samples),
        seconds=seconds,
        metrics=metrics,
        throttle_fractions=tuple(sorted((r, n / len(samples)) for r, n in reasons.items())),
        idle_fraction=idle,
        memory_total_bytes=totals[-1] if totals else None,
        max_sm_clock_mhz=max_clocks[-1] if max_clocks else None,
        lost=any(s.lost for s in samples),
        ecc_errors_added=max(ecc) - min(ecc) if ecc else 0.0,
        xid_events=tuple(x for s in samples for x in s.xid_events),
    )
