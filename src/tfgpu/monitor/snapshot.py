"""Take one reading of every GPU and judge it, for a Slurm prolog or a Kubernetes readiness probe.

The rules are the ones `tfgpu burn` and the training verdict use (monitor/verdict.py), applied to a
single reading: a GPU that stopped answering or reports uncorrected ECC errors has failed (its
results cannot be trusted); one slowed for heat or a hardware reason, or at its slowdown
temperature, is degraded. The node is as healthy as its worst GPU.
"""

from __future__ import annotations

from tfgpu.model.errors import NvmlUnavailable
from tfgpu.model.samples import THERMAL_REASONS, THROTTLE_REASON_WORDS, GpuSample
from tfgpu.model.snapshot import GpuSnapshot, Health, Snapshot
from tfgpu.monitor.sampler import Sampler
from tfgpu.nvml.client import NvmlClient
from tfgpu.nvml.collect import identity


def judge_sample(sample: GpuSample, slowdown_celsius: float | None) -> tuple[Health, tuple[str, ...]]:
    """The health one reading shows, with the reasons in words."""
    failed, degraded = [], []
    if sample.lost:
        failed.append("the GPU stopped answering (fell off the bus)")
    if sample.ecc_uncorrected_errors:
        failed.append(f"{sample.ecc_uncorrected_errors:.0f} uncorrected ECC error(s) since the driver loaded")
    if sample.xid_events:
        failed.append(f"Xid error(s) {', '.join(map(str, sorted(set(sample.xid_events))))}")
    slowed = [THROTTLE_REASON_WORDS.get(r, r) for r in sample.throttle_reasons if r in THERMAL_REASONS]
    if slowed:
        degraded.append(f"clocks slowed: {', '.join(slowed)}")
    if slowdown_celsius and sample.temperature_celsius is not None and sample.temperature_celsius >= slowdown_celsius:
        degraded.append(f"at {sample.temperature_celsius:.0f} °C, its slowdown temperature ({slowdown_celsius:.0f} °C)")
    if failed:
        return Health.FAILED, tuple(failed + degraded)
    return (Health.DEGRADED, tuple(degraded)) if degraded else (Health.HEALTHY, ())


def take_snapshot(nvml: NvmlClient, hostname: str) -> Snapshot:
    """Read every GPU once; without NVML the node has failed and ``error`` says why."""
    try:
        count = nvml.device_count()
    except NvmlUnavailable as exc:
        return Snapshot(hostname, Health.FAILED, (), f"NVML cannot be used: {exc.reason}")
    samples = Sampler(nvml, list(range(count)), 1.0).sample_once() if count else []
    gpus = []
    for sample in samples:
        i = sample.index
        try:
            slowdown: float | None = nvml.slowdown_temperature_celsius(i)
        except NvmlUnavailable:
            slowdown = None
        health, reasons = judge_sample(sample, slowdown)
        gpus.append(GpuSnapshot(i, *identity(nvml, i), health, reasons, sample))
    worst = max((g.health for g in gpus), key=lambda h: h.rank, default=Health.HEALTHY)
    return Snapshot(hostname, worst, tuple(gpus))
