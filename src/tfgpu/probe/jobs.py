"""One way to run a TensorFlow child for a job (a bench suite, a burn, a tune trial) and read its answer.

bench, burn and tune each wrote a spec file, ran a worker, and turned the envelope into a reason
of their own ("timed_out" here, "timeout" there; the error message kept by one, dropped by
another; TF_CPP_MIN_LOG_LEVEL forced by one, overridable in another). ``run_job`` does it once:
the spec goes to a temporary JSON file, the child runs with TF's INFO and WARNING lines off
unless the caller's environment sets them, and the result has a typed status and one
``failure_reason`` written the same way for every job. ``WarmJob`` is the streaming variant:
many specs answered by one child, a new child only when the last one died or hung.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from importlib import resources
from typing import Any

from tfgpu.model.untrusted import text
from tfgpu.probe.runner import ProbeRun, ProbeRunner, RunStatus, ServingRunner, WorkerSession
from tfgpu.probe.tf_logs import summarize_error


class JobStatus(str, Enum):
    """How a job ended: the child's RunStatus, or ``failed`` when it answered with an error."""

    OK = "ok"
    FAILED = "failed"
    TIMED_OUT = "timed_out"
    CRASHED = "crashed"
    PROTOCOL_ERROR = "protocol_error"


MAX_REASON_CHARS = 300
FUSED_BATCHNORM_ENV = "TFGPU_FUSED_BATCHNORM"
"""Names tfgpu's fused-BatchNormalization patch (configure/batchnorm.py) for a worker child, which
loads it by path (workers never import tfgpu); the patch is process-wide, so it is an environment
setting: such trials and workloads get a child of their own."""


def fused_batchnorm_env() -> dict[str, str]:
    """The environment that makes a bench or tune worker route Keras 3's BatchNormalization through cuDNN's fused kernel."""
    return {FUSED_BATCHNORM_ENV: str(resources.files("tfgpu.configure").joinpath("batchnorm.py"))}


@dataclass(frozen=True)
class JobResult:
    """What a job's child gave: ``data`` when ``status`` is ok, else ``failure_reason``."""

    status: JobStatus
    data: dict[str, Any] = field(default_factory=dict)
    failure_reason: str = ""

    @property
    def ok(self) -> bool:
        """The child answered and the task succeeded."""
        return self.status is JobStatus.OK


def job_environment(environ: Mapping[str, str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The child's environment: TF's log quiet unless the caller chose a level, then the job's own variables."""
    env = {"TF_CPP_MIN_LOG_LEVEL": "2", **environ}
    env.update(extra or {})
    return env


def job_result(run: ProbeRun) -> JobResult:
    """The typed result of one child run, with the reason written the same way for every job."""
    if run.status is RunStatus.TIMED_OUT:
        return JobResult(
            JobStatus.TIMED_OUT, failure_reason=run.problem or f"no answer within {run.timeout_seconds:.0f} s"
        )
    if run.status is not RunStatus.OK or run.envelope is None:
        how = f" (signal {run.signal})" if run.signal else ""
        status = JobStatus.CRASHED if run.status is RunStatus.CRASHED else JobStatus.PROTOCOL_ERROR
        return JobResult(status, failure_reason=f"{run.problem or run.status.value}{how}")
    if not run.envelope.get("ok"):
        error = run.envelope.get("error")
        error = error if isinstance(error, dict) else {"message": str(error or "")}
        message = summarize_error(str(error.get("message", "")))[:MAX_REASON_CHARS]
        return JobResult(JobStatus.FAILED, failure_reason=f"{text(error.get('type')) or 'error'}: {message}")
    data = run.envelope.get("data") or {}
    if not isinstance(data, dict):  # the child's answer is data, not trusted: a list here was an internal error
        return JobResult(JobStatus.PROTOCOL_ERROR, failure_reason="the child answered in a shape tfgpu does not know")
    return JobResult(JobStatus.OK, data=dict(data))


def run_job(
    runner: ProbeRunner,
    task: str,
    spec: Any,
    *,
    environ: Mapping[str, str],
    timeout_seconds: float,
    spec_flag: str = "--spec",
    args: Sequence[str] = (),
    extra_env: Mapping[str, str] | None = None,
) -> JobResult:
    """Write ``spec`` as JSON, run ``task`` with ``spec_flag PATH`` (after ``args``), and type the answer."""
    with tempfile.TemporaryDirectory(prefix=f"tfgpu-{task}-") as tmp:
        path = os.path.join(tmp, "spec.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(spec, fh)
        run = runner.run(
            task,
            timeout_seconds=timeout_seconds,
            env=job_environment(environ, extra_env),
            args=(*args, spec_flag, path),
        )
    return job_result(run)


class WarmJob:
    """Specs answered one after another by one child of ``task`` (its ``--serve`` mode).

    A timeout or a crash costs that spec and the child (``starts`` counts the children): the
    next spec starts a fresh one. ``restart()`` ends the child on purpose, when a result (an
    out-of-memory error, say) may have left it in a state the next spec should not inherit.
    """

    def __init__(
        self,
        runner: ServingRunner,
        task: str,
        *,
        environ: Mapping[str, str],
        args: Sequence[str] = (),
        extra_env: Mapping[str, str] | None = None,
    ) -> None:
        self.runner, self.task, self.args = runner, task, tuple(args)
        self.env = job_environment(environ, extra_env)
        self.starts = 0
        self._session: WorkerSession | None = None

    def submit(self, spec: Any, timeout_seconds: float) -> JobResult:
        """One spec, in the running child or a new one; the timeout includes starting it."""
        if self._session is None or not self._session.alive:
            self.restart()
            try:
                self._session = self.runner.serve(self.task, env=self.env, args=self.args)
            except OSError as exc:
                return JobResult(JobStatus.CRASHED, failure_reason=f"cannot start the worker: {exc}")
            self.starts += 1
        return job_result(self._session.request(spec, timeout_seconds))

    def restart(self) -> None:
        """End the child; the next spec starts another."""
        if self._session is not None:
            self._session.close()
            self._session = None

    def __enter__(self) -> WarmJob:
        return self

    def __exit__(self, *exc: object) -> None:
        self.restart()
