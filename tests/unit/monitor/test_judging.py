"""The one judging core of tfgpu run, tfgpu monitor --watch and GpuMonitor, over readings recorded on the H200."""

from __future__ import annotations

from tests.fakes.clock import FakeClock
from tests.fakes.nvml import SeriesNvml

from tfgpu.model.samples import JudgedFrom
from tfgpu.monitor.judging import judge_window
from tfgpu.monitor.sampler import Sampler
from tfgpu.monitor.verdict import RunFacts


def recorded(n: int) -> tuple[Sampler, list[float]]:
    clock = FakeClock()
    sampler = Sampler(SeriesNvml("h200", "load_series"), [0], 0.1, clock)
    times = []
    for _ in range(n):
        times.append(clock.monotonic())
        sampler.sample_once()
        clock.advance(0.1)
    return sampler, times


def test_the_window_bounds_the_statistics_and_the_figures_come_from_them():
    sampler, times = recorded(40)
    whole = judge_window(sampler, RunFacts(wall_seconds=4.0), JudgedFrom.WHOLE_RUN)
    part = judge_window(sampler, RunFacts(wall_seconds=1.0), JudgedFrom.TRAINING, times[10], times[19])
    assert whole.stats[0].samples == 40 and part.stats[0].samples == 10
    assert part.judged_from is JudgedFrom.TRAINING
    assert whole.peak_utilization_percent == max(s.get("utilization_percent").max or 0 for s in whole.stats)
    assert whole.peak_memory_bytes is not None and whole.peak_memory_bytes > 0
    assert whole.verdicts[0].id == "gpu-busy"


def test_without_a_sampler_no_gpu_was_monitored_and_there_are_no_figures():
    judgement = judge_window(None, RunFacts(), JudgedFrom.WHOLE_RUN)
    assert [v.id for v in judgement.verdicts] == ["no-gpu-monitored"]
    assert judgement.peak_memory_bytes is None and judgement.mean_utilization_percent is None
