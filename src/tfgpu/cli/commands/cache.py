"""``tfgpu cache``: what the persistent XLA cache holds, for which versions, and what recent runs did with it."""

from __future__ import annotations

import argparse

from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.xlacache.listing import read_cache


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--clear`` and ``--json``."""
    parser.add_argument(
        "--clear", action="store_true", help="delete every cached program (the next runs compile again)"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """List (after clearing, with --clear); exit 0."""
    listing = read_cache(env.environ, clear_first=args.clear)
    if args.json:
        from tfgpu.report.xla_cache import render_cache_json

        env.stdout.write(render_cache_json(listing))
    else:
        from tfgpu.report.xla_cache import cache_listing

        env.console.print(cache_listing(listing))
    return ExitStatus.SUCCESS
