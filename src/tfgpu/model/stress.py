"""Stress-test results."""

from __future__ import annotations

from dataclasses import dataclass

from tfgpu.model.samples import Verdict


@dataclass(frozen=True)
class GpuBurn:
    """One GPU's run: throughput over time, result mismatches, and the verdicts on it."""

    index: int
    name: str
    passed: bool
    seconds: float
    mean_tflops: float | None
    first_tflops: float | None
    last_tflops: float | None
    iterations: int
    mismatches: int
    stopped_early: bool
    max_temperature_celsius: float | None
    findings: tuple[Verdict, ...]
    error: str | None = None
