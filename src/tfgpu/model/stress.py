"""Stress-test results."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

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


class BurnOutcome(str, Enum):
    """How ``tfgpu burn`` ended, for its exit status."""

    PASSED = "passed"
    FAILED = "failed"
    """A device gave wrong results, slowed down or stopped."""
    NOT_RUN = "not_run"
    """Nothing was burned: the environment has no TensorFlow (the tool's environment failed, not a device)."""
