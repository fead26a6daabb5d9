"""``tfgpu doctor``: collect, check and report."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tfgpu import __version__
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.doctor.collect import Sources, collect_facts
from tfgpu.doctor.diagnose import diagnose
from tfgpu.model.errors import UsageError
from tfgpu.model.facts import Facts
from tfgpu.report.json import facts_from_document, render_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``tfgpu doctor``."""
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print a versioned JSON document (facts + findings)")
    fmt.add_argument("--markdown", action="store_true", help="print a redacted, paste-ready bug report")
    parser.add_argument("--from", dest="from_file", metavar="REPORT", help="re-run the checks on a saved --json report")
    parser.add_argument("--strict", action="store_true", help="exit 3 on warnings too")
    parser.add_argument("--static", action="store_true", help="only the checks that do not start TensorFlow")


def load_facts(path: str) -> Facts:
    """Facts from a saved ``doctor --json`` report.

    Raises:
        UsageError: the file is missing, not JSON, or not a tfgpu report.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not a text file") from None
    try:
        return facts_from_document(json.loads(text))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path} is not JSON: {exc}") from None
    except ValueError as exc:
        raise UsageError(f"{path}: {exc}") from None


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Diagnose this machine (or the saved one) and print the report."""
    if args.from_file:
        facts = load_facts(args.from_file)
    else:
        sources = Sources(runner=env.runner_factory(), nvml=env.nvml_factory(), environ=env.environ)
        facts = collect_facts(sources, tfgpu_version=__version__)
    diagnosis = diagnose(facts)
    if args.json:
        env.stdout.write(render_json(diagnosis))
    elif args.markdown:
        from tfgpu.report.markdown import Redactions, render_markdown

        env.stdout.write(render_markdown(diagnosis, Redactions(env.user, env.host)))
    else:
        from tfgpu.report.text import make_console, render_text  # rich loads only for humans

        render_text(diagnosis, make_console(env.stdout, color=env.color), static=True)
    return ExitStatus.FINDINGS_ERROR if diagnosis.problems(strict=args.strict) else ExitStatus.SUCCESS
