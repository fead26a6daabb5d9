"""``tfgpu burn``: sustained load on every selected GPU, results checked bit for bit, PASS/FAIL per GPU."""

from __future__ import annotations

import argparse

from tfgpu.cli.argtypes import TEMPERATURE_LIMIT, gpu_indices, positive_minutes
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.model.stress import BurnOutcome
from tfgpu.report.burn import render_burn_json, render_burn_text
from tfgpu.stress.run import burn_machine, burn_outcome


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``tfgpu burn``."""
    parser.add_argument("--minutes", type=positive_minutes, default=1.0, help="how long to burn")
    parser.add_argument("--gpus", type=gpu_indices, help="indices to burn, e.g. 0,1 (default: all)")
    parser.add_argument(
        "--temp-limit",
        type=TEMPERATURE_LIMIT,
        default=85.0,
        metavar="CELSIUS",
        help="stop at once when a GPU reaches it",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--tiny", action="store_true", help="a small CPU workload (for machines without a GPU and for tests)"
    )


EXIT_STATUS = {BurnOutcome.PASSED: ExitStatus.SUCCESS, BurnOutcome.FAILED: ExitStatus.STRESS_FAILED}


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Burn, then print PASS/FAIL per GPU; exit 4 when any GPU fails. Clocks and power limits are never changed."""
    burns = burn_machine(
        args.minutes,
        args.gpus,
        lambda: env.worker_factory("bench", None),
        env.nvml_factory(),
        env.environ,
        tiny=args.tiny,
        temp_limit=args.temp_limit,
        inform=lambda text: env.stderr.write(f"tfgpu burn: {text}\n"),
        around=env.progress,
    )
    env.stdout.write(render_burn_json(burns) if args.json else render_burn_text(burns))
    return EXIT_STATUS.get(burn_outcome(burns), ExitStatus.ERROR)
