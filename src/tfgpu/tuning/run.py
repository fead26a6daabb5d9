"""Run tuning trials in a warm TensorFlow child, a new one only when a trial needs or breaks it.

Importing TensorFlow and initialising the GPU cost ~13 s a process on the H200, and a fresh
child per trial spent most of a 5-minute budget on that. Now one child runs trial after trial
(a new model each time). A new child starts when a trial needs settings read only at process
start (the allocator: ``TF_GPU_ALLOCATOR``) or applied to the whole process (the fused
BatchNormalization patch), and after a trial that timed out, crashed or ran out
of memory: a CUDA error or a fragmented allocator must not decide the next trial.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

from tfgpu.model.errors import NvmlUnavailable
from tfgpu.model.tune import Trial, TrialConfig, TrialOutcome
from tfgpu.model.untrusted import finite_number, text
from tfgpu.monitor.sampler import Sampler
from tfgpu.nvml.client import NvmlClient
from tfgpu.probe.jobs import JobStatus, WarmJob, fused_batchnorm_env
from tfgpu.probe.runner import ServingRunner
from tfgpu.system.runner import CommandRunner
from tfgpu.xlacache.plan import plan_for_interpreter


def process_settings(config: TrialConfig) -> dict[str, str]:
    """The environment a trial's child needs: what is read once, at start (the allocator), or patched process-wide."""
    env = {}
    if config.allocator == "cuda_malloc_async":
        env["TF_GPU_ALLOCATOR"] = "cuda_malloc_async"
    if config.batchnorm == "fused":
        env.update(fused_batchnorm_env())
    return env


class TrialRunner:
    """Measures one configuration of the user's script, sampling GPU utilization meanwhile.

    Use it as a context manager (or call ``close()``): the warm child lives until then.
    """

    def __init__(
        self,
        script: str,
        runner: ServingRunner,
        nvml: NvmlClient | None,
        environ: Mapping[str, str],
        timeout_seconds: float = 900.0,
        command_runner: CommandRunner | None = None,
    ) -> None:
        self.script = os.path.abspath(script)
        self.runner = runner
        self.nvml = nvml
        self.environ = dict(environ)
        self.cache = (
            plan_for_interpreter(None, python=runner.python, environ=environ, nvml=nvml, runner=command_runner)
            if command_runner is not None
            else None
        )
        """The XLA cache the trials use (as `tfgpu run` would), so an XLA trial measures what the user's next
        run pays, not the whole compile again; None without a runner to check its flags with."""
        self.environ.update(dict(self.cache.variables) if self.cache else {})
        self.timeout_seconds = timeout_seconds
        self.processes = 0
        """TensorFlow children started so far (the first, one per change of settings, one per restart)."""
        self._job: WarmJob | None = None
        self._settings: dict[str, str] | None = None

    def __call__(self, step: str, config: TrialConfig, timeout_seconds: float | None = None) -> Trial:
        """One trial, given at most ``timeout_seconds`` (the search's budget left); any failure of the child is an outcome."""
        timeout = self.timeout_seconds if timeout_seconds is None else min(self.timeout_seconds, timeout_seconds)
        job = self._job_for(process_settings(config))
        sampler = self._sampler()
        if sampler:
            sampler.start()
        starts = job.starts
        try:
            result = job.submit(dataclasses.asdict(config), timeout)
        finally:
            if sampler:
                sampler.stop()
        self.processes += job.starts - starts
        if result.status is JobStatus.TIMED_OUT:
            return Trial(step, config, TrialOutcome.TIMEOUT, reason=result.failure_reason)
        if not result.ok:
            return Trial(step, config, TrialOutcome.ERROR, reason=result.failure_reason)
        data = result.data
        if not isinstance(data, dict):
            job.restart()
            return Trial(
                step, config, TrialOutcome.ERROR, reason="the trial child answered in a shape tfgpu does not know"
            )
        if data.get("outcome") == "oom":
            job.restart()
            return Trial(step, config, TrialOutcome.OOM, reason=text(data.get("message")) or "out of memory")
        rate = finite_number(data.get("samples_per_second"))
        if rate is None or rate <= 0:
            job.restart()
            return Trial(
                step, config, TrialOutcome.ERROR, reason="the trial gave no rate (its result is missing or malformed)"
            )
        peak, total = finite_number(data.get("memory_peak_bytes")), self._memory_total()
        layers = finite_number(data.get("batchnorm_layers"))
        return Trial(
            step,
            config,
            TrialOutcome.OK,
            rate,
            finite_number(data.get("loss")),
            _utilization(sampler, data.get("timed_window")),
            warmup_seconds=finite_number(data.get("warmup_seconds")),
            memory_peak_fraction=peak / total if peak and total else None,
            data=text(data.get("data")),
            spread=finite_number(data.get("spread")),
            batchnorm_layers=int(layers) if layers is not None else None,
        )

    def _job_for(self, settings: dict[str, str]) -> WarmJob:
        """The warm child for these start-time settings; one child at a time, since each holds GPU memory."""
        if self._job is None or settings != self._settings:
            self.close()
            self._job = WarmJob(
                self.runner, "trial", environ=self.environ, args=("--script", self.script), extra_env=settings
            )
            self._settings = settings
        return self._job

    def close(self) -> None:
        """End the warm child."""
        if self._job is not None:
            self._job.restart()
            self._job = None

    def __enter__(self) -> TrialRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
    """Mean utilization over the child's timed steps (the child reports them on the same monotonic clock)."""
    ends = [finite_number(v) for v in window] if isinstance(window, list) and len(window) == 2 else []
    if sampler is None or len(ends) != 2 or None in ends:
        return None
    since, until = ends
    stats = sampler.stats(since=since, until=until)
    return stats[0].get("utilization_percent").mean if stats else None
