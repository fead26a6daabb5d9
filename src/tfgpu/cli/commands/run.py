"""``tfgpu run [options] -- CMD``: run an unmodified training command with GPU options applied."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable

from tfgpu.cli.argtypes import positive_seconds, whole
from tfgpu.cli.environment import CliEnvironment
from tfgpu.configure.options import BATCHNORMS, MAX_SPLIT, PRECISIONS, STRATEGIES, GpuOptions, make_options
from tfgpu.launch.run import run_command
from tfgpu.model.errors import DiagnosticError, UsageError
from tfgpu.model.facts import Facts
from tfgpu.report.sanitize import printable

XLA_CHOICES: dict[str, bool | str] = {"on": True, "off": False, "auto": "auto"}
"""--xla's words as setup() takes them (--tf32 uses the first two)."""
MAX_WORKERS = 64
"""Local workers on one machine: more is a typo (each is a whole TensorFlow process)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``tfgpu run`` (the same as tfgpu.setup's)."""
    parser.add_argument("--gpus", help='"all", indices "0,1", UUIDs, or "auto:N"')
    parser.add_argument("--memory", help='"growth", "async", a limit "6GiB" or a share "80%%"')
    parser.add_argument("--precision", choices=PRECISIONS)
    parser.add_argument("--xla", choices=("on", "off", "auto"))
    parser.add_argument("--tf32", choices=("on", "off"))
    parser.add_argument("--deterministic", action="store_true")
    parser.add_argument("--log-placement", action="store_true")
    parser.add_argument("--strategy", choices=STRATEGIES)
    parser.add_argument(
        "--split",
        type=whole(1, MAX_SPLIT, "devices"),
        metavar="N",
        help="split GPU 0 (or the CPU) into N logical devices",
    )
    parser.add_argument(
        "--batchnorm", choices=BATCHNORMS, help="fused: Keras 3 BatchNormalization through cuDNN's fused kernel"
    )
    parser.add_argument(
        "--xla-cache",
        choices=("on", "off", "read-only"),
        help="keep XLA's compiled programs for the next run (default: $TFGPU_XLA_CACHE, else on)",
    )
    parser.add_argument(
        "--workers",
        type=whole(1, MAX_WORKERS, "workers"),
        default=1,
        metavar="N",
        help="start N local workers with TF_CONFIG (MultiWorkerMirroredStrategy)",
    )
    parser.add_argument("--interval", type=positive_seconds, default=0.5, metavar="SECONDS", help="GPU sampling period")
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="also write the closing summary as JSON to FILE (stdout and stderr stay the command's)",
    )
    parser.add_argument("stray", nargs="*", metavar="-- CMD [ARGS]", help="the command to run, after --")
    parser.usage = "tfgpu run [options] -- CMD [ARGS ...]"


def _options(args: argparse.Namespace) -> GpuOptions:
    """The options as ``tfgpu.setup`` takes them; one it refuses is a usage error (exit 2)."""
    try:
        return make_options(
            gpus=args.gpus,
            memory=args.memory,
            precision=args.precision,
            xla=XLA_CHOICES.get(args.xla),
            tf32=XLA_CHOICES.get(args.tf32) is True if args.tf32 else None,
            deterministic=args.deterministic or None,
            log_placement=args.log_placement,
            strategy=args.strategy,
            split=args.split,
            batchnorm=args.batchnorm,
            xla_cache=args.xla_cache,
        )
    except DiagnosticError as exc:
        raise UsageError(f"{exc}; {exc.hint}" if exc.hint else str(exc)) from None


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Run the command after --; the exit status is the command's."""
    if args.stray:
        line = shlex.join(args.stray)
        raise UsageError(f"put -- before the command, so its options stay its own: tfgpu run [options] -- {line}")
    if not args.passthrough:
        raise UsageError("give the command after --: tfgpu run --memory growth -- python train.py")

    def say(prefix: str) -> Callable[[str], None]:
        def line(text: str) -> None:
            env.stderr.write(f"tfgpu run: {prefix}{printable(text)}\n")
            env.stderr.flush()

        return line

    report = run_command(
        args.passthrough,
        _options(args),
        nvml=env.nvml_factory(),
        environ=env.environ,
        workers=args.workers,
        interval_seconds=args.interval,
        stdout=env.stdout,
        stderr=env.stderr,
        warn=say("warning: "),
        inform=say(""),
        runner=env.runner_factory(),
        facts=lambda: _facts(env),
    )
    from tfgpu.report.run import render_run_json, run_summary

    env.error_console.print(run_summary(report))
    if args.json:
        try:
            env.save(args.json, render_run_json(report))
        except UsageError as exc:  # the command's status stands: only the summary file is lost
            env.stderr.write(f"tfgpu run: {printable(str(exc))}\n")
    return report.exit_status


def _facts(env: CliEnvironment) -> Facts | None:
    """This machine's facts for a failed command's fix, imported here: the doctor's collectors would delay every start."""
    from tfgpu.doctor.examine import static_facts  # ~0.1 s of imports, paid only when the command failed

    return static_facts(env.sources())
