"""Pure analysis of a burn: worker intervals + NVML stats → PASS/FAIL and findings per GPU."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfgpu.model.findings import Severity
from tfgpu.model.samples import SampleStats, Verdict
from tfgpu.model.stress import GpuBurn
from tfgpu.monitor.verdict import hardware_errors, thermal_throttling

DEGRADED_FRACTION = 0.9
MIN_TREND_INTERVALS = 30
"""A falling rate is judged from 10 intervals (seconds) per third at least: over a few seconds a
shared host's noise alone moved a CPU burn by 15% (0.0275 -> 0.0235 TFLOP/s in 6 s, 2-core
development machine), and throttling builds over minutes."""


NO_TENSORFLOW = "No module named 'tensorflow'"
BURN_NO_TENSORFLOW = "burn-no-tensorflow"
"""The burn could not start: its worker found no TensorFlow. A fault of the environment, not of a GPU."""


def _third(values: Sequence[float], which: int) -> float | None:
    if len(values) < MIN_TREND_INTERVALS:
        return None
    size = len(values) // 3
    chunk = values[:size] if which == 0 else values[-size:]
    return sum(chunk) / len(chunk)


def analyze(
    index: int,
    name: str,
    result: dict[str, Any],
    intervals: Sequence[dict[str, Any]],
    stats: SampleStats | None,
    temp_limit: float,
) -> GpuBurn:
    """The verdict of one GPU's burn.

    Fails on: result mismatches, the worker failing, Xid events, new uncorrected ECC errors,
    reaching the temperature limit. Warns on thermal slowdown and on throughput falling below
    90 % of its start.
    """
    findings: list[Verdict] = []
    device = "the CPU" if index < 0 else f"GPU {index}"  # index -1: the CPU burn of a machine without a GPU
    if not result.get("ok"):
        error = str(result.get("error"))
        if NO_TENSORFLOW in error:  # the tool's environment, not the device: said as such (issue 23)
            findings.append(
                Verdict(
                    BURN_NO_TENSORFLOW,
                    Severity.ERROR,
                    "TensorFlow is not installed in the Python that runs the burn",
                    error,
                    (
                        "install TensorFlow there (pip install 'tensorflow[and-cuda]'), or run tfgpu from the Python that has it",
                    ),
                )
            )
        else:
            findings.append(Verdict("burn-failed", Severity.ERROR, f"The burn on {device} failed", error, ()))
    mismatches = int(result.get("mismatches", 0))
    if mismatches:
        findings.append(
            Verdict(
                "result-mismatch",
                Severity.ERROR,
                f"{device} computed {mismatches} product(s) that differ from the first",
                "The same matmul on the same inputs must give the same bits: this is silent data corruption.",
                ("rerun; if it repeats, the GPU is faulty (check ECC and Xid, and its cooling)",),
            )
        )
    rates = [float(i["tflops"]) for i in intervals if "tflops" in i]
    first, last = _third(rates, 0), _third(rates, 2)
    if first and last and last < DEGRADED_FRACTION * first:
        findings.append(
            Verdict(
                "tflops-degrading",
                Severity.WARNING,
                f"{device} slowed from {first:.3g} to {last:.3g} TFLOP/s during the run",
                "Sustained throughput fell by more than 10 %: heat or power limits"
                + (", or other work on the machine." if index < 0 else "."),
                ("watch clocks and temperature: tfgpu monitor",),
            )
        )
    max_temp = None
    if stats is not None:
        max_temp = stats.get("temperature_celsius").max
        thermal = thermal_throttling(stats)
        if thermal:
            findings.append(thermal)
        if stats.throttle("sw_power_cap") > 0.5:
            findings.append(
                Verdict(
                    "gpu-power-capped",
                    Severity.INFO,
                    f"GPU {index} ran at its power limit in {stats.throttle('sw_power_cap'):.0%} of the samples",
                    "Expected under full load.",
                    (),
                )
            )
        findings.extend(hardware_errors(stats))
        if max_temp is not None and max_temp >= temp_limit:
            findings.append(
                Verdict(
                    "temperature-limit-reached",
                    Severity.ERROR,
                    f"GPU {index} reached {max_temp:.0f} °C (limit {temp_limit:.0f} °C): stopped",
                    "",
                    ("improve cooling before long runs",),
                )
            )
    passed = not any(f.severity is Severity.ERROR for f in findings)
    return GpuBurn(
        index=index,
        name=name,
        passed=passed,
        seconds=float(result.get("seconds") or 0.0),
        mean_tflops=result.get("value"),
        first_tflops=first,
        last_tflops=last,
        iterations=int(result.get("iterations", 0)),
        mismatches=mismatches,
        stopped_early=bool(result.get("stopped_early")),
        max_temperature_celsius=max_temp,
        findings=tuple(findings),
        error=None if result.get("ok") else str(result.get("error")),
    )
