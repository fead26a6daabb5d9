"""Run the burn on every selected GPU (one child each) while a sampler watches NVML and enforces the temperature limit."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from tfgpu.model.errors import NvmlUnavailable, UsageError
from tfgpu.model.samples import GpuSample
from tfgpu.model.stress import BurnOutcome, GpuBurn
from tfgpu.monitor.sampler import Sampler
from tfgpu.nvml.client import NvmlClient
from tfgpu.probe.jobs import run_job
from tfgpu.probe.runner import ProbeRunner
from tfgpu.stress.analyze import BURN_NO_TENSORFLOW, analyze


def burn_machine(
    minutes: float,
    gpus: Sequence[int] | None,
    runner_for: Callable[[], ProbeRunner],
    nvml: NvmlClient,
    environ: Mapping[str, str],
    *,
    tiny: bool = False,
    temp_limit: float = 85.0,
    inform: Callable[[str], object] = lambda text: None,
    around: Callable[[str], AbstractContextManager[None]] = lambda step: contextlib.nullcontext(),
) -> list[GpuBurn]:
    """``tfgpu burn``'s one call: the GPUs asked for (default all), sized for a GPU or, without one, the CPU.

    Like bench, a machine without an NVIDIA GPU burns the CPU with small checked products and says so
    through ``inform``; ``around`` wraps the burn (a spinner).

    Raises:
        UsageError: an index the machine does not have.
    """
    try:
        count = nvml.device_count()
        names = {i: nvml.name(i) for i in range(count)}
    except NvmlUnavailable as exc:
        inform(f"no NVIDIA GPU ({exc.reason}): burning the CPU with small products instead")
        count, names, tiny = 0, {}, True
    chosen = list(gpus) if gpus is not None else list(range(count))
    if any(g >= count for g in chosen):
        raise UsageError(f"--gpus {','.join(map(str, chosen))}: this machine has {count} GPU(s)")
    size, dtype = (256, "float32") if tiny else (8192, "bfloat16")
    what = f"{len(chosen)} GPU(s)" if chosen else "the CPU"
    limit = f" (temperature limit {temp_limit:g} °C)" if chosen else ""
    with around(f"Burning {what} for {minutes:g} min{limit}"):
        return run_stress(
            minutes * 60,
            chosen,
            names,
            runner_for,
            nvml if chosen else None,
            environ,
            temp_limit=temp_limit,
            n=size,
            dtype=dtype,
        )


def burn_outcome(burns: Sequence[GpuBurn]) -> BurnOutcome:
    """Passed when every device passed; not run when no device could start TensorFlow at all."""
    if burns and all(any(f.id == BURN_NO_TENSORFLOW for f in b.findings) for b in burns):
        return BurnOutcome.NOT_RUN
    return BurnOutcome.PASSED if all(b.passed for b in burns) else BurnOutcome.FAILED


def run_stress(
    seconds: float,
    gpus: Sequence[int],
    names: Mapping[int, str],
    runner_for: Callable[[], ProbeRunner],
    nvml: NvmlClient | None,
    environ: Mapping[str, str],
    *,
    temp_limit: float = 85.0,
    n: int = 8192,
    dtype: str = "bfloat16",
) -> list[GpuBurn]:
    """Burn each GPU for ``seconds``; stop all at once when any reaches ``temp_limit``.

    Ctrl-C (KeyboardInterrupt) stops the children (the probe runner kills them) and is re-raised.
    """
    with tempfile.TemporaryDirectory(prefix="tfgpu-burn-") as tmp:
        stop = os.path.join(tmp, "stop")

        def watch(sample: GpuSample) -> None:
            if sample.temperature_celsius is not None and sample.temperature_celsius >= temp_limit:
                Path(stop).touch()

        sampler = Sampler(nvml, list(gpus), 0.5, on_sample=watch) if nvml is not None and gpus else None
        results: dict[int, dict[str, Any]] = {}

        def one(index: int) -> None:
            progress = os.path.join(tmp, f"progress-{index}.jsonl")
            spec = [{"kind": "burn", "n": n, "dtype": dtype, "seconds": seconds, "progress": progress, "stop": stop}]
            job = run_job(
                runner_for(),
                "bench",
                spec,
                environ=environ,
                timeout_seconds=seconds + 300,
                extra_env={"CUDA_VISIBLE_DEVICES": str(index)} if gpus else None,
            )
            results[index] = job.data["results"][0] if job.ok else {"ok": False, "error": job.failure_reason}
            results[index]["intervals"] = (
                [json.loads(line) for line in Path(progress).read_text().splitlines()]
                if Path(progress).exists()
                else []
            )

        targets = list(gpus) or [-1]
        if sampler:
            sampler.start()
        threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in targets]
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        except KeyboardInterrupt:
            Path(stop).touch()
            for thread in threads:
                thread.join(timeout=60)
            raise
        finally:
            if sampler:
                sampler.stop()
        stats = {s.index: s for s in sampler.stats()} if sampler else {}
        return [
            analyze(
                i,
                names.get(i, "CPU"),
                results.get(i, {"ok": False, "error": "no result"}),
                results.get(i, {}).get("intervals", []),
                stats.get(i),
                temp_limit,
            )
            for i in targets
        ]
