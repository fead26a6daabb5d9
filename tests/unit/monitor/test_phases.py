"""Phases from the recorder's times (monitor/phases.py) and the verdict that names the phase that took the time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tfgpu.model.phases import Phase, PhaseTimes
from tfgpu.model.samples import MetricStats, SampleStats
from tfgpu.monitor.phases import parse_record, phase_times, tracing_seconds
from tfgpu.monitor.verdict import RunFacts, judge

RECORDED = Path(__file__).parents[2] / "fixtures" / "phases" / "keras3-cpu-jit-fit-validation-evaluate.json"


def recorded() -> dict:
    return json.loads(RECORDED.read_text())


def test_a_recorded_fit_with_validation_and_evaluate_splits_into_every_phase():
    record = recorded()
    phases = phase_times(record, record["start"])
    assert phases is not None
    assert [p for p, _ in phases.seconds] == list(Phase)
    assert phases.steps == 58  # 2 epochs of ceil(1843 / 64) batches
    # everything but the moments between calls (fit's end to evaluate's begin) is accounted for
    assert phases.total == pytest.approx(record["exit"] - record["start"], abs=0.1)
    fit_begin, first_batch, fit_end = record["train"][0]
    assert phases.of(Phase.FIRST_STEP) == pytest.approx(first_batch - fit_begin)
    assert phases.training_window == (first_batch, fit_end)
    inside = sum(e - b for b, _, e in record["test"][:2])  # the two validation passes inside fit
    assert phases.of(Phase.TRAINING) == pytest.approx(fit_end - fit_begin - inside - (first_batch - fit_begin))


def test_without_a_fit_no_phase_is_named():
    record = recorded() | {"train": []}
    assert phase_times(record, record["start"]) is None


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xff\xfe",
        b"[1, 2]",
        b'{"train": "x"}',
        b'{"train": [[1, 2]]}',
        b'{"train": [["1", null, 2]]}',
        b'{"train": [[5, 6, 1]]}',
    ],
)
def test_a_malformed_record_gives_no_phases_and_no_exception(data):
    record = parse_record(data)
    assert record is None or phase_times(record, 0.0) is None


def test_non_finite_and_out_of_order_times_are_left_out():
    record = {"tensorflow": float("nan"), "exit": 1.0, "train": [[2.0, 9.0, 4.0]], "steps": -3}
    phases = phase_times(record, 0.0)
    assert phases is not None
    assert phases.of(Phase.FIRST_STEP) is None and phases.of(Phase.STARTUP) is None and phases.of(Phase.AFTER) is None
    assert phases.steps == 0 and phases.training_window is None


def busy(util: float) -> SampleStats:
    m = MetricStats(util, util, util, util, 10)
    return SampleStats(0, 10, 1.0, (("utilization_percent", m),), (), 0.0, 140e9, 1980, False)


# The seeds' MNIST CNN on the H200 with Keras's defaults and verbose=0 (issue 23): 84 s in all,
# 60 of them in XLA's first-step compilation, then 5 epochs of 2 s.
MNIST_H200 = PhaseTimes(
    ((Phase.STARTUP, 13.0), (Phase.PREPARE, 1.0), (Phase.FIRST_STEP, 60.0), (Phase.TRAINING, 10.0)),
    (74.0, 84.0),
    4690,
)


def test_a_first_step_longer_than_the_training_is_the_headline_with_its_seconds():
    verdicts = judge([busy(1)], RunFacts(phases=MNIST_H200, jit_compile=True))
    assert verdicts[0].id == "first-step-compile"
    assert "60 s of the run's 84 s" in verdicts[0].summary
    assert "XLA compilation" in verdicts[0].detail and "10.0 s" in verdicts[0].detail


def test_a_short_first_step_is_not_named():
    quick = PhaseTimes(((Phase.FIRST_STEP, 3.0), (Phase.TRAINING, 100.0)), (3.0, 103.0), 1000)
    assert "first-step-compile" not in [v.id for v in judge([busy(95)], RunFacts(phases=quick))]


def test_a_first_step_shorter_than_the_training_follows_the_gpu_verdict():
    long = PhaseTimes(((Phase.FIRST_STEP, 30.0), (Phase.TRAINING, 600.0)), (30.0, 630.0), 10000)
    ids = [v.id for v in judge([busy(95)], RunFacts(phases=long, jit_compile=True))]
    assert ids == ["gpu-busy", "first-step-compile"]


def test_epochs_are_timed_within_their_fit_and_bad_entries_are_dropped():
    record = {
        "exit": 100.0,
        "train": [[10.0, 60.0, 75.0], [80.0, 81.0, 90.0]],
        "epoch_ends": [70.0, 72.0, "x", float("inf"), 74.5, 85.0, 89.0, 95.0],
        "steps": 10,
    }
    phases = phase_times(record, 0.0)
    assert phases is not None
    assert phases.epoch_seconds == (60.0, 2.0, 2.5, 5.0, 4.0)  # 95.0 lies outside every fit
    assert phases.epochs == 5


def test_without_phases_the_time_before_the_first_compiled_program_is_named_and_headlines_when_longer():
    # ResNet-50 by train_on_batch under XLA on the H200: its program was written 47 s into a 64 s run.
    facts = RunFacts(first_program_seconds=47.0, wall_seconds=17.0, jit_compile=True)
    verdicts = judge([busy(90)], facts)
    assert verdicts[0].id == "first-program-compile"
    assert "47 s after the start" in verdicts[0].summary and "17.0 s after it" in verdicts[0].detail
    assert "input-bound" not in [v.id for v in verdicts]


def test_a_quick_first_program_or_known_phases_name_no_program_compile():
    assert "first-program-compile" not in [
        v.id for v in judge([busy(90)], RunFacts(first_program_seconds=4.0, wall_seconds=60.0))
    ]
    with_phases = RunFacts(phases=MNIST_H200, first_program_seconds=74.0, wall_seconds=10.0, jit_compile=True)
    assert "first-program-compile" not in [v.id for v in judge([busy(90)], with_phases)]


def test_without_a_phase_or_an_epoch_low_utilisation_blames_neither_input_nor_batch():
    # ResNet-50 by train_on_batch with its batch on the H200, loaded from the cache: busy 20% over a
    # window that held start-up and the end of the script (tfgpu run said "waits for input").
    verdicts = judge([busy(20)], RunFacts(wall_seconds=18.0, unattributed=True))
    ids = [v.id for v in verdicts]
    assert ids == ["gpu-idle-unattributed"]
    assert "not known" in verdicts[0].summary
    assert not {"input-bound", "gpu-partly-idle", "python-overhead-per-step"} & set(ids)
    assert judge([busy(95)], RunFacts(wall_seconds=18.0, unattributed=True))[0].id == "gpu-busy"


def test_tracing_seconds_are_taken_only_as_a_finite_non_negative_number():
    assert tracing_seconds({"tracing_seconds": 1.25}) == 1.25
    for bad in (-1.0, float("nan"), "3", None, True):
        assert tracing_seconds({"tracing_seconds": bad}) is None


def test_a_custom_loops_program_verdict_separates_tracing_from_the_rest():
    facts = RunFacts(first_program_seconds=47.0, wall_seconds=17.0, jit_compile=True, tracing_seconds=2.5)
    (verdict, *_) = judge([busy(90)], facts)
    assert verdict.id == "first-program-compile" and "tf.function's tracing, 2.5 s" in verdict.detail
