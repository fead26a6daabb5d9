"""Sampler, stats, verdict rules and sinks over readings recorded on the H200."""

from __future__ import annotations

import csv
import io
import json
import time
from dataclasses import replace

import pytest
from tests.fakes.clock import FakeClock
from tests.fakes.nvml import FakeGpu, FakeNvml, SeriesNvml

from tfgpu.model.samples import MetricStats, SampleStats
from tfgpu.model.xla_cache import CacheUse
from tfgpu.monitor.sampler import Sampler
from tfgpu.monitor.sinks import CsvSink, JsonlSink
from tfgpu.monitor.stats import compute_stats
from tfgpu.monitor.verdict import RunFacts, format_verdicts, judge


def run_series(key: str, n: int, **kwargs) -> Sampler:
    clock = FakeClock()
    sampler = Sampler(SeriesNvml("h200", key, **kwargs), [0], 0.1, clock)
    for _ in range(n):
        sampler.sample_once()
        clock.advance(0.1)
    return sampler


def test_recorded_load_series_is_busy_at_the_power_cap():
    sampler = run_series("load_series", 40)
    (stats,) = sampler.stats()
    assert stats.samples == 40 and stats.get("utilization_percent").max == 100
    assert stats.throttle("sw_power_cap") > 0.5 and stats.get("power_draw_watts").max > 600
    (verdict, *_) = judge([stats], RunFacts(wall_seconds=4.0))
    assert verdict.id == "gpu-busy" and "power limit" in verdict.detail


def test_recorded_idle_series_with_short_steps_is_python_overhead():
    (stats,) = run_series("idle_series", 10).stats()
    verdict = judge([stats], RunFacts(wall_seconds=60.0, steps=20000, host_cpu_seconds=58.0))[0]
    assert verdict.id == "python-overhead-per-step" and "steps_per_execution" in " ".join(verdict.advice)


def test_idle_gpu_with_long_steps_is_input_bound_with_tf_data_advice():
    (stats,) = run_series("idle_series", 10).stats()
    verdict = judge([stats], RunFacts(wall_seconds=60.0, steps=100, host_cpu_seconds=55.0))[0]
    assert verdict.id == "input-bound" and "one core saturated" in verdict.summary
    assert "prefetch" in verdict.advice[0]


def stats_with(util: float, *, throttle=(), lost=False, total=140e9) -> SampleStats:
    m = MetricStats(util, util, util, util, 10)
    temp = MetricStats(88, 80, 90, 88, 10)
    return SampleStats(
        0, 10, 1.0, (("utilization_percent", m), ("temperature_celsius", temp)), tuple(throttle), 0.0, total, 1980, lost
    )


@pytest.mark.parametrize(
    ("stats", "run", "first"),
    [
        (stats_with(95, throttle=(("hw_thermal_slowdown", 0.5),)), RunFacts(), "gpu-thermal-throttling"),
        (stats_with(50), RunFacts(), "gpu-partly-idle"),
        (stats_with(95, lost=True), RunFacts(), "gpu-lost"),
        (stats_with(95), RunFacts(tf_memory_peak_bytes=135e9), "gpu-busy"),
    ],
)
def test_verdict_rules_on_synthetic_series(stats, run, first):
    verdicts = judge([stats], run)
    assert verdicts[0].id == first and format_verdicts(verdicts).startswith("tfgpu verdict: ")


def test_memory_near_full_is_reported_from_tfs_own_peak():
    ids = [v.id for v in judge([stats_with(95)], RunFacts(tf_memory_peak_bytes=135e9))]
    assert "memory-near-full" in ids and [v.id for v in judge([stats_with(95)])] == ["gpu-busy"]


def test_no_gpu_gives_its_own_verdict():
    assert judge([])[0].id == "no-gpu-monitored"


def test_gpu_lost_mid_run_is_a_sample_flag_not_a_crash():
    sampler = run_series("load_series", 8, lost_after=5)
    samples = sampler.samples()
    assert not samples[4].lost and samples[6].lost and samples[6].utilization_percent is None
    assert judge(sampler.stats())[0].id == "gpu-lost"


def test_unsupported_metric_is_asked_once_and_reported():
    client = FakeNvml([FakeGpu(unsupported=frozenset({"nvmlDeviceGetPowerUsage"}))])
    sampler = Sampler(client, [0], 0.1, FakeClock())
    for _ in range(3):
        assert sampler.sample_once()[0].power_draw_watts is None
    assert client.calls.count("nvmlDeviceGetPowerUsage") == 1
    assert sampler.reader.unsupported[0] == {"power"}


def test_mig_and_idle_stats_fields():
    stats = compute_stats(0, [])
    assert stats.samples == 0 and stats.idle_fraction is None


def test_csv_and_jsonl_sinks_write_every_field():
    out_csv, out_jsonl = io.StringIO(), io.StringIO()
    csv_sink, jsonl_sink = CsvSink(out_csv), JsonlSink(out_jsonl)

    def both(sample):
        csv_sink(sample)
        jsonl_sink(sample)

    sampler = Sampler(FakeNvml.from_recording("h200", "under_load"), [0], 0.1, FakeClock(), on_sample=both)
    sampler.sample_once()
    rows = list(csv.DictReader(io.StringIO(out_csv.getvalue())))
    assert rows[0]["throttle_reasons"] == "sw_power_cap" and float(rows[0]["power_draw_watts"]) > 600
    doc = json.loads(out_jsonl.getvalue())
    assert doc["throttle_reasons"] == ["sw_power_cap"] and doc["index"] == 0


def test_sampler_thread_runs_at_its_interval_and_stops():
    sampler = Sampler(FakeNvml.single_gpu(), [0], 0.01)
    sampler.start()
    time.sleep(0.2)
    sampler.stop()
    n = len(sampler.samples())
    assert 5 <= n <= 30 and sampler.cpu_seconds >= 0.0
    time.sleep(0.05)
    assert len(sampler.samples()) == n


def test_first_busy_marks_the_end_of_start_up():
    clock = FakeClock()
    sampler = Sampler(SeriesNvml("h200", "idle_series"), [0], 0.1, clock)
    for _ in range(3):
        sampler.sample_once()
        clock.advance(0.1)
    assert sampler.first_busy() is None
    busy = Sampler(SeriesNvml("h200", "load_series"), [0], 0.1, clock)
    busy.sample_once()
    assert busy.first_busy() == clock.now


def test_xid_and_ecc_rise_become_error_verdicts():
    client = FakeNvml.single_gpu()
    sampler = Sampler(client, [0], 0.1, FakeClock())
    sampler.sample_once()
    client.pending_xids = [(0, 79)]
    client.gpus[0] = replace(client.gpus[0], ecc_uncorrected_errors=2)
    sampler.sample_once()
    ids = [v.id for v in judge(sampler.stats())]
    assert "xid-event" in ids and "ecc-errors-rose" in ids


def test_mig_parent_without_utilization_samples_the_rest():
    gpu = FakeGpu(mig_mode=True, unsupported=frozenset({"nvmlDeviceGetUtilizationRates"}))
    sampler = Sampler(FakeNvml([gpu]), [0], 0.1, FakeClock())
    sample = sampler.sample_once()[0]
    assert sample.utilization_percent is None and sample.memory_used_bytes is not None
    assert judge(sampler.stats())[0].id == "utilization-unknown"


def test_xla_compilation_that_dwarfs_the_run_is_the_headline():
    # The H200 seed run's shape: 62 s first epoch with XLA, ~3 s after (docs/performance.md)
    run = RunFacts(wall_seconds=68.0, steps=2814, epoch_seconds=(62.4, 2.9, 2.8), jit_compile=True)
    verdicts = judge([stats_with(8)], run)
    assert verdicts[0].id == "first-epoch-compile" and "XLA" in verdicts[0].detail
    assert "XLA cache" in verdicts[0].advice[0]  # keep the compile for the next run first
    assert "jit_compile=False" in verdicts[0].advice[1]  # give XLA up only for a one-off run
    assert verdicts[1].id != "first-epoch-compile"


def test_xla_compilation_kept_in_the_cache_says_the_next_run_loads_it():
    # The H200 run of 2026-12-03: 56 s first epoch compiling 3 programs into the XLA cache, 2 s after
    run = RunFacts(epoch_seconds=(56.0, 3.0, 2.0, 2.0, 2.0), jit_compile=True, xla_cache=CacheUse(3, 0, 56.0))
    verdict = judge([stats_with(8)], run)[0]
    assert verdict.id == "first-epoch-compile" and "3 program(s) compiled" in verdict.detail
    assert "next run of this script loads them" in verdict.advice[0]
    assert not any("jit_compile=False" in a for a in verdict.advice)


def test_a_modest_first_epoch_is_an_aside_or_nothing():
    long_run = RunFacts(epoch_seconds=(40.0, 10.0, 10.0, 10.0, 10.0), jit_compile=False)
    ids = [v.id for v in judge([stats_with(95)], long_run)]
    assert ids == ["gpu-busy", "first-epoch-compile"]
    assert "tracing and autotuning" in judge([stats_with(95)], long_run)[1].detail
    quiet = RunFacts(epoch_seconds=(3.0, 1.0, 1.0))  # 2 s of tracing is not worth a word
    assert [v.id for v in judge([stats_with(95)], quiet)] == ["gpu-busy"]


def test_unfused_keras3_batch_norm_leads_on_a_busy_gpu_and_follows_an_idle_one():
    busy = [v.id for v in judge([stats_with(95)], RunFacts(unfused_batchnorm_layers=53, jit_compile=False))]
    assert busy == ["keras3-batchnorm-unfused", "gpu-busy"]
    idle = judge([stats_with(8)], RunFacts(wall_seconds=60.0, steps=100, unfused_batchnorm_layers=53))
    assert [v.id for v in idle] == ["input-bound", "keras3-batchnorm-unfused"]
    assert "busy is not fast" not in idle[1].detail and "1.9x" in idle[1].detail
    # XLA fuses them itself; a fused or BN-free model is told nothing
    for run in (RunFacts(unfused_batchnorm_layers=53, jit_compile=True), RunFacts(unfused_batchnorm_layers=0)):
        assert "keras3-batchnorm-unfused" not in [v.id for v in judge([stats_with(95)], run)]
