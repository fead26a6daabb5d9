"""Run the worker and shape what comes back into ``ProbeFacts``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfgpu.model.probe import OpCheck, ProbeFacts, ProbeGpu, TrainingCheck
from tfgpu.probe.runner import DEFAULT_TIMEOUT_SECONDS, ProbeRun, ProbeRunner
from tfgpu.probe.tf_logs import parse_log

TAIL_LINES = 40


def probe_environment(environ: Mapping[str, str], overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """The child's environment: the parent's, with every TF log line kept (INFO included)."""
    env = dict(environ)
    env["TF_CPP_MIN_LOG_LEVEL"] = "0"
    env.update(overrides or {})
    return env


def run_interpreter_probe(runner: ProbeRunner, environ: Mapping[str, str]) -> dict[str, Any] | None:
    """Version, prefix and sys.path of the interpreter the runner probes; None when it cannot run."""
    run = runner.run("interpreter", timeout_seconds=30, env=dict(environ))
    if run.status != "ok" or run.envelope is None:
        return None
    data = run.envelope.get("data", {}).get("interpreter")
    return data if isinstance(data, dict) else None


def run_tensorflow_probe(
    runner: ProbeRunner,
    environ: Mapping[str, str],
    *,
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
    checks: bool = True,
    training: bool = True,
) -> ProbeFacts:
    """Start TF in the child, list and exercise its GPUs, train a tiny model, and parse its log."""
    args = () if checks else ("--no-checks",)
    run = runner.run(
        "devices",
        timeout_seconds=timeout_seconds,
        env=probe_environment(environ),
        args=args if training else (*args, "--no-training"),
    )
    return shape(run)


def _tail(stderr: str) -> str:
    return "\n".join(stderr.splitlines()[-TAIL_LINES:])


def shape(run: ProbeRun) -> ProbeFacts:
    """ProbeFacts from one run, whatever its outcome."""
    events = parse_log(run.stderr)
    base: dict[str, Any] = {
        "python": run.python,
        "seconds": run.seconds,
        "timeout_seconds": run.timeout_seconds,
        "returncode": run.returncode,
        "signal": run.signal,
        "log_events": events,
        "stderr_tail": _tail(run.stderr),
    }
    if run.status != "ok" or run.envelope is None:
        return ProbeFacts(outcome=run.status, error_message=run.problem, **base)
    env = run.envelope
    data = env.get("data") or {}
    error = env.get("error") or {}
    if not env.get("ok"):
        missing = error.get("type") in ("ModuleNotFoundError",) and "tensorflow" in str(error.get("message", ""))
        outcome = "tensorflow_missing" if missing else ("import_failed" if "import_seconds" not in data else "failed")
        return ProbeFacts(outcome=outcome, error_type=error.get("type"), error_message=error.get("message"), **base)
    build = data.get("build") or {}
    training = data.get("training")
    return ProbeFacts(
        outcome="ok",
        tf_version=build.get("version"),
        import_seconds=data.get("import_seconds"),
        gpus=tuple(_gpu(g, p) for g, p in zip(data.get("gpus", []), data.get("per_gpu", []), strict=False)),
        training=tuple(_training(t) for t in training) if isinstance(training, list) else (),
        training_state="done" if isinstance(training, list) else ("died" if training == "started" else "not_run"),
        **base,
    )


def _training(entry: dict[str, Any]) -> TrainingCheck:
    jit = entry.get("jit_compile")
    return TrainingCheck(
        jit_compile="auto" if jit == "auto" else ("on" if jit is True else "off"),
        policy=str(entry.get("policy", "")),
        ok=bool(entry.get("ok")),
        jit_resolved=entry.get("jit_resolved"),
        first_epoch_seconds=entry.get("first_epoch_seconds"),
        warm_step_seconds=entry.get("warm_step_seconds"),
        error=entry.get("error"),
        timed_out=bool(entry.get("timed_out", False)),
    )


def _gpu(gpu: dict[str, Any], per: dict[str, Any]) -> ProbeGpu:
    memory = per.get("memory_after_first_op") or {}
    xla = per.get("xla") or {}
    return ProbeGpu(
        device=per.get("device", gpu.get("name", "")),
        name=gpu.get("device_name"),
        compute_capability=gpu.get("compute_capability"),
        first_op_seconds=per.get("first_op_seconds"),
        first_op_error=per.get("first_op_error"),
        memory_current_bytes=memory.get("current_bytes"),
        ops=tuple(
            OpCheck(o["op"], o["dtype"], o["device"], bool(o.get("ok")), o.get("relative_error"), o.get("error"))
            for o in per.get("ops", [])
        ),
        xla_ok=xla.get("ok"),
        xla_seconds=xla.get("seconds"),
        xla_error=xla.get("error"),
    )
