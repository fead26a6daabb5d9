"""GpuMonitor judges the GPU from the second epoch on: the first holds the compile (issue 23 item 7)."""

from __future__ import annotations

from tests.fakes.clock import FakeClock
from tests.fakes.nvml import SeriesNvml

from tfgpu.integrations import keras as integration
from tfgpu.monitor.sampler import Sampler


def test_the_verdict_reads_the_samples_after_the_first_epoch():
    # As on the H200: an idle first epoch (TF compiling the step), then a busy GPU.
    clock, nvml = FakeClock(), SeriesNvml("h200", "idle_series")
    nvml.rows = nvml.rows[:20] + SeriesNvml("h200", "load_series").rows[:20]
    sampler = Sampler(nvml, [0], 0.1, clock)
    monitor = integration.GpuMonitor(verbose=False, nvml=nvml)
    monitor.sampler = sampler
    for epoch in range(2):
        monitor.epoch_marks.append(clock.monotonic())
        monitor._epoch_cpu.append(0.0)
        monitor.epoch_seconds.append(2.0 if epoch else 60.0)
        for _ in range(20):
            sampler.sample_once()
            clock.advance(0.1)
    monitor.on_train_end()
    ids = [v.id for v in monitor.verdicts]
    # Over both epochs the GPU was busy about half the time ("partly idle"); over the second, all of it.
    assert "gpu-busy" in ids and "gpu-partly-idle" not in ids, ids
    assert "first-epoch-compile" in ids  # the 60 s first epoch is named apart
