"""``tfgpu env``: the environment lines for ``eval "$(tfgpu env)"`` (static facts, no TensorFlow)."""

from __future__ import annotations

import argparse

from tfgpu._version import __version__
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.doctor.collect import collect_facts
from tfgpu.knowledge.fixes import fix_env_lines, not_installed, nothing_to_fix, unnameable_note
from tfgpu.report.sanitize import printable


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``tfgpu env`` takes no options."""


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Print ``export`` lines only (comments go to stderr), so the output can be eval'ed."""
    facts = collect_facts(env.sources(), tfgpu_version=__version__)
    lines = fix_env_lines(facts)
    env.stdout.write("".join(line + "\n" for line in lines))
    if not lines:
        env.stderr.write(f"tfgpu env: nothing to change: {printable(nothing_to_fix(facts))}\n")
    else:
        for note in (not_installed(facts), unnameable_note(facts)):
            if note:
                env.stderr.write(f"tfgpu env: also, {printable(note)}\n")
    return ExitStatus.SUCCESS
