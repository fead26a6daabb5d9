"""``tfgpu explain``: name the causes and fixes in a TensorFlow log (a file, stdin, or a command's output)."""

from __future__ import annotations

import argparse
import io
import sys
from typing import BinaryIO

from tfgpu.cli.commands.doctor import static_facts
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.explain.explain import explain_lines
from tfgpu.explain.reader import LogReader, NotALogError
from tfgpu.model.errors import UsageError
from tfgpu.model.facts import Facts
from tfgpu.system.runner import stream_command


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
    return static_facts(env)


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


def _captured_run(argv: list[str], env: CliEnvironment) -> BinaryIO:
    if not argv:
        raise UsageError("--run needs a command, e.g. tfgpu explain --run -- python train.py")
    captured = io.BytesIO()

    def tee(line: str) -> None:
        env.stderr.write(line)
        captured.write(line.encode("utf-8", errors="replace"))

    status = stream_command(tuple(argv), tee)
    if status is None:
        raise UsageError(f"cannot run {argv[0]}: program not found")
    env.stderr.write(f"\n[tfgpu explain] {' '.join(argv)} exited with status {status}\n\n")
    captured.seek(0)
    return captured


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
    stream = _captured_run(args.passthrough, env) if args.run else _open(args.logfile, env)
    reader = LogReader(stream)
    try:
        explanation = explain_lines(reader.lines(), _facts(args, env), 0)
    except NotALogError as exc:
        raise UsageError(f"{args.logfile or 'the command output'}: {exc}") from None
    finally:
        if stream is not getattr(sys.stdin, "buffer", None) and stream is not getattr(env.stdin, "buffer", None):
            stream.close()
    explanation = type(explanation)(**{**explanation.__dict__, "bytes_read": reader.bytes_read})
    if args.json:
        from tfgpu.report.explanation import render_explanation_json

        env.stdout.write(render_explanation_json(explanation))
    else:
        from tfgpu.report.explanation import render_explanation_text
        from tfgpu.report.text import make_console

        render_explanation_text(explanation, make_console(env.stdout, color=env.color))
    return ExitStatus.FINDINGS_ERROR if explanation.problems else ExitStatus.SUCCESS
