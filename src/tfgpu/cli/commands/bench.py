"""``tfgpu bench``: measure the GPU (matmul, memory, convolution, reference models) against its peaks."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tfgpu.bench.run import compare, load_previous, run_benchmark
from tfgpu.bench.suites import SUITE_NAMES, suite
from tfgpu.cli.argtypes import positive_seconds, python_interpreter
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.model.errors import NvmlUnavailable, UsageError


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
    """Run the suite in a TensorFlow child and print the table (or JSON)."""
    previous = load_previous(args.compare) if args.compare else None
    if args.save and not Path(args.save).resolve().parent.is_dir():
        raise UsageError(f"cannot write {args.save}: no such directory")
    nvml = env.nvml_factory()
    try:
        gpus = nvml.device_count()
        gpu_name: str | None = nvml.name(0) if gpus else None
    except NvmlUnavailable:
        gpus, gpu_name = 0, None
    specs = suite(args.suite, tiny=args.tiny or gpu_name is None, gpus=gpus)
    if args.suite == "scaling" and gpu_name is not None and gpus < 2:
        env.stderr.write("tfgpu bench: one GPU, nothing to scale across: only the one-replica figures are measured\n")
    with env.progress(f"Running {len(specs)} workloads in a TensorFlow child"):
        result = run_benchmark(
            args.suite,
            specs,
            env.worker_factory("bench", args.python),
            gpu_name=gpu_name,
            environ=env.environ,
            timeout_seconds=args.timeout,
            python=args.python or sys.executable,
            nvml=nvml,
            command_runner=env.runner_factory(),
        )
    ratios = compare(result, previous) if previous is not None else None
    from tfgpu.report.bench import render_bench_json

    document = render_bench_json(result, ratios) if args.save or args.json else ""
    if args.save:
        env.save(args.save, document)
    if args.json:
        env.stdout.write(document)
    else:
        from tfgpu.report.bench import bench_table

        env.console.print(bench_table(result, ratios))
    return ExitStatus.SUCCESS if all(e.ok for e in result.entries) else ExitStatus.ERROR
