"""``tfgpu monitor``: a live view of every GPU, logging to CSV/JSONL, and a verdict for a watched process."""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from tfgpu.cli.argtypes import PID_MAX, positive_seconds, whole
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.model.errors import DiagnosticError, NvmlUnavailable, UsageError
from tfgpu.model.samples import GpuSample, JudgedFrom
from tfgpu.monitor.exposition import job_labels, open_prometheus_sink
from tfgpu.monitor.judging import judge_window
from tfgpu.monitor.sampler import Sampler
from tfgpu.monitor.sinks import CsvSink, JsonlSink
from tfgpu.monitor.verdict import RunFacts
from tfgpu.monitor.watch import WatchedProcess, gpu_links, gpu_names, process_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``tfgpu monitor``."""
    parser.add_argument("--once", action="store_true", help="print one reading and exit")
    parser.add_argument(
        "--interval", type=positive_seconds, default=1.0, metavar="SECONDS", help="seconds between readings (default 1)"
    )
    parser.add_argument("--duration", type=positive_seconds, metavar="SECONDS", help="stop after this long")
    parser.add_argument("--csv", metavar="FILE", help="append every reading to a CSV file")
    parser.add_argument("--jsonl", metavar="FILE", help="append every reading to a JSON-lines file")
    parser.add_argument(
        "--watch",
        type=whole(1, PID_MAX, "process id"),
        metavar="PID",
        help="follow one process; stop and give a verdict when it exits",
    )
    parser.add_argument("--plot", metavar="PNG", help="draw the readings to a PNG at the end (needs matplotlib)")
    parser.add_argument(
        "--prometheus-port",
        type=whole(1, 65535, "port"),
        metavar="PORT",
        help="serve the readings for Prometheus on this port, under DCGM exporter's names (needs tfgpu[metrics])",
    )
    parser.add_argument(
        "--textfile",
        metavar="FILE",
        help="keep the readings in a node-exporter textfile (FILE.prom, replaced each reading; needs tfgpu[metrics])",
    )


def _open_sink(path: str | None) -> tuple[TextIO, bool] | None:
    """The file appended to, and whether it was empty (a CSV header then); a symbolic link is refused.

    A link in a shared directory would make tfgpu append to whatever it points at.
    """
    if not path:
        return None
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        why = "it is a symbolic link: give the file itself" if exc.errno == errno.ELOOP else exc.strerror or exc
        raise UsageError(f"cannot write {path}: {why}") from None
    empty = os.fstat(fd).st_size == 0
    return os.fdopen(fd, "a", encoding="utf-8"), empty


def _write_failed(path: str, exc: OSError) -> DiagnosticError:
    return DiagnosticError("monitor-output-lost", f"cannot write {path}: {exc.strerror or exc}; sampling stopped")


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Sample until --once, --duration, the watched process exits, or Ctrl-C."""
    if args.interval <= 0:
        raise UsageError("--interval must be positive")
    watched = WatchedProcess(args.watch) if args.watch is not None else None
    if watched is not None and not watched.alive():
        raise UsageError(f"--watch {args.watch}: no such process")
    client = env.nvml_factory()
    try:
        names = gpu_names(client)
    except NvmlUnavailable as exc:
        env.stderr.write(f"tfgpu monitor: no NVIDIA GPU to monitor: {exc.reason} (exit status 6)\n")
        return ExitStatus.NO_GPU
    count = len(names)
    if count == 0:
        env.stderr.write(
            "tfgpu monitor: NVML sees no GPU (MIG without instances, or CUDA devices hidden; exit status 6)\n"
        )
        return ExitStatus.NO_GPU
    csv_file, jsonl_file = _open_sink(args.csv), _open_sink(args.jsonl)
    files = [(f, path) for f, path in ((csv_file, args.csv), (jsonl_file, args.jsonl)) if f is not None]
    sinks: list[tuple[Callable[[GpuSample], None], str]] = []
    if csv_file is not None:
        sinks.append((CsvSink(csv_file[0], header=csv_file[1]), args.csv))
    if jsonl_file is not None:
        sinks.append((JsonlSink(jsonl_file[0]), args.jsonl))
    if args.prometheus_port is not None or args.textfile:
        exposition = open_prometheus_sink(
            env.host or "unknown",
            client,
            list(range(count)),
            port=args.prometheus_port,
            textfile=args.textfile,
            job=job_labels(env.environ),
        )
        sinks.append((exposition, args.textfile or f"port {args.prometheus_port}"))

    def on_sample(sample: GpuSample) -> None:
        for sink, path in sinks:
            try:
                sink(sample)
            except OSError as exc:
                raise _write_failed(path, exc) from None

    sampler = Sampler(client, list(range(count)), args.interval, on_sample=on_sample)
    from rich.live import Live

    from tfgpu.report.monitor import samples_table, topology_text, verdict_text

    console = env.console
    start = time.monotonic()
    cpu_start = watched.cpu_seconds() if watched is not None else None
    try:
        if args.once:
            console.print(
                samples_table(sampler.sample_once(), names, {i: process_lines(client, i) for i in range(count)})
            )
            if count > 1:
                console.print(topology_text({i: gpu_links(client, i, count) for i in range(count)}))
            return ExitStatus.SUCCESS
        live_cm = Live(console=console, auto_refresh=False) if env.color else contextlib.nullcontext()
        with live_cm as live:
            while True:
                samples = sampler.sample_once()
                table = samples_table(samples, names, {i: process_lines(client, i) for i in range(count)})
                if live is not None:
                    live.update(table, refresh=True)
                elif args.duration is None and args.watch is None:
                    console.print(table)
                if args.duration is not None and time.monotonic() - start >= args.duration:
                    break
                if watched is not None and not watched.alive():
                    break
                time.sleep(args.interval)
    except KeyboardInterrupt:
        pass
    finally:
        for (f, _), path in files:
            try:
                f.close()
            except OSError as exc:
                raise _write_failed(path, exc) from None
    wall = time.monotonic() - start
    cpu_end = watched.cpu_seconds() if watched is not None else None
    host = cpu_end - cpu_start if cpu_start is not None and cpu_end is not None else None
    # With --watch, judge from the process's first GPU activity on (its start-up is not training).
    watching = args.watch is not None
    judgement = judge_window(
        sampler,
        RunFacts(wall_seconds=wall, host_cpu_seconds=host),
        JudgedFrom.FIRST_ACTIVITY if watching else JudgedFrom.WHOLE_RUN,
        since=sampler.first_busy() if watching else None,
    )
    console.print(verdict_text(judgement.verdicts))
    if args.plot:
        from tfgpu.monitor.plot import plot_samples

        plot_samples(sampler.samples(), args.plot)
        env.stderr.write(f"wrote {Path(args.plot)}\n")
    return ExitStatus.SUCCESS
