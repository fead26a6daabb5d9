"""Run a suite in the benchmark worker and put every figure against the GPU's peak."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from tfgpu.knowledge.peaks import peak_for, peaks_for
from tfgpu.model.bench import BenchEntry, BenchmarkResult
from tfgpu.probe.runner import ProbeRunner, SubprocessProbeRunner


def bench_worker_path() -> str:
    """The file path of ``bench_worker.py``, run by path like the probe worker."""
    return str(resources.files("tfgpu.probe").joinpath("bench_worker.py"))


def bench_runner(python: str | None = None) -> SubprocessProbeRunner:
    """A ProbeRunner that runs the benchmark worker."""
    return SubprocessProbeRunner(python, worker=bench_worker_path())


def entry_name(spec: Mapping[str, Any]) -> str:
    """A stable name for a workload, the key of ``--compare``.

    Examples:
        >>> entry_name({"kind": "matmul", "n": 8192, "dtype": "float32", "tf32": False})
        'matmul float32 (tf32 off) 8192'
    """
    kind = spec["kind"]
    if kind == "matmul":
        tf32 = (
            " (tf32 on)"
            if spec["dtype"] == "float32" and spec.get("tf32", True)
            else (" (tf32 off)" if spec["dtype"] == "float32" else "")
        )
        where = " on CPU" if spec.get("device") == "cpu" else ""
        xla = " xla" if spec.get("xla") else ""
        return f"matmul {spec['dtype']}{tf32}{xla} {spec['n']}{where}"
    if kind == "copy":
        return f"copy {spec['direction']} {spec['megabytes']} MiB"
    if kind == "conv":
        return f"conv 3x3 {spec.get('dtype', 'float32')} {'fwd+bwd' if spec.get('backward') else 'fwd'} b{spec['batch']} {spec['size']}x{spec['size']}x{spec['channels']}"
    return f"{spec['model']} {spec.get('precision', 'float32')}{' xla' if spec.get('xla') else ''} b{spec['batch']}"


def run_benchmark(
    suite: str,
    specs: Sequence[Mapping[str, Any]],
    runner: ProbeRunner,
    *,
    gpu_name: str | None,
    environ: Mapping[str, str],
    timeout_seconds: float = 1800.0,
) -> BenchmarkResult:
    """All specs in one child (one TensorFlow start), every result against the datasheet peak.

    A failed child (crash, timeout) becomes failed entries carrying its reason.
    """
    peaks = peaks_for(gpu_name) if gpu_name else None
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tfgpu-bench-") as tmp:
        spec_path = os.path.join(tmp, "spec.json")
        with open(spec_path, "w", encoding="utf-8") as fh:
            json.dump(list(specs), fh)
        env = dict(environ)
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        run = runner.run("bench", timeout_seconds=timeout_seconds, env=env, args=("--spec", spec_path))
    results: list[dict[str, Any]]
    if run.status == "ok" and run.envelope and run.envelope.get("ok"):
        results = run.envelope["data"]["results"]
    else:
        reason = run.problem or ((run.envelope or {}).get("error") or {}).get("message") or run.status
        results = [{"spec": dict(s), "ok": False, "error": f"the benchmark child failed: {reason}"} for s in specs]
    entries = []
    for r in results:
        spec = r["spec"]
        on_gpu = str(r.get("device", "")).upper().startswith("/GPU")
        peak = (
            peak_for(peaks, spec["kind"], spec.get("dtype"), spec.get("tf32", True))
            if on_gpu and spec["kind"] in ("matmul", "copy", "conv")
            else None
        )
        if spec["kind"] == "copy" and spec["direction"] != "d2d":
            peak = None  # host links (PCIe/NVLink-C2C) are not in the datasheet table
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
                error=r.get("error"),
            )
        )
    return BenchmarkResult(
        suite, gpu_name, tuple(entries), peaks.source_url if peaks else None, time.monotonic() - start
    )


def compare(current: BenchmarkResult, previous: Mapping[str, Any]) -> dict[str, float]:
    """Ratio current/previous per entry name, for ``--compare old.json``."""
    old = {e["name"]: e.get("value") for e in previous.get("entries", []) if e.get("ok") and e.get("value")}
    return {e.name: e.value / old[e.name] for e in current.entries if e.ok and e.value and e.name in old}
