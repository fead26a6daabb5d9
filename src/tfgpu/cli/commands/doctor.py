"""``tfgpu doctor``: collect, check (starting TensorFlow in a child unless --static) and report."""

from __future__ import annotations

import argparse
import shlex

from tfgpu._version import __version__
from tfgpu.cli.argtypes import positive_seconds, python_interpreter
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.doctor.diagnose import diagnose
from tfgpu.doctor.examine import env_fix, examine, load_report
from tfgpu.model.errors import UsageError
from tfgpu.model.facts import EnvFix, Facts
from tfgpu.model.probe import PROBE_TIMEOUT_SECONDS
from tfgpu.report.env_fix import fix_file, fix_script, one_line
from tfgpu.report.json import render_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``tfgpu doctor``."""
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print a versioned JSON document (facts + findings)")
    fmt.add_argument("--markdown", action="store_true", help="print a redacted, paste-ready bug report")
    fmt.add_argument(
        "--fix-env", action="store_true", help="print the environment lines that make TF find its libraries"
    )
    parser.add_argument("--write", metavar="FILE", help="with --fix-env: write the lines to FILE (never overwrites)")
    parser.add_argument("--from", dest="from_file", metavar="REPORT", help="re-run the checks on a saved --json report")
    parser.add_argument("--strict", action="store_true", help="exit 3 on warnings too")
    parser.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when problems are found (the report is the answer)"
    )
    parser.add_argument("--static", action="store_true", help="skip the live TensorFlow probe (no child process)")
    parser.add_argument(
        "--quick", action="store_true", help="probe without training the tiny Keras model (faster, proves less)"
    )
    parser.add_argument(
        "--python",
        metavar="PATH",
        type=python_interpreter,
        help="diagnose another interpreter, or the one in a venv or conda directory (a Jupyter kernel's python)",
    )
    parser.add_argument(
        "--probe-timeout",
        type=positive_seconds,
        default=PROBE_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help=f"kill the TensorFlow probe after this long (default {PROBE_TIMEOUT_SECONDS:.0f})",
    )


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Diagnose this machine (or the saved one) and print the report; exit 3 on an error found (or a warning, strict)."""
    if args.write and not args.fix_env:
        raise UsageError("--write needs --fix-env")
    facts = load_report(args.from_file) if args.from_file else _examine(args, env)
    if args.fix_env:
        _fix_env(env_fix(facts), args.write, env)
        return ExitStatus.SUCCESS
    diagnosis = diagnose(facts)
    if args.json:
        env.stdout.write(render_json(diagnosis))
    elif args.markdown:
        from tfgpu.report.markdown import Redactions, render_markdown

        env.stdout.write(render_markdown(diagnosis, Redactions(env.user, env.host, env.home)))
    else:
        from tfgpu.report.text import render_text  # rich loads only for humans

        render_text(diagnosis, env.console, static=facts.probe is None, replayed_from=args.from_file)
    problems = diagnosis.problems(strict=args.strict) and not args.exit_zero
    return ExitStatus.FINDINGS_ERROR if problems else ExitStatus.SUCCESS


def _examine(args: argparse.Namespace, env: CliEnvironment) -> Facts:
    return examine(
        env.sources(),
        env.worker_factory("probe", args.python),
        tfgpu_version=__version__,
        other_python=args.python,
        probe=not (args.static or args.fix_env),
        quick=args.quick,
        probe_timeout=args.probe_timeout,
        around_probe=lambda: env.progress(f"Starting TensorFlow in a child process (up to {args.probe_timeout:.0f} s)"),
    )


def _fix_env(fix: EnvFix, write: str | None, env: CliEnvironment) -> None:
    """The lines on stdout, or into a new file (--write) with how to use it on stderr."""
    if not write:
        env.stdout.write(fix_script(fix))
    elif not fix.lines:
        env.stderr.write(f"nothing to write: {one_line(fix.nothing_to_fix)}; {one_line(write)} was not created\n")
    else:
        env.create(write, fix_file(fix))
        env.stderr.write(f"wrote {len(fix.lines)} line(s) to {one_line(write)}; run: source {shlex.quote(write)}\n")
