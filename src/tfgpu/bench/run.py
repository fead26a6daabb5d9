"""Run a suite in the benchmark worker and put every figure against the GPU's peak."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any

from tfgpu.bench.naming import entry_name
from tfgpu.bench.suites import suite
from tfgpu.knowledge.measured import best_measured, peer_measured
from tfgpu.knowledge.peaks import peak_for, peaks_for
from tfgpu.model.bench import BenchEntry, BenchmarkResult, BenchRun
from tfgpu.model.errors import NvmlUnavailable, UsageError
from tfgpu.model.untrusted import finite_number, text
from tfgpu.nvml.client import NvmlClient
from tfgpu.probe.jobs import fused_batchnorm_env, run_job
from tfgpu.probe.runner import ProbeRunner
from tfgpu.probe.tf_logs import summarize_error
from tfgpu.system.files import read_regular
from tfgpu.system.runner import CommandRunner
from tfgpu.xlacache.plan import plan_for_interpreter


def _child_env(spec: Mapping[str, Any]) -> dict[str, str]:
    """What the spec's child needs set at start: its ``env``, and the fused batch norm patch (process-wide)."""
    return {**(spec.get("env") or {}), **(fused_batchnorm_env() if spec.get("batchnorm") == "fused" else {})}


def _env_groups(specs: Sequence[Mapping[str, Any]]) -> list[tuple[dict[str, str], list[int]]]:
    """Spec indices by the environment their child needs (TensorFlow reads most settings once, at start)."""
    groups: dict[tuple[tuple[str, str], ...], list[int]] = {}
    for index, spec in enumerate(specs):
        groups.setdefault(tuple(sorted(_child_env(spec).items())), []).append(index)
    return [(dict(key), indices) for key, indices in groups.items()]


def _run_children(
    specs: Sequence[Mapping[str, Any]], runner: ProbeRunner, environ: Mapping[str, str], timeout_seconds: float
) -> list[dict[str, Any]]:
    """One child per distinct ``env`` of the specs; results in the order of the specs."""
    results: list[dict[str, Any]] = [{} for _ in specs]
    for extra_env, indices in _env_groups(specs):
        group = [dict(specs[i]) for i in indices]
        job = run_job(runner, "bench", group, environ=environ, timeout_seconds=timeout_seconds, extra_env=extra_env)
        answer = job.data.get("results") if job.ok and isinstance(job.data, dict) else None
        if isinstance(answer, list) and len(answer) == len(group):
            got = [_checked(spec, result) for spec, result in zip(group, answer, strict=True)]
        else:
            reason = job.failure_reason if not job.ok else "it answered in a shape tfgpu does not know"
            got = [{"spec": s, "ok": False, "error": f"the benchmark child failed: {reason}"} for s in group]
        for index, result in zip(indices, got, strict=True):
            results[index] = result
    return results


_NUMBERS = ("value", "relative_error", "first_epoch_seconds")
_TEXTS = ("unit", "device", "error")


def _checked(spec: Mapping[str, Any], result: Any) -> dict[str, Any]:
    """One result of the child with our own spec and only well-typed fields: its answer is data, not trusted."""
    if not isinstance(result, dict):
        return {"spec": spec, "ok": False, "error": "the benchmark child answered in a shape tfgpu does not know"}
    out: dict[str, Any] = {"spec": spec, "ok": result.get("ok") is True}
    for name in _NUMBERS:
        if (value := finite_number(result.get(name))) is not None:
            out[name] = value
    for name in _TEXTS:
        if (value_text := text(result.get(name))) is not None:
            out[name] = value_text
    if out["ok"] and "value" not in out:
        out.update(ok=False, error=out.get("error") or "the benchmark child gave no figure")
    return out


def _relative(entry: BenchEntry, spec: Mapping[str, Any], values: Mapping[str, float]) -> BenchEntry:
    """The figures that compare an entry with another: GPU speedup (``speedup_of``), scaling (``scaling_of``)."""
    value = entry.value
    if not (entry.ok and value):
        return entry
    if spec.get("speedup_of") in values:
        entry = replace(entry, gpu_speedup=values[spec["speedup_of"]] / value)
    if spec.get("scaling_of") in values:
        entry = replace(entry, scaling_efficiency=value / (int(spec["replicas"]) * values[spec["scaling_of"]]))
    return entry


def _summary(error: str) -> str:
    """``Type: message`` with the message cut to the line that names the cause."""
    kind, sep, message = error.partition(": ")
    return f"{kind}: {summarize_error(message)}" if sep else summarize_error(error)


def _with_xla_cache(
    specs: Sequence[Mapping[str, Any]],
    environ: Mapping[str, str],
    python: str | None,
    nvml: NvmlClient | None,
    command_runner: CommandRunner | None,
) -> Mapping[str, str]:
    """The children's environment with tfgpu's XLA cache and its levers when a workload compiles with XLA.

    An XLA figure then measures what a user's run under ``tfgpu run`` gets: on an H200 ResNet-50's
    first XLA step took more than 16 minutes without the cache plan's lever and 38-43 s with it
    (docs/performance.md §8), and a second bench run loads the program instead of compiling it.
    """
    if command_runner is None or not any(spec.get("xla") for spec in specs):
        return environ
    plan = plan_for_interpreter(None, python=python, environ=environ, nvml=nvml, runner=command_runner)
    return {**environ, **dict(plan.variables)}


def bench_machine(
    suite_name: str,
    runner_for: Callable[[], ProbeRunner],
    nvml: NvmlClient,
    *,
    environ: Mapping[str, str],
    tiny: bool = False,
    compare_to: str | None = None,
    python: str | None = None,
    timeout_seconds: float = 1800.0,
    command_runner: CommandRunner | None = None,
    inform: Callable[[str], object] = lambda text: None,
    around: Callable[[str], AbstractContextManager[None]] = lambda step: contextlib.nullcontext(),
) -> BenchRun:
    """``tfgpu bench``'s one call: the suite sized for the GPUs NVML shows (CPU-sized without one), run and compared.

    The worker runner is made (``runner_for``) only once the saved run compares; ``inform`` hears what
    the user should know before the run; ``around`` wraps the run (a spinner).

    Raises:
        UsageError: the saved run to compare with cannot be read (before anything runs).
    """
    previous = load_previous(compare_to) if compare_to else None
    try:
        gpus = nvml.device_count()
        gpu_name: str | None = nvml.name(0) if gpus else None
    except NvmlUnavailable:
        gpus, gpu_name = 0, None
    specs = suite(suite_name, tiny=tiny or gpu_name is None, gpus=gpus)
    if suite_name == "scaling" and gpu_name is not None and gpus < 2:
        inform("one GPU, nothing to scale across: only the one-replica figures are measured")
    with around(f"Running {len(specs)} workloads in a TensorFlow child"):
        result = run_benchmark(
            suite_name,
            specs,
            runner_for(),
            gpu_name=gpu_name,
            environ=environ,
            timeout_seconds=timeout_seconds,
            python=python or sys.executable,
            nvml=nvml,
            command_runner=command_runner,
        )
    return BenchRun(result, compare(result, previous) if previous is not None else None)


def run_benchmark(
    suite: str,
    specs: Sequence[Mapping[str, Any]],
    runner: ProbeRunner,
    *,
    gpu_name: str | None,
    environ: Mapping[str, str],
    timeout_seconds: float = 1800.0,
    python: str | None = None,
    nvml: NvmlClient | None = None,
    command_runner: CommandRunner | None = None,
) -> BenchmarkResult:
    """The specs in as few children as their ``env`` allows, every result against the datasheet peak.

    A failed child (crash, timeout) becomes failed entries carrying its reason. A spec with
    ``speedup_of`` (the name of another entry: the GPU run of a CPU workload) gets that entry's
    value over its own; one with ``scaling_of`` (its one-replica run) its scaling efficiency.
    A model on one GPU gets the fastest other framework's recorded rate on this GPU model, if any.
    With ``command_runner`` (to check its flags against ``python``'s TensorFlow), XLA workloads
    use tfgpu's XLA cache as ``tfgpu run`` would.
    """
    peaks = peaks_for(gpu_name) if gpu_name else None
    start = time.monotonic()
    environ = _with_xla_cache(specs, environ, python, nvml, command_runner)
    entries = []
    for r in _run_children(specs, runner, environ, timeout_seconds):
        spec = r["spec"]
        on_gpu = str(r.get("device", "")).upper().startswith("/GPU")
        peak = (
            peak_for(peaks, spec["kind"], spec.get("dtype"), spec.get("tf32", True))
            if on_gpu and spec["kind"] in ("matmul", "copy", "conv")
            else None
        )
        if spec["kind"] == "copy" and spec["direction"] != "d2d":
            peak = None  # host links (PCIe/NVLink-C2C) are not in the datasheet table
        peer = (
            peer_measured(gpu_name, spec["model"], spec.get("precision", "float32"), int(spec["batch"]))
            if on_gpu and spec["kind"] == "model" and int(spec.get("replicas", 1)) == 1
            else None
        )
        entries.append(
            BenchEntry(
                name=entry_name(spec),
                kind=spec["kind"],
                ok=bool(r.get("ok")),
                value=r.get("value"),
                unit=r.get("unit", ""),
                peak=peak,
                device=str(r.get("device", "")),
                relative_error=r.get("relative_error"),
                error=_summary(r["error"]) if r.get("error") else None,
                first_epoch_seconds=r.get("first_epoch_seconds"),
                best_measured=best_measured(gpu_name, entry_name(spec)) if on_gpu else None,
                peer=peer.value if peer else None,
                peer_framework=peer.framework if peer else None,
            )
        )
    values = {e.name: e.value for e in entries if e.ok and e.value}
    entries = [_relative(e, spec, values) for e, spec in zip(entries, specs, strict=True)]
    return BenchmarkResult(
        suite, gpu_name, tuple(entries), peaks.source_url if peaks else None, time.monotonic() - start
    )


MAX_PREVIOUS_BYTES = 16 << 20


def previous_figures(document: Any) -> dict[str, float]:
    """The figures of a saved ``bench --json`` document, per entry name; entries without one are left out.

    Raises:
        UsageError: it is not such a document (checked before the suite runs, not after).
    """
    entries = document.get("entries") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise UsageError("not a tfgpu bench --json document: no list of entries")
    figures = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or entry.get("ok") is not True:
            continue
        value = finite_number(entry.get("value"))
        if value is not None and value > 0:
            figures[entry["name"]] = value
    return figures


def load_previous(path: str) -> dict[str, float]:
    """``previous_figures`` of the file at ``path``, read within MAX_PREVIOUS_BYTES (regular files only).

    Raises:
        UsageError: unreadable, too large, not JSON or not a bench document.
    """
    try:
        document = json.loads(read_regular(path, MAX_PREVIOUS_BYTES).decode("utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"cannot read {path}: not JSON ({exc})") from None
    try:
        return previous_figures(document)
    except UsageError as exc:
        raise UsageError(f"cannot compare with {path}: {exc}") from None


def compare(current: BenchmarkResult, previous: Mapping[str, float]) -> dict[str, float]:
    """Ratio current/previous per entry name, for ``--compare old.json``."""
    return {e.name: e.value / previous[e.name] for e in current.entries if e.ok and e.value and e.name in previous}
