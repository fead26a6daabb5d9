"""``tfgpu burn``: sustained load on every selected GPU, results checked bit for bit, PASS/FAIL per GPU."""

from __future__ import annotations

import argparse

from tfgpu.cli.argtypes import TEMPERATURE_LIMIT, gpu_indices, positive_minutes
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.model.errors import NvmlUnavailable, UsageError
from tfgpu.report.burn import render_burn_json, render_burn_text
from tfgpu.stress.analyze import BURN_NO_TENSORFLOW
from tfgpu.stress.run import run_stress


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


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Burn, then print PASS/FAIL per GPU; exit 4 when any GPU fails. Clocks and power limits are never changed."""
    if args.minutes <= 0:
        raise UsageError("--minutes must be positive")
    nvml = env.nvml_factory()
    try:
        count = nvml.device_count()
        names = {i: nvml.name(i) for i in range(count)}
    except NvmlUnavailable as exc:
        # As bench does: without a GPU the same checked products run on the CPU, small, and say so.
        env.stderr.write(f"tfgpu burn: no NVIDIA GPU ({exc.reason}): burning the CPU with small products instead\n")
        count, names, args.tiny = 0, {}, True
    gpus = args.gpus if args.gpus is not None else list(range(count))
    if any(g >= count for g in gpus):
        raise UsageError(f"--gpus {','.join(map(str, gpus))}: this machine has {count} GPU(s)")
    size, dtype = (256, "float32") if args.tiny else (8192, "bfloat16")
    with env.progress(
        f"Burning {f'{len(gpus)} GPU(s)' if gpus else 'the CPU'} for {args.minutes:g} min"
        + (f" (temperature limit {args.temp_limit:g} °C)" if gpus else "")
    ):
        burns = run_stress(
            args.minutes * 60,
            gpus,
            names,
            lambda: env.worker_factory("bench", None),
            nvml if gpus else None,
            env.environ,
            temp_limit=args.temp_limit,
            n=size,
            dtype=dtype,
        )
    env.stdout.write(render_burn_json(burns) if args.json else render_burn_text(burns))
    if burns and all(any(f.id == BURN_NO_TENSORFLOW for f in b.findings) for b in burns):
        return ExitStatus.ERROR  # nothing was burned: the tool's environment failed, not a device
    return ExitStatus.SUCCESS if all(b.passed for b in burns) else ExitStatus.STRESS_FAILED
