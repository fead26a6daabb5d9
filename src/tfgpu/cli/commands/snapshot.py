"""``tfgpu snapshot``: one reading of every GPU, judged healthy, degraded or failed, in a scheduler's format."""

from __future__ import annotations

import argparse

from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.model.errors import UsageError
from tfgpu.model.snapshot import Health
from tfgpu.monitor.gauges import METRICS_INSTALL, metrics_available
from tfgpu.monitor.snapshot import take_snapshot

FORMATS = ("json", "csv", "prometheus")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--format``."""
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="json",
        help="prometheus: DCGM exporter's names and labels plus tfgpu_gpu_health (needs tfgpu[metrics])",
    )


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Read, judge, print; the exit status is the node's health."""
    if args.format == "prometheus" and not metrics_available():
        raise UsageError(f"--format prometheus needs prometheus_client: {METRICS_INSTALL}")
    snapshot = take_snapshot(env.nvml_factory(), env.host or "unknown")
    from tfgpu.report import snapshot as report

    render = {
        "json": report.render_snapshot_json,
        "csv": report.render_snapshot_csv,
        "prometheus": report.render_snapshot_prometheus,
    }[args.format]
    env.stdout.write(render(snapshot))
    if snapshot.error is None and not snapshot.gpus:
        return ExitStatus.NO_GPU
    return {
        Health.HEALTHY: ExitStatus.SUCCESS,
        Health.DEGRADED: ExitStatus.GPU_DEGRADED,
        Health.FAILED: ExitStatus.GPU_FAILED,
    }[snapshot.health]
