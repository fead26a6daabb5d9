"""``tfgpu env``: the environment lines for ``eval "$(tfgpu env)"`` (static facts, no TensorFlow)."""

from __future__ import annotations

import argparse

from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.doctor.examine import env_fix, static_facts
from tfgpu.report.env_fix import fix_lines, fix_notes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``tfgpu env`` takes no options."""


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Print ``export`` lines only (comments go to stderr), so the output can be eval'ed."""
    fix = env_fix(static_facts(env.sources()))
    env.stdout.write(fix_lines(fix))
    env.stderr.write("".join(f"tfgpu env: {note}\n" for note in fix_notes(fix)))
    return ExitStatus.SUCCESS
