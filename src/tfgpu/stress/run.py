"""Run the burn on every selected GPU (one child each) while a sampler watches NVML and enforces the temperature limit."""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tfgpu.model.samples import GpuSample
from tfgpu.model.stress import GpuBurn
from tfgpu.monitor.sampler import Sampler
from tfgpu.nvml.client import NvmlClient
from tfgpu.probe.jobs import run_job
from tfgpu.probe.runner import ProbeRunner
from tfgpu.stress.analyze import analyze


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
