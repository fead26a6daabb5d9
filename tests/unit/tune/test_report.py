"""The tune report's counts, spread and recommendation lines, and the worker's spread figure."""

from __future__ import annotations

import importlib.util

from tfgpu.model.tune import Trial, TrialConfig, TuneResult
from tfgpu.probe.runner import worker_path
from tfgpu.report.tune import best_so_far_line, trial_count, trial_row, winner_line


def tune_worker():
    spec = importlib.util.spec_from_file_location("tfgpu_tune_worker", worker_path("tune"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_spread_is_the_interquartile_range_over_the_median_and_ignores_one_outlier():
    spread = tune_worker().spread
    assert spread([0.1, 0.1, 0.1]) is None  # too few epochs to say
    steady = spread([0.100, 0.101, 0.099, 0.100, 0.102, 0.100, 0.098, 0.100])
    assert steady < 0.03
    assert spread([0.100, 0.101, 0.099, 0.100, 0.9, 0.100, 0.098, 0.100]) < 0.03  # one garbage collection
    assert spread([0.1, 0.2, 0.1, 0.2, 0.1, 0.2]) > 0.5


def test_counts_say_how_many_ran_and_were_skipped_and_the_speedup_says_against_what():
    start = Trial("start, XLA off (tried last)", TrialConfig(64, jit_compile=False), "ok", 1000.0, 0.5, spread=0.04)
    best = Trial("batch size", TrialConfig(512, jit_compile=False), "ok", 5000.0, 0.5, spread=0.02)
    skipped = Trial("XLA", TrialConfig(512, jit_compile=True), "skipped", reason="time budget spent")
    result = TuneResult((start, best, skipped), start, best, 61.0, TrialConfig(64))
    assert trial_count(result) == "2 trials ran, 1 skipped,"
    line = winner_line(result)
    assert "5,000 samples/s (±1% between epochs), 5.00x the starting configuration without XLA (1,000" in line
    assert line.endswith("2 trials ran, 1 skipped, in 61 s")
    assert "without XLA" not in winner_line(TuneResult((best,), best, best, 1.0))
    assert best_so_far_line(best, start).endswith("5,000 samples/s, 5.00x the start")
    assert trial_row(start)[3] == "±2%" and trial_row(skipped)[3] == "-"
