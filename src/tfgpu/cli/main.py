"""``tfgpu`` entry point: parse, dispatch lazily, and map every exception to an exit status."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from tfgpu._version import __version__
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.cli.streams import SafeStream, silence_broken_stdout
from tfgpu.model.errors import DiagnosticError, UsageError
from tfgpu.report.sanitize import printable

COMMANDS: dict[str, tuple[str, str]] = {
    "doctor": ("tfgpu.cli.commands.doctor", "diagnose why TensorFlow can or cannot use the GPUs here"),
    "explain": ("tfgpu.cli.commands.explain", "read a TensorFlow log and name the causes and fixes"),
    "monitor": (
        "tfgpu.cli.commands.monitor",
        "watch utilization, memory, temperature, power, clocks and throttling live",
    ),
    "run": ("tfgpu.cli.commands.run", "run a training command with GPU options applied and a verdict at the end"),
    "bench": (
        "tfgpu.cli.commands.bench",
        "measure matmul, memory, convolution and model speed against the GPU's peaks",
    ),
    "burn": ("tfgpu.cli.commands.burn", "stress every GPU with checked matmuls and report PASS/FAIL"),
    "tune": ("tfgpu.cli.commands.tune", "find the fastest way to train a script's model on this GPU"),
    "env": ("tfgpu.cli.commands.env", 'print the export lines that make TF find its libraries: eval "$(tfgpu env)"'),
    "cache": ("tfgpu.cli.commands.cache", "show or clear the XLA cache that lets a second run skip compilation"),
    "snapshot": (
        "tfgpu.cli.commands.snapshot",
        "one reading of every GPU, judged, for a Slurm prolog or a Kubernetes probe",
    ),
}


EXIT_STATUSES: dict[str, str] = {
    "doctor": "0 healthy (or --exit-zero), 3 problems found (--strict: warnings too), 1 tool failure, 2 usage",
    "explain": "0 only harmless lines, 3 a problem found, 2 not a log; --run: the command's status when it failed unexplained",
    "monitor": "0 done, 6 no NVIDIA GPU to watch, 2 usage",
    "run": "the command's own exit status (128+N for a signal), 2 usage",
    "bench": "0 measured, 1 tool failure, 2 usage",
    "burn": "0 every device passed, 4 a device failed, 1 no TensorFlow to burn with, 2 usage",
    "tune": "0 tuned, 1 tool failure, 2 usage",
    "env": "0 (the lines, or nothing to change), 1 tool failure",
    "cache": "0 listed (or cleared), 2 usage (a bad TFGPU_XLA_CACHE or TFGPU_XLA_CACHE_LIMIT)",
    "snapshot": "0 every GPU healthy, 7 one degraded (slowed), 8 one failed or NVML unreadable, 6 no NVIDIA GPU, 2 usage",
}


class _DefaultsFormatter(argparse.HelpFormatter):
    """Show an option's default where it has a real one (not for flags, not twice)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if default in (None, False, argparse.SUPPRESS) or "default" in text or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


def _command_module(name: str) -> ModuleType:
    return importlib.import_module(COMMANDS[name][0])


def build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser; only the chosen subcommand's module is imported to add its options."""
    parser = argparse.ArgumentParser(
        prog="tfgpu",
        description="Get TensorFlow onto NVIDIA GPUs and keep them busy.",
        epilog="exit statuses: " + "; ".join(f"{name}: {text}" for name, text in EXIT_STATUSES.items()),
    )
    parser.add_argument("--version", action="version", version=f"tfgpu {__version__}")
    parser.add_argument("--debug", action="store_true", help="show full tracebacks of tool failures")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = next((a for a in argv if a in COMMANDS), None)
    for name, (_module, summary) in COMMANDS.items():
        cmd = sub.add_parser(
            name,
            help=summary,
            description=summary,
            epilog=f"exit status: {EXIT_STATUSES[name]}",
            formatter_class=_DefaultsFormatter,
        )
        if name == chosen:
            _command_module(name).add_arguments(cmd)
    return parser


def main(argv: Sequence[str] | None = None, env: CliEnvironment | None = None) -> int:
    """Run one command; the single place where exceptions become exit statuses (pip's _run_wrapper)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    env = env or CliEnvironment.from_process()
    try:
        status = _main(args_list, env)
        return _output_lost(env, args_list) or status
    finally:
        if isinstance(env.stdout, SafeStream):
            silence_broken_stdout(env.stdout)


def _output_lost(env: CliEnvironment, args_list: list[str]) -> int | None:
    """ExitStatus.ERROR, said on stderr, when stdout could not be written (``tfgpu env > /dev/full`` exited 0).

    ``tfgpu run`` returns its command's status whatever happened to the output, as the command would.
    """
    own = args_list[: args_list.index("--")] if "--" in args_list else args_list
    if not isinstance(env.stdout, SafeStream) or next((a for a in own if a in COMMANDS), None) == "run":
        return None
    env.stdout.flush()
    if env.stdout.lost is None:
        return None
    env.stderr.write(f"tfgpu: the output could not be written: {env.stdout.lost.strerror or env.stdout.lost}\n")
    return ExitStatus.ERROR


def _main(args_list: list[str], env: CliEnvironment) -> int:
    # Everything after the first "--" is a command for tfgpu to run (explain --run, run):
    # argparse's REMAINDER does not survive subparsers, so it is split off here.
    passthrough: list[str] = []
    if "--" in args_list:
        cut = args_list.index("--")
        args_list, passthrough = args_list[:cut], args_list[cut + 1 :]
    parser = build_parser(args_list)
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:
        return int(exc.code or 0)
    args.passthrough = passthrough
    if not args.command:
        parser.print_help(env.stdout)
        return ExitStatus.USAGE
    try:
        return int(_command_module(args.command).run(args, env))
    except BrokenPipeError:
        return ExitStatus.SUCCESS  # a reader that stopped early (| head) is not a failure of the command
    except KeyboardInterrupt:
        env.stderr.write("interrupted\n")
        return ExitStatus.INTERRUPTED
    except UsageError as exc:  # messages name files and values the user gave: escaped before the terminal
        env.stderr.write(f"tfgpu {args.command}: error: {printable(str(exc))}\n")
        return ExitStatus.USAGE
    except DiagnosticError as exc:
        if args.debug:
            raise
        env.stderr.write(f"tfgpu {args.command}: {printable(str(exc))}\n")
        return ExitStatus.ERROR
    except Exception as exc:
        if args.debug:
            raise
        env.stderr.write(
            f"tfgpu {args.command}: internal error: {type(exc).__name__}: {printable(str(exc))}\n"
            "Run again with --debug for the traceback, and please report it.\n"
        )
        return ExitStatus.ERROR
