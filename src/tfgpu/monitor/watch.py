"""``tfgpu monitor``'s one call: sample every GPU, write the readings where asked, and judge the run.

Beside the samples it reads the GPUs' names, processes and links, and follows a watched process.
The command renders each reading and the result; ``watch_gpus`` serves any other front end alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from tfgpu.model.errors import NvmlUnavailable, UsageError
from tfgpu.model.facts import GpuLink
from tfgpu.model.monitoring import MonitorRequest, MonitorResult, Reading
from tfgpu.model.samples import JudgedFrom, Verdict
from tfgpu.monitor.exposition import job_labels, open_prometheus_sink
from tfgpu.monitor.judging import judge_window
from tfgpu.monitor.sampler import Sampler
from tfgpu.monitor.sinks import FileSinks
from tfgpu.monitor.verdict import RunFacts
from tfgpu.nvml.client import NvmlClient
from tfgpu.nvml.collect import collect_links, collect_processes
from tfgpu.system.procs import alive, cpu_seconds, uses_tensorflow


def gpu_names(client: NvmlClient) -> dict[int, str]:
    """Every GPU's name by index.

    Raises:
        NvmlUnavailable: NVML cannot be read (no driver, no GPU).
    """
    return {i: client.name(i) for i in range(client.device_count())}


def process_lines(client: NvmlClient, index: int) -> list[str]:
    """One line per process on the GPU (pid, name, memory, whether it runs TensorFlow); none when NVML cannot say."""
    try:
        procs = collect_processes(client, index)
    except NvmlUnavailable:
        return []
    lines = []
    for p in procs:
        memory = f"{p.used_memory_bytes / 2**30:.1f} GiB" if p.used_memory_bytes else "? GiB"
        lines.append(f"pid {p.pid} {p.name} {memory}{' [TensorFlow]' if uses_tensorflow(p.pid) else ''}")
    return lines


def gpu_links(client: NvmlClient, index: int, count: int) -> tuple[GpuLink, ...] | str:
    """The GPU's links to the others, or why NVML cannot say."""
    try:
        return collect_links(client, index, count)
    except NvmlUnavailable as exc:
        return exc.reason


class WatchedProcess:
    """The process ``--watch PID`` follows: whether it still runs, and its CPU time (for the verdict)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def alive(self) -> bool:
        """Whether it still runs (the watch ends when it does not)."""
        return alive(self.pid)

    def cpu_seconds(self) -> float | None:
        """User + system CPU seconds so far; None when /proc does not tell."""
        return cpu_seconds(self.pid)


def watch_gpus(
    client: NvmlClient,
    request: MonitorRequest,
    *,
    host: str,
    environ: Mapping[str, str],
    on_reading: Callable[[Reading], None] = lambda reading: None,
) -> MonitorResult:
    """Sample every GPU until ``once``, the duration, the watched process's exit, or Ctrl-C; then judge.

    Every reading goes to the files and exposition asked for, then to ``on_reading`` (the live view).

    Raises:
        UsageError: the watched process does not exist, or an output cannot be opened.
        DiagnosticError: an output stopped accepting readings.
    """
    watched = WatchedProcess(request.watch_pid) if request.watch_pid is not None else None
    if watched is not None and not watched.alive():
        raise UsageError(f"--watch {request.watch_pid}: no such process")
    try:
        names = gpu_names(client)
    except NvmlUnavailable as exc:
        return MonitorResult(no_gpu=exc.reason)
    if not names:
        return MonitorResult(no_gpu="NVML sees no GPU (MIG without instances, or CUDA devices hidden)")
    indices = list(names)
    sinks = FileSinks(request.csv, request.jsonl)
    if request.prometheus_port is not None or request.textfile:
        exposition = open_prometheus_sink(
            host, client, indices, port=request.prometheus_port, textfile=request.textfile, job=job_labels(environ)
        )
        sinks.add(exposition, request.textfile or f"port {request.prometheus_port}")
    sampler = Sampler(client, indices, request.interval_seconds, on_sample=sinks)

    def read() -> Reading:
        samples = tuple(sampler.sample_once())
        return Reading(samples, names, {i: process_lines(client, i) for i in indices})

    start = time.monotonic()
    cpu_start = watched.cpu_seconds() if watched is not None else None
    try:
        if request.once:
            links = {i: gpu_links(client, i, len(indices)) for i in indices} if len(indices) > 1 else {}
            return MonitorResult(last=read(), links=links)
        while True:
            on_reading(read())
            if request.duration_seconds is not None and time.monotonic() - start >= request.duration_seconds:
                break
            if watched is not None and not watched.alive():
                break
            time.sleep(request.interval_seconds)
    except KeyboardInterrupt:
        pass
    finally:
        sinks.close()
    return MonitorResult(
        verdicts=_judged(sampler, watched, time.monotonic() - start, cpu_start),
        plot=_plot(sampler, request),
    )


def _judged(
    sampler: Sampler, watched: WatchedProcess | None, wall: float, cpu_start: float | None
) -> tuple[Verdict, ...]:
    """The verdict over the run; with a watched process, from its first GPU activity on (its start-up is not training)."""
    cpu_end = watched.cpu_seconds() if watched is not None else None
    host = cpu_end - cpu_start if cpu_start is not None and cpu_end is not None else None
    judgement = judge_window(
        sampler,
        # The monitor sees the GPU, never inside the process: an idle stretch may be compiling, loading or input.
        RunFacts(wall_seconds=wall, host_cpu_seconds=host, unattributed=True),
        JudgedFrom.FIRST_ACTIVITY if watched is not None else JudgedFrom.WHOLE_RUN,
        since=sampler.first_busy() if watched is not None else None,
    )
    return tuple(judgement.verdicts)


def _plot(sampler: Sampler, request: MonitorRequest) -> str | None:
    if not request.plot:
        return None
    from tfgpu.monitor.plot import plot_samples  # matplotlib loads only when a plot is asked for

    plot_samples(sampler.samples(), request.plot)
    return request.plot
