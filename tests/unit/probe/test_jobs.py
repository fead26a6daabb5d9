"""run_job: one spec file, one environment rule and one failure reason for every TensorFlow child job."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tfgpu.probe.jobs import job_environment, job_result, run_job
from tfgpu.probe.runner import ProbeRun, RunStatus


@dataclass
class RecordingRunner:
    """Answers with a fixed ProbeRun and records what it was asked (the spec file is read while it exists)."""

    answer: ProbeRun
    calls: list[dict] = field(default_factory=list)

    def run(
        self,
        task: str,
        *,
        timeout_seconds: float = 180.0,
        env: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
    ) -> ProbeRun:
        spec = json.loads(Path(args[-1]).read_text(encoding="utf-8"))
        self.calls.append(
            {"task": task, "timeout": timeout_seconds, "env": dict(env or {}), "args": list(args), "spec": spec}
        )
        return self.answer


def probe_run(
    status: str, envelope: dict | None = None, problem: str | None = None, signal: int | None = None
) -> ProbeRun:
    return ProbeRun(RunStatus(status), "python3", 1.0, 30.0, envelope, "", None, signal, problem)


def test_every_outcome_has_one_typed_status_and_reason():
    assert job_result(probe_run("timed_out", problem="no answer within 30 s")).status == "timed_out"
    crashed = job_result(probe_run("crashed", problem="no output", signal=9))
    assert crashed.status == "crashed" and crashed.failure_reason == "no output (signal 9)"
    assert job_result(probe_run("protocol_error", problem="unreadable output")).status == "protocol_error"
    failed = job_result(
        probe_run(
            "ok",
            {
                "ok": False,
                "error": {"type": "InternalError", "message": "Graph execution error:\n\nOOM when allocating"},
            },
        )
    )
    assert failed.status == "failed" and failed.failure_reason == "InternalError: OOM when allocating"
    done = job_result(probe_run("ok", {"ok": True, "data": {"results": [1]}}))
    assert done.ok and done.data == {"results": [1]} and done.failure_reason == ""


def test_run_job_writes_the_spec_and_keeps_the_callers_log_level():
    runner = RecordingRunner(probe_run("ok", {"ok": True, "data": {}}))
    run_job(
        runner,
        "trial",
        {"batch_size": 64},
        environ={"A": "1"},
        timeout_seconds=5,
        spec_flag="--config",
        args=("--script", "s.py"),
    )
    (call,) = runner.calls
    assert call["args"][:3] == ["--script", "s.py", "--config"] and call["spec"] == {"batch_size": 64}
    assert call["env"] == {"A": "1", "TF_CPP_MIN_LOG_LEVEL": "2"} and call["timeout"] == 5
    assert job_environment({"TF_CPP_MIN_LOG_LEVEL": "0"}, {"B": "2"}) == {"TF_CPP_MIN_LOG_LEVEL": "0", "B": "2"}
