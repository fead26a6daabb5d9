"""``tfgpu explain``: name the causes and fixes in a TensorFlow log (a file, stdin, or a command's output)."""

from __future__ import annotations

import argparse
import io
import shlex
import sys
from typing import BinaryIO

from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.doctor.examine import static_facts
from tfgpu.explain.explain import explain_command, explain_lines
from tfgpu.explain.reader import LogReader, NotALogError
from tfgpu.model.errors import NvmlUnavailable, UsageError
from tfgpu.model.explanation import Explanation
from tfgpu.model.facts import Facts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``tfgpu explain``."""
    parser.add_argument("logfile", nargs="?", help="the log to read; - for standard input")
    parser.add_argument(
        "--run", action="store_true", help="run the command given after --, show its output, then explain it"
    )
    parser.add_argument("--json", action="store_true", help="print a versioned JSON document")
    parser.add_argument("--no-facts", action="store_true", help="do not look at this machine for exact fix commands")


def _facts(args: argparse.Namespace, env: CliEnvironment) -> Facts | None:
    if args.no_facts:
        return None
    return static_facts(env.sources())


def _open(path: str, env: CliEnvironment) -> BinaryIO:
    if path == "-":
        buffer = getattr(env.stdin, "buffer", None)
        return buffer if buffer is not None else io.BytesIO(env.stdin.read().encode("utf-8", errors="replace"))
    try:
        return open(path, "rb")
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a log file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def _explain_run(argv: list[str], args: argparse.Namespace, env: CliEnvironment) -> tuple[Explanation, int]:
    """Run the command, show its output as it comes, then explain it."""
    if not argv:
        raise UsageError("--run needs a command, e.g. tfgpu explain --run -- python train.py")
    done = explain_command(argv, env.stderr.write, lambda: _facts(args, env), lambda: _no_gpu(env))
    if done is None:
        raise UsageError(f"cannot run {argv[0]}: program not found")
    env.stderr.write(f"\n[tfgpu explain] {shlex.join(argv)} exited with status {done.status}\n\n")
    return done.explanation, done.status


def _no_gpu(env: CliEnvironment) -> bool:
    """Whether NVML sees no NVIDIA GPU on this machine (the command's log was written here)."""
    try:
        return env.nvml_factory().device_count() == 0
    except NvmlUnavailable:
        return True


def _explain_file(args: argparse.Namespace, env: CliEnvironment) -> Explanation:
    stream = _open(args.logfile, env)
    reader = LogReader(stream)
    try:
        explanation = explain_lines(reader.lines(), _facts(args, env), 0)
    except NotALogError as exc:
        raise UsageError(f"{args.logfile}: {exc}") from None
    finally:
        if stream is not getattr(sys.stdin, "buffer", None) and stream is not getattr(env.stdin, "buffer", None):
            stream.close()
    return type(explanation)(**{**explanation.__dict__, "bytes_read": reader.bytes_read})


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Explain the log; exit 3 when it shows a problem, 0 when only harmless lines."""
    if args.run and args.logfile:
        raise UsageError("give a log file or --run -- CMD, not both")
    if args.passthrough and not args.run:
        raise UsageError("a command after -- needs --run: tfgpu explain --run -- python train.py")
    if not args.run and not args.logfile:
        if env.stdin.isatty():
            raise UsageError("give a log file, - for standard input, or --run -- CMD")
        args.logfile = "-"
    status = 0
    if args.run:
        explanation, status = _explain_run(args.passthrough, args, env)
    else:
        explanation = _explain_file(args, env)
    if args.json:
        from tfgpu.report.explanation import render_explanation_json

        env.stdout.write(render_explanation_json(explanation))
    else:
        from tfgpu.report.explanation import render_explanation_text

        render_explanation_text(explanation, env.console)
    if explanation.problems:
        return ExitStatus.FINDINGS_ERROR
    # Nothing explained, but the command failed: its failure is the answer (a signal as 128+N).
    return ExitStatus.SUCCESS if status == 0 else (status if 0 < status < 256 else 128 + abs(status) % 128)
