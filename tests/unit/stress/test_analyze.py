"""Burn analysis on synthetic intervals, planted mismatches and NVML stats."""

from __future__ import annotations

from tfgpu.model.samples import MetricStats, SampleStats
from tfgpu.stress.analyze import analyze

OK = {"ok": True, "value": 700.0, "seconds": 120.0, "iterations": 5000, "mismatches": 0}
STEADY = [{"tflops": 700.0}] * 30


def stats(temp_max=70.0, throttle=(), xids=(), ecc=0.0) -> SampleStats:
    temp = MetricStats(65.0, 40.0, temp_max, temp_max, 100)
    return SampleStats(
        0, 100, 120.0, (("temperature_celsius", temp),), tuple(throttle), 0.0, 150e9, 1980.0, False, ecc, tuple(xids)
    )


def ids(burn):
    return [f.id for f in burn.findings]


def test_steady_clean_run_passes_with_the_power_cap_as_info():
    burn = analyze(0, "NVIDIA H200", OK, STEADY, stats(throttle=(("sw_power_cap", 0.9),)), 85)
    assert burn.passed and ids(burn) == ["gpu-power-capped"] and burn.first_tflops == burn.last_tflops == 700.0


def test_planted_mismatch_fails():
    burn = analyze(0, "GPU", {**OK, "mismatches": 3}, STEADY, stats(), 85)
    assert not burn.passed and "result-mismatch" in ids(burn)


def test_degrading_throughput_and_heat_are_warnings_and_the_limit_fails():
    falling = [{"tflops": 700.0}] * 10 + [{"tflops": 650.0}] * 10 + [{"tflops": 500.0}] * 10
    burn = analyze(0, "GPU", OK, falling, stats(temp_max=86.0, throttle=(("hw_thermal_slowdown", 0.3),)), 85)
    assert {"tflops-degrading", "gpu-thermal-throttling", "temperature-limit-reached"} <= set(ids(burn))
    assert not burn.passed


def test_xid_ecc_and_a_failed_worker_fail():
    assert not analyze(0, "GPU", OK, STEADY, stats(xids=(79,)), 85).passed
    assert not analyze(0, "GPU", OK, STEADY, stats(ecc=1.0), 85).passed
    failed = analyze(0, "GPU", {"ok": False, "error": "OOM"}, [], None, 85)
    assert not failed.passed and failed.error == "OOM"


def test_burn_and_the_training_verdict_report_heat_from_the_same_share():
    from tfgpu.monitor.verdict import RunFacts, judge

    mild, slight = stats(throttle=(("hw_thermal_slowdown", 0.07),)), stats(throttle=(("hw_thermal_slowdown", 0.04),))
    assert "gpu-thermal-throttling" in ids(analyze(0, "GPU", OK, STEADY, mild, 85))
    assert "gpu-thermal-throttling" in [v.id for v in judge([mild], RunFacts())]
    assert "gpu-thermal-throttling" not in ids(analyze(0, "GPU", OK, STEADY, slight, 85))
    assert "gpu-thermal-throttling" not in [v.id for v in judge([slight], RunFacts())]


def test_a_short_burn_is_not_judged_for_a_falling_rate():
    """Six seconds on a shared 2-core machine moved a CPU burn by 15%: noise, not throttling."""
    noisy = [{"tflops": 0.0275}] * 2 + [{"tflops": 0.026}] * 2 + [{"tflops": 0.0235}] * 2
    assert "tflops-degrading" not in ids(analyze(-1, "CPU", OK, noisy, None, 85))
