"""The trial runner's utilization: over the child's timed window, on the sampler's clock."""

from __future__ import annotations

from statistics import fmean

from tests.fakes.clock import FakeClock
from tests.fakes.nvml import SeriesNvml

from tfgpu.monitor.sampler import Sampler
from tfgpu.tuning.run import _utilization


def test_utilization_is_read_over_the_timed_window_only():
    # A child's life as recorded on the H200: 1 s idle (TensorFlow importing), then 4 s busy.
    clock, nvml = FakeClock(), SeriesNvml("h200", "idle_series")
    nvml.rows = nvml.rows + SeriesNvml("h200", "load_series").rows
    sampler = Sampler(nvml, [0], 0.1, clock)
    start = clock.monotonic()
    for _ in range(50):
        sampler.sample_once()
        clock.advance(0.1)
    window = [start + 0.55, start + 1.45]  # half idle, half busy
    inside = [s.utilization_percent for s in sampler.samples() if window[0] <= s.time_seconds <= window[1]]
    assert len(inside) == 9 and _utilization(sampler, window) == fmean(inside) < 60
    # no window (the trial failed) or no GPU: no figure, rather than one over the child's whole life
    assert _utilization(sampler, None) is None and _utilization(None, window) is None
