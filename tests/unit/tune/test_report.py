"""The tune report's counts, spread and recommendation lines, and the worker's spread figure."""

from __future__ import annotations

import importlib
from dataclasses import replace

from tfgpu.model.tune import Trial, TrialConfig, TrialOutcome, TuneResult
from tfgpu.report.tune import best_so_far_line, confirmation_line, trial_count, trial_row, winner_line


def tune_worker():
    return importlib.import_module("tfgpu.probe.tune_worker")


def test_spread_is_the_interquartile_range_over_the_median_and_ignores_one_outlier():
    spread = tune_worker().spread
    assert spread([0.1, 0.1, 0.1]) is None  # too few epochs to say
    steady = spread([0.100, 0.101, 0.099, 0.100, 0.102, 0.100, 0.098, 0.100])
    assert steady < 0.03
    assert spread([0.100, 0.101, 0.099, 0.100, 0.9, 0.100, 0.098, 0.100]) < 0.03  # one garbage collection
    assert spread([0.1, 0.2, 0.1, 0.2, 0.1, 0.2]) > 0.5


def test_counts_say_how_many_ran_and_were_skipped_and_the_speedup_says_against_what():
    start = Trial(
        "start, XLA off (tried last)", TrialConfig(64, jit_compile=False), TrialOutcome.OK, 1000.0, 0.5, spread=0.04
    )
    best = Trial("batch size", TrialConfig(512, jit_compile=False), TrialOutcome.OK, 5000.0, 0.5, spread=0.02)
    skipped = Trial("XLA", TrialConfig(512, jit_compile=True), TrialOutcome.SKIPPED, reason="time budget spent")
    result = TuneResult((start, best, skipped), start, best, 61.0, TrialConfig(64))
    assert trial_count(result) == "2 trials ran, 1 skipped,"
    line = winner_line(result)
    assert "5,000 samples/s (±1% between epochs), 5.00x the starting configuration without XLA (1,000" in line
    assert line.endswith("2 trials ran, 1 skipped, in 61 s")
    assert "without XLA" not in winner_line(TuneResult((best,), best, best, 1.0))
    assert best_so_far_line(best, start).endswith("5,000 samples/s, 5.00x the start")
    assert trial_row(start)[3] == "±2%" and trial_row(skipped)[3] == "-"


def test_the_confirmation_states_the_noise_between_processes_and_whether_the_gain_beats_it():
    start = Trial("start", TrialConfig(64, jit_compile=False), TrialOutcome.OK, 1000.0, 0.5)
    best = Trial("batch size", TrialConfig(512, jit_compile=False), TrialOutcome.OK, 1050.0, 0.5)
    again = Trial("confirm", best.config, TrialOutcome.OK, 966.0, 0.5)
    result = TuneResult((start, best, again), start, best, 61.0, confirmation=again)
    assert round(result.process_noise, 3) == 0.08
    assert confirmation_line(result) == (
        "Measured again in a fresh TensorFlow process: 966 samples/s (-8.0%); differences under 8% are noise "
        "between processes, and the winner's lead over the start (0.97x by its lower figure) is within it."
    )
    far = TuneResult(
        (start,),
        start,
        replace(best, samples_per_second=5000.0),
        1.0,
        confirmation=replace(again, samples_per_second=4900.0),
    )
    assert confirmation_line(far).endswith("differences under 2% are noise between processes.")
    skipped = Trial(
        "confirm",
        best.config,
        TrialOutcome.SKIPPED,
        reason="20 s left, a fresh process and the winner's trial need about 30 s",
    )
    assert confirmation_line(TuneResult((start,), start, best, 1.0, confirmation=skipped)) == (
        "Not measured again in a fresh TensorFlow process (skipped: 20 s left, a fresh process and the winner's "
        "trial need about 30 s)."
    )
    assert confirmation_line(TuneResult((start,), start, best, 1.0)) is None


def test_a_lead_that_the_second_process_does_not_confirm_is_called_noise():
    """Seen on the 2-core machine: winner 3,883, again 3,365 (-13%), start 3,280: a 1.18x that is 1.03x."""
    start = Trial("start", TrialConfig(64, jit_compile=False), TrialOutcome.OK, 3280.0, 0.5)
    best = Trial(
        "steps_per_execution", TrialConfig(64, jit_compile=False, steps_per_execution=32), TrialOutcome.OK, 3883.0, 0.5
    )
    again = Trial("confirm", best.config, TrialOutcome.OK, 3365.0, 0.5)
    line = confirmation_line(TuneResult((start, best, again), start, best, 66.0, confirmation=again))
    assert line.endswith("and the winner's lead over the start (1.03x by its lower figure) is within it.")
