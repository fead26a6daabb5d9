"""``tfgpu monitor``: a live view of every GPU, logging to CSV/JSONL, and a verdict for a watched process."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator

from tfgpu.cli.argtypes import PID_MAX, positive_seconds, whole
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.model.monitoring import MonitorRequest, Reading
from tfgpu.monitor.watch import watch_gpus


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``tfgpu monitor``."""
    add = parser.add_argument
    add("--once", action="store_true", help="print one reading and exit")
    add(
        "--interval", type=positive_seconds, default=1.0, metavar="SECONDS", help="seconds between readings (default 1)"
    )
    add("--duration", type=positive_seconds, metavar="SECONDS", help="stop after this long")
    add("--csv", metavar="FILE", help="append every reading to a CSV file")
    add("--jsonl", metavar="FILE", help="append every reading to a JSON-lines file")
    add(
        "--watch",
        type=whole(1, PID_MAX, "process id"),
        metavar="PID",
        help="follow one process; stop and give a verdict when it exits",
    )
    add("--plot", metavar="PNG", help="draw the readings to a PNG at the end (needs matplotlib)")
    add("--prometheus-port", type=whole(1, 65535, "port"), metavar="PORT", help=PROMETHEUS_HELP)
    add("--textfile", metavar="FILE", help=TEXTFILE_HELP)


PROMETHEUS_HELP = "serve the readings for Prometheus on this port, under DCGM exporter's names (needs tfgpu[metrics])"
TEXTFILE_HELP = "keep the readings in a node-exporter textfile (FILE.prom, replaced each reading; needs tfgpu[metrics])"


@contextlib.contextmanager
def _live_view(env: CliEnvironment, request: MonitorRequest) -> Iterator[Callable[[Reading], None]]:
    """Each reading redrawn in place on a terminal; printed in turn when piped, unless the run ends in a verdict."""
    from rich.live import Live

    from tfgpu.report.monitor import reading_table

    if request.once or not env.color:
        quiet = request.once or request.duration_seconds is not None or request.watch_pid is not None
        yield (lambda reading: None) if quiet else (lambda reading: env.console.print(reading_table(reading)))
        return
    with Live(console=env.console, auto_refresh=False) as live:
        yield lambda reading: live.update(reading_table(reading), refresh=True)


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Sample until --once, --duration, the watched process exits, or Ctrl-C; exit 6 without a GPU."""
    request = MonitorRequest(
        args.interval,
        args.duration,
        args.once,
        args.watch,
        args.csv,
        args.jsonl,
        args.prometheus_port,
        args.textfile,
        args.plot,
    )
    with _live_view(env, request) as show:
        result = watch_gpus(
            env.nvml_factory(), request, host=env.host or "unknown", environ=env.environ, on_reading=show
        )
    from tfgpu.report.monitor import render_monitor_result

    render_monitor_result(result, env.console, env.stderr)
    return ExitStatus.NO_GPU if result.no_gpu else ExitStatus.SUCCESS
