"""``tfgpu bench``: measure the GPU (matmul, memory, convolution, reference models) against its peaks."""

from __future__ import annotations

import argparse
from pathlib import Path

from tfgpu.bench.run import bench_machine
from tfgpu.bench.suites import SUITE_NAMES
from tfgpu.cli.argtypes import positive_seconds, python_interpreter
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.model.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``tfgpu bench``."""
    parser.add_argument("--suite", choices=SUITE_NAMES, default="quick")
    parser.add_argument("--json", action="store_true", help="print a versioned JSON document")
    parser.add_argument("--save", metavar="FILE", help="also write the --json document here (for a later --compare)")
    parser.add_argument("--compare", metavar="OLD_JSON", help="print the ratio to a previous --json run per figure")
    parser.add_argument("--tiny", action="store_true", help="CPU-sized workloads (automatic without a GPU)")
    parser.add_argument(
        "--python",
        metavar="PATH",
        type=python_interpreter,
        help="run the workloads with another interpreter (a venv or conda directory works too)",
    )
    parser.add_argument("--timeout", type=positive_seconds, default=1800.0, metavar="SECONDS")


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Run the suite in a TensorFlow child and print the table (or JSON); exit 1 when a workload failed."""
    if args.save and not Path(args.save).resolve().parent.is_dir():
        raise UsageError(f"cannot write {args.save}: no such directory")
    bench = bench_machine(
        args.suite,
        lambda: env.worker_factory("bench", args.python),
        env.nvml_factory(),
        environ=env.environ,
        tiny=args.tiny,
        compare_to=args.compare,
        python=args.python,
        timeout_seconds=args.timeout,
        command_runner=env.runner_factory(),
        inform=lambda text: env.stderr.write(f"tfgpu bench: {text}\n"),
        around=env.progress,
    )
    from tfgpu.report.bench import bench_table, render_bench_json

    if args.save:
        env.save(args.save, render_bench_json(bench))
    if args.json:
        env.stdout.write(render_bench_json(bench))
    else:
        env.console.print(bench_table(bench))
    return ExitStatus.SUCCESS if all(e.ok for e in bench.result.entries) else ExitStatus.ERROR
