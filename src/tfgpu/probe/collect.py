"""Run the worker and shape what comes back into ``ProbeFacts``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfgpu.knowledge.archs import mixed_policy_table
from tfgpu.model.probe import (
    PROBE_TIMEOUT_SECONDS,
    OpCheck,
    ProbeFacts,
    ProbeGpu,
    ProbeOutcome,
    TrainingCheck,
    TrainingState,
)
from tfgpu.model.untrusted import finite_number, text
from tfgpu.probe.runner import ProbeRun, ProbeRunner, RunStatus
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
    if run.status is not RunStatus.OK or run.envelope is None:
        return None
    data = run.envelope.get("data")
    answer = data.get("interpreter") if isinstance(data, dict) else None
    return answer if isinstance(answer, dict) else None


def run_tensorflow_probe(
    runner: ProbeRunner,
    environ: Mapping[str, str],
    *,
    timeout_seconds: float = PROBE_TIMEOUT_SECONDS,
    checks: bool = True,
    training: bool = True,
) -> ProbeFacts:
    """Start TF in the child, list and exercise its GPUs, train a tiny model, and parse its log.

    The model trains in float32 and in the mixed policy ``setup(precision="auto")`` picks for the
    GPU TensorFlow calls GPU:0 (knowledge/archs.py's table, applied in the child, which alone knows
    which GPU that is).
    """
    args: tuple[str, ...] = ("--mixed-policies", mixed_policy_table()) + (() if checks else ("--no-checks",))
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
    if run.status is not RunStatus.OK or run.envelope is None:
        return ProbeFacts(outcome=ProbeOutcome(run.status.value), error_message=run.problem, **base)
    try:
        return _shape_answer(run.envelope, base)
    except (AttributeError, TypeError, ValueError, KeyError) as exc:  # the child's answer is data, not trusted
        return ProbeFacts(
            outcome=ProbeOutcome.FAILED,
            error_type="UnexpectedAnswer",
            error_message=f"the probe child answered in a shape tfgpu does not know ({type(exc).__name__}: {exc})",
            **base,
        )


def _shape_answer(env: dict[str, Any], base: dict[str, Any]) -> ProbeFacts:
    """ProbeFacts from a child that answered; a field of the wrong type is left out, a wrong structure raises."""
    data = env.get("data") or {}
    error = env.get("error") or {}
    if not env.get("ok"):
        missing = error.get("type") in ("ModuleNotFoundError",) and "tensorflow" in str(error.get("message", ""))
        outcome = (
            ProbeOutcome.TENSORFLOW_MISSING
            if missing
            else (ProbeOutcome.IMPORT_FAILED if "import_seconds" not in data else ProbeOutcome.FAILED)
        )
        return ProbeFacts(
            outcome=outcome, error_type=text(error.get("type")), error_message=text(error.get("message")), **base
        )
    build = data.get("build") or {}
    training = data.get("training")
    return ProbeFacts(
        outcome=ProbeOutcome.OK,
        tf_version=text(build.get("version")),
        import_seconds=finite_number(data.get("import_seconds")),
        gpus=tuple(_gpu(g, p) for g, p in zip(data.get("gpus", []), data.get("per_gpu", []), strict=False)),
        training=tuple(_training(t) for t in training) if isinstance(training, list) else (),
        training_state=(
            TrainingState.DONE
            if isinstance(training, list)
            else (TrainingState.DIED if training == "started" else TrainingState.NOT_RUN)
        ),
        **base,
    )


def _training(entry: dict[str, Any]) -> TrainingCheck:
    jit = entry.get("jit_compile")
    return TrainingCheck(
        jit_compile="auto" if jit == "auto" else ("on" if jit is True else "off"),
        policy=str(entry.get("policy", "")),
        ok=bool(entry.get("ok")),
        jit_resolved=entry.get("jit_resolved") if isinstance(entry.get("jit_resolved"), bool) else None,
        first_epoch_seconds=finite_number(entry.get("first_epoch_seconds")),
        warm_step_seconds=finite_number(entry.get("warm_step_seconds")),
        error=text(entry.get("error")),
        timed_out=bool(entry.get("timed_out", False)),
    )


def _gpu(gpu: dict[str, Any], per: dict[str, Any]) -> ProbeGpu:
    memory = per.get("memory_after_first_op") or {}
    xla = per.get("xla") or {}
    ops = per.get("ops", [])
    return ProbeGpu(
        device=text(per.get("device")) or text(gpu.get("name")) or "",
        name=text(gpu.get("device_name")),
        compute_capability=text(gpu.get("compute_capability")),
        first_op_seconds=finite_number(per.get("first_op_seconds")),
        first_op_error=text(per.get("first_op_error")),
        memory_current_bytes=int(current)
        if (current := finite_number(memory.get("current_bytes"))) is not None
        else None,
        ops=tuple(
            OpCheck(
                str(o["op"]),
                str(o["dtype"]),
                str(o["device"]),
                o.get("ok") is True,
                finite_number(o.get("relative_error")),
                text(o.get("error")),
            )
            for o in (ops if isinstance(ops, list) else ())
        ),
        xla_ok=xla.get("ok") if isinstance(xla.get("ok"), bool) else None,
        xla_seconds=finite_number(xla.get("seconds")),
        xla_error=text(xla.get("error")),
    )
