"""``tfgpu env``: the environment lines for ``eval "$(tfgpu env)"`` (static facts, no TensorFlow)."""

from __future__ import annotations

import argparse

from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.doctor.examine import env_fix, static_facts
from tfgpu.report.sanitize import printable


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``tfgpu env`` takes no options."""


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Print ``export`` lines only (comments go to stderr), so the output can be eval'ed."""
    fix = env_fix(static_facts(env.sources()))
    env.stdout.write("".join(line + "\n" for line in fix.lines))
    if not fix.lines:
        env.stderr.write(f"tfgpu env: nothing to change: {printable(fix.nothing_to_fix)}\n")
    for note in fix.notes:
        env.stderr.write(f"tfgpu env: also, {printable(note)}\n")
    return ExitStatus.SUCCESS
