"""Run tuning trials in TensorFlow children (one per trial, so an OOM or a hang costs one trial)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from importlib import resources

from tfgpu.model.tune import Trial, TrialConfig
from tfgpu.monitor.sampler import Sampler
from tfgpu.nvml.client import NvmlClient
from tfgpu.nvml.errors import NvmlUnavailable
from tfgpu.probe.jobs import run_job
from tfgpu.probe.runner import ProbeRunner, SubprocessProbeRunner


def tune_worker_path() -> str:
    """The file path of ``tune_worker.py``."""
    return str(resources.files("tfgpu.probe").joinpath("tune_worker.py"))


def tune_runner(python: str | None = None) -> SubprocessProbeRunner:
    """A ProbeRunner that runs the tune worker."""
    return SubprocessProbeRunner(python, worker=tune_worker_path())


class TrialRunner:
    """Measures one configuration of the user's script, sampling GPU utilization meanwhile."""

    def __init__(
        self,
        script: str,
        runner: ProbeRunner,
        nvml: NvmlClient | None,
        environ: Mapping[str, str],
        timeout_seconds: float = 900.0,
    ) -> None:
        self.script = os.path.abspath(script)
        self.runner = runner
        self.nvml = nvml
        self.environ = dict(environ)
        self.timeout_seconds = timeout_seconds

    def __call__(self, step: str, config: TrialConfig, timeout_seconds: float | None = None) -> Trial:
        """One trial, given at most ``timeout_seconds`` (the search's budget left); any failure of the child is an outcome."""
        timeout = self.timeout_seconds if timeout_seconds is None else min(self.timeout_seconds, timeout_seconds)
        extra = {"TF_GPU_ALLOCATOR": "cuda_malloc_async"} if config.allocator == "cuda_malloc_async" else {}
        sampler = self._sampler()
        if sampler:
            sampler.start()
        try:
            job = run_job(
                self.runner,
                "trial",
                dataclasses.asdict(config),
                environ=self.environ,
                timeout_seconds=timeout,
                spec_flag="--config",
                args=("--script", self.script),
                extra_env=extra,
            )
        finally:
            if sampler:
                sampler.stop()
        if job.status == "timed_out":
            return Trial(step, config, "timeout", reason=job.failure_reason)
        if not job.ok:
            return Trial(step, config, "error", reason=job.failure_reason)
        data = job.data
        if data.get("outcome") == "oom":
            return Trial(step, config, "oom", reason=data.get("message", "out of memory"))
        peak, total = data.get("memory_peak_bytes"), self._memory_total()
        return Trial(
            step,
            config,
            "ok",
            data.get("samples_per_second"),
            data.get("loss"),
            _utilization(sampler, data.get("timed_window")),
            warmup_seconds=data.get("warmup_seconds"),
            memory_peak_fraction=peak / total if peak and total else None,
            data=data.get("data"),
        )

    def _memory_total(self) -> int | None:
        if self.nvml is None:
            return None
        try:
            return self.nvml.memory_info(0).total_bytes
        except NvmlUnavailable:
            return None

    def _sampler(self) -> Sampler | None:
        if self.nvml is None:
            return None
        try:
            if self.nvml.device_count() == 0:
                return None
        except NvmlUnavailable:
            return None
        return Sampler(self.nvml, [0], 0.2)


def _utilization(sampler: Sampler | None, window: list[float] | None) -> float | None:
    """Mean utilization over the child's timed steps (the child reports them on the same monotonic clock).

    Without a window (an older worker), from the first busy sample on: the warm-up then counts,
    which for a ResNet-50 trial is most of the child's GPU time.
    """
    if sampler is None:
        return None
    since, until = (window[0], window[1]) if window else (sampler.first_busy(), None)
    stats = sampler.stats(since=since, until=until)
    return stats[0].get("utilization_percent").mean if stats else None
