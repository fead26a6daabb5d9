"""``tfgpu doctor``: collect, check (starting TensorFlow in a child unless --static) and report."""

from __future__ import annotations

import argparse
import json
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

from tfgpu._version import __version__
from tfgpu.cli.argtypes import positive_seconds, python_interpreter
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.doctor.collect import Sources, collect_facts
from tfgpu.doctor.diagnose import diagnose
from tfgpu.knowledge.fixes import export_line, install_tf_with_cuda, unnameable_dirs, unreachable_dirs
from tfgpu.model.codec import map_leaves
from tfgpu.model.errors import UsageError
from tfgpu.model.facts import Facts, LibraryFacts
from tfgpu.probe.collect import run_interpreter_probe, run_tensorflow_probe
from tfgpu.probe.runner import DEFAULT_TIMEOUT_SECONDS
from tfgpu.report.json import facts_from_document, render_json
from tfgpu.report.sanitize import printable
from tfgpu.system.files import read_regular, write_new


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
        default=DEFAULT_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help=f"kill the TensorFlow probe after this long (default {DEFAULT_TIMEOUT_SECONDS:.0f})",
    )


def static_facts(
    env: CliEnvironment, search_path: list[str] | None = None, interpreter: dict[str, Any] | None = None
) -> Facts:
    """The doctor's facts about this machine (no TensorFlow started), for doctor, env and explain."""
    sources = Sources(
        runner=env.runner_factory(), nvml=env.nvml_factory(), environ=env.environ, search_path=search_path
    )
    return collect_facts(sources, tfgpu_version=__version__, interpreter=interpreter)


MAX_REPORT_BYTES = 16 * 2**20
"""A real report is tens of KiB; anything this large is not one (and would be slow to render)."""
MAX_STRING_CHARS = 4096


def _bounded_leaf(value: Any) -> Any:
    """A string of a loaded report cut to MAX_STRING_CHARS (a 100-MB GPU name is not a fact).

    Raises:
        ValueError: a number beyond 64 bits (no fact is one; it would overflow the arithmetic).
    """
    if isinstance(value, int) and abs(value) > 2**64:
        raise ValueError("a number beyond 64 bits")
    if isinstance(value, str) and len(value) > MAX_STRING_CHARS:
        return value[:MAX_STRING_CHARS] + "…"
    return value


def load_facts(path: str) -> Facts:
    """Facts from a saved ``doctor --json`` report, read within bounds.

    Raises:
        UsageError: the file is missing, too large, not JSON, or not a tfgpu report.
    """
    try:
        text = read_regular(path, MAX_REPORT_BYTES).decode("utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc} (tfgpu reports are far below 16 MiB)") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not a text file") from None
    try:
        return facts_from_document(map_leaves(json.loads(text), _bounded_leaf))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path} is not JSON: {exc}") from None
    except RecursionError:
        raise UsageError(f"{path}: nested too deeply to be a tfgpu report") from None
    except (ValueError, TypeError, OverflowError) as exc:
        raise UsageError(f"{path}: not a tfgpu report ({str(exc)[:200]})") from None


def gather(args: argparse.Namespace, env: CliEnvironment, *, probe: bool) -> Facts:
    """Static facts, then (unless ``probe`` is False) what TF does in a child process."""
    runner = env.worker_factory("probe", args.python)
    interpreter = None
    search_path = None
    if args.python:
        interpreter = run_interpreter_probe(runner, env.environ)
        if interpreter is None:
            raise UsageError(f"--python {args.python}: it did not run the probe (is it a Python 3 interpreter?)")
        search_path = [str(p) for p in interpreter.get("path", [])]
    facts = static_facts(env, search_path, interpreter)
    if not probe:
        return facts
    with env.progress(f"Starting TensorFlow in a child process (up to {args.probe_timeout:.0f} s)"):
        live = run_tensorflow_probe(runner, env.environ, timeout_seconds=args.probe_timeout, training=not args.quick)
    return replace(facts, probe=live)


def fix_env_lines(facts: Facts) -> list[str]:
    """The shell lines that make TF find installed-but-invisible libraries (empty when none are needed)."""
    libs = facts.libraries
    dirs = unreachable_dirs(libs) if isinstance(libs, LibraryFacts) else []
    return [export_line(dirs)] if dirs else []


def nothing_to_fix(facts: Facts) -> str:
    """Why no environment line is needed: TF finds everything, or what it lacks is not installed at all."""
    if facts.libraries is None:
        return "no CUDA build of TensorFlow is installed here (run `tfgpu doctor`)"
    if not isinstance(facts.libraries, LibraryFacts):
        return f"TF's libraries could not be read ({facts.libraries.reason}): run `tfgpu doctor`"
    return not_installed(facts) or unnameable_note(facts) or "TF finds every library it needs"


def unnameable_note(facts: Facts) -> str | None:
    """Directories TF needs that no LD_LIBRARY_PATH line can name (the loader splits at ``:`` and ``;`` in them)."""
    dirs = unnameable_dirs(facts.libraries) if isinstance(facts.libraries, LibraryFacts) else []
    if not dirs:
        return None
    return (
        f"no line can point at {', '.join(dirs)}: the loader splits LD_LIBRARY_PATH at ':' and ';', and a line "
        "naming it would add other, relative directories instead; install the environment under a path without them"
    )


def not_installed(facts: Facts) -> str | None:
    """The libraries TF needs that no line can make visible, because no copy is installed, and how to install them."""
    if not isinstance(facts.libraries, LibraryFacts):
        return None
    missing = [lib.soname for lib in facts.libraries.libraries if lib.required and not lib.copies]
    if not missing:
        return None
    return (
        f"{len(missing)} librar{'y' if len(missing) == 1 else 'ies'} TF needs "
        f"{'is' if len(missing) == 1 else 'are'} not installed, which no line can fix ({', '.join(missing)}): "
        f"install {'it' if len(missing) == 1 else 'them'} with {install_tf_with_cuda(facts)}"
    )


def write_lines(path: str, lines: list[str]) -> None:
    """Write the lines to a new file.

    Raises:
        UsageError: the file exists (nothing the user has is changed without asking) or cannot be written.
    """
    text = "# written by tfgpu doctor --fix-env: source it before starting TensorFlow\n"
    try:
        write_new(Path(path), text + "".join(line + "\n" for line in lines))
    except FileExistsError:
        raise UsageError(f"{path} exists; choose a new file name (tfgpu never overwrites)") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Diagnose this machine (or the saved one) and print the report."""
    if args.write and not args.fix_env:
        raise UsageError("--write needs --fix-env")
    facts = load_facts(args.from_file) if args.from_file else gather(args, env, probe=not (args.static or args.fix_env))
    if args.fix_env:
        lines = fix_env_lines(facts)
        if args.write and not lines:
            env.stderr.write(f"nothing to write: {nothing_to_fix(facts)}; {args.write} was not created\n")
        elif args.write:
            write_lines(args.write, lines)
            env.stderr.write(f"wrote {len(lines)} line(s) to {args.write}; run: source {shlex.quote(args.write)}\n")
        else:
            env.stdout.write(
                "".join(line + "\n" for line in lines) or f"# nothing to change: {nothing_to_fix(facts)}\n"
            )
        return ExitStatus.SUCCESS
    diagnosis = diagnose(facts)
    if args.json:
        env.stdout.write(render_json(diagnosis))
    elif args.markdown:
        from tfgpu.report.markdown import Redactions, render_markdown

        env.stdout.write(render_markdown(diagnosis, Redactions(env.user, env.host, env.home)))
    else:
        from tfgpu.report.text import make_console, render_text  # rich loads only for humans

        if args.from_file:
            env.stdout.write(
                f"Replayed from {printable(args.from_file)}: facts collected by tfgpu "
                f"{printable(facts.tfgpu_version or '?')} on another run; nothing was read from this machine.\n\n"
            )

        render_text(
            diagnosis,
            make_console(env.stdout, color=env.color, width=env.width(env.stdout)),
            static=facts.probe is None,
        )
    if args.exit_zero:
        return ExitStatus.SUCCESS
    return ExitStatus.FINDINGS_ERROR if diagnosis.problems(strict=args.strict) else ExitStatus.SUCCESS
