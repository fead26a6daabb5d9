"""``tfgpu tune script.py``: find the fastest way to train the script's model on this GPU."""

from __future__ import annotations

import argparse

from tfgpu.cli.argtypes import positive_seconds, python_interpreter, whole
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.model.errors import UsageError
from tfgpu.model.tune import TrialOutcome
from tfgpu.tuning.api import SCRIPT_TEMPLATE, tune_script


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``tfgpu tune``."""
    parser.add_argument("script", nargs="?", help="a script with build_model() and make_dataset() (see --template)")
    parser.add_argument(
        "--budget",
        type=positive_seconds,
        default=600.0,
        metavar="SECONDS",
        help="the time limit: each trial gets the time left, none starts that cannot finish",
    )
    parser.add_argument(
        "--batch-size",
        type=whole(1, 2**20, "samples"),
        help="the starting batch size (default: the script's BASELINE or 64)",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--template", action="store_true", help="print a script template and exit")
    parser.add_argument(
        "--python",
        metavar="PATH",
        type=python_interpreter,
        help="run the trials with another interpreter (a venv or conda directory works too)",
    )


def run(args: argparse.Namespace, env: CliEnvironment) -> int:
    """Search, printing each trial as it ends, then the winner and the code change; exit 1 when the start failed."""
    if args.template:
        env.stdout.write(SCRIPT_TEMPLATE)
        return ExitStatus.SUCCESS
    if not args.script:
        raise UsageError("give a script (tfgpu tune --template prints one)")
    from tfgpu.report.tune import LiveTrials, render_tune_json, tune_conclusion

    live = LiveTrials(env.error_console if args.json else env.console, args.budget)
    report = tune_script(
        args.script,
        batch_size=args.batch_size,
        runner=env.worker_factory("tune", args.python),
        nvml=env.nvml_factory(),
        environ=env.environ,
        command_runner=env.runner_factory(),
        budget_seconds=args.budget,
        inform=lambda text: env.stderr.write(f"tfgpu tune: {text}\n"),
        on_trial=live.trial,
        on_best=live.best,
        around_trial=lambda step: env.progress(f"trial: {step}"),
    )
    if args.json:
        env.stdout.write(render_tune_json(report))
    else:
        live.conclude(tune_conclusion(report))
    return ExitStatus.SUCCESS if report.result.best.outcome is TrialOutcome.OK else ExitStatus.ERROR
