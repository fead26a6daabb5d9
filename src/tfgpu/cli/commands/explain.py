"""``tfgpu explain``: name the causes and fixes in a TensorFlow log (a file, stdin, or a command's output)."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable

from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.doctor.examine import static_facts
from tfgpu.explain.explain import explain_command, explain_file, no_nvidia_gpu
from tfgpu.model.errors import UsageError
from tfgpu.model.facts import Facts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``tfgpu explain``."""
    parser.add_argument("logfile", nargs="?", help="the log to read; - for standard input")
    parser.add_argument(
        "--run", action="store_true", help="run the command given after --, show its output, then explain it"
    )
    parser.add_argument("--json", action="store_true", help="print a versioned JSON document")
    parser.add_argument("--no-facts", action="store_true", help="do not look at this machine for exact fix commands")


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Explain the log; exit 3 when it shows a problem, else 0 (or the failed command's own status)."""
    if args.run and args.logfile:
        raise UsageError("give a log file or --run -- CMD, not both")
    if args.passthrough and not args.run:
        raise UsageError("a command after -- needs --run: tfgpu explain --run -- python train.py")
    if args.run and not args.passthrough:
        raise UsageError("--run needs a command, e.g. tfgpu explain --run -- python train.py")
    if not args.run and not args.logfile and env.stdin.isatty():
        raise UsageError("give a log file, - for standard input, or --run -- CMD")
    facts: Callable[[], Facts | None] = (lambda: None) if args.no_facts else (lambda: static_facts(env.sources()))
    if args.run:
        done = explain_command(args.passthrough, env.stderr.write, facts, lambda: no_nvidia_gpu(env.nvml_factory))
        if done is None:
            raise UsageError(f"cannot run {args.passthrough[0]}: program not found")
        env.stderr.write(f"\n[tfgpu explain] {shlex.join(args.passthrough)} exited with status {done.status}\n\n")
        explanation, status = done.explanation, done.shell_status
    else:
        explanation, status = explain_file(args.logfile or "-", env.stdin, facts), 0
    from tfgpu.report.explanation import render_explanation_json, render_explanation_text

    if args.json:
        env.stdout.write(render_explanation_json(explanation))
    else:
        render_explanation_text(explanation, env.console)
    return ExitStatus.FINDINGS_ERROR if explanation.problems else status
