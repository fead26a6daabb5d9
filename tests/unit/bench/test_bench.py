"""Suites, names, peaks, comparison and result shaping (the worker's envelope recorded on tensorflow-cpu)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tfgpu.bench.run import compare, entry_name, run_benchmark
from tfgpu.bench.suites import SUITE_NAMES, suite
from tfgpu.knowledge.peaks import peak_for, peaks_for
from tfgpu.probe.runner import ProbeRun

RECORDED = Path(__file__).parents[2] / "fixtures" / "bench" / "cpu-tensorflow-cpu-2.21.json"


class RecordedBench:
    def __init__(self, envelope=None, status="ok"):
        self.envelope, self.status = envelope, status

    def run(self, task, *, timeout_seconds=0, env=None, args=()):
        return ProbeRun(
            self.status,
            "python3",
            1.0,
            timeout_seconds,
            self.envelope,
            "",
            0 if self.status == "ok" else -11,
            problem="killed by SIGSEGV",
        )


@pytest.mark.parametrize("name", SUITE_NAMES)
def test_every_suite_has_named_workloads_in_both_sizes(name):
    for tiny in (True, False):
        specs = suite(name, tiny=tiny)
        assert specs and len({entry_name(s) for s in specs}) == len(specs)


def test_gpu_sizes_fill_the_gpu_and_include_the_cpu_reference():
    specs = suite("matmul", tiny=False)
    assert {s["n"] for s in specs if s.get("device") != "cpu"} == {8192}
    assert any(s.get("device") == "cpu" for s in specs)


def test_peaks_for_the_h200_and_tf32_rule():
    peaks = peaks_for("NVIDIA H200")
    assert peak_for(peaks, "matmul", "bfloat16") == 989.5 and peak_for(peaks, "matmul", "float32", tf32=False) == 67
    assert peak_for(peaks, "matmul", "float32", tf32=True) == 494.7 and peak_for(peaks, "copy", None) == 4800
    assert peaks_for("Some Unknown GPU") is None


def test_results_are_shaped_from_the_recorded_envelope_and_compared():
    envelope = json.loads(RECORDED.read_text())
    specs = [r["spec"] for r in envelope["data"]["results"]]
    result = run_benchmark("quick", specs, RecordedBench(envelope), gpu_name=None, environ={})
    assert all(e.ok for e in result.entries) and result.entries[0].unit == "TFLOP/s"
    assert result.entries[0].relative_error < 1e-5 and result.entries[0].peak is None  # on the CPU: no peak
    previous = {"entries": [{"name": result.entries[0].name, "ok": True, "value": result.entries[0].value / 2}]}
    assert compare(result, previous) == {result.entries[0].name: pytest.approx(2.0)}


def test_a_crashed_child_gives_failed_entries_with_the_reason():
    result = run_benchmark(
        "quick", suite("quick", tiny=True), RecordedBench(None, "crashed"), gpu_name="NVIDIA H200", environ={}
    )
    assert not any(e.ok for e in result.entries) and "SIGSEGV" in result.entries[0].error
