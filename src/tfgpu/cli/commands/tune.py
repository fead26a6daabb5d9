"""``tfgpu tune script.py``: find the fastest way to train the script's model on this GPU."""

from __future__ import annotations

import argparse
import time

from tfgpu.cli.argtypes import positive_seconds, python_interpreter, whole
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.exit_status import ExitStatus
from tfgpu.model.errors import UsageError
from tfgpu.model.tune import Trial, TrialOutcome
from tfgpu.tuning.api import script_baseline, search_script
from tfgpu.tuning.search import BASELINE_MIN_SECONDS

TEMPLATE = """# A script for `tfgpu tune`: two functions, nothing runs at import.
import numpy as np
import keras

def build_model():                      # an uncompiled Keras model
    return keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Flatten(), keras.layers.Dense(10, activation="softmax")])

def make_dataset():                     # (x, y) NumPy arrays, or an unbatched tf.data.Dataset (one epoch)
    return np.random.rand(60000, 28, 28, 1).astype("float32"), np.random.randint(0, 10, 60000)

COMPILE = {"optimizer": "adam", "loss": "sparse_categorical_crossentropy"}   # optional (the model ends in softmax)
BASELINE = {"batch_size": 64}                                               # optional: your current setting
"""


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
    """Search, printing each trial as it ends, then the winner and the code change."""
    if args.template:
        env.stdout.write(TEMPLATE)
        return ExitStatus.SUCCESS
    if not args.script:
        raise UsageError("give a script (tfgpu tune --template prints one)")
    try:
        baseline = script_baseline(args.script, args.batch_size)
    except OSError as exc:
        raise UsageError(f"{args.script}: {exc.strerror or exc}") from None
    except (SyntaxError, ValueError, TypeError) as exc:
        raise UsageError(f"{args.script}: {exc}") from None
    if args.budget < BASELINE_MIN_SECONDS:
        env.stderr.write(
            f"tfgpu tune: --budget {args.budget:g} s is shorter than one trial: the start (which imports TensorFlow) "
            f"gets up to {BASELINE_MIN_SECONDS:.0f} s whatever the budget, and nothing else is tried\n"
        )
    nvml = env.nvml_factory()
    from tfgpu.report.tune import TRIAL_COLUMNS, best_so_far_line, render_tune_json, trial_row, tune_conclusion

    console = env.error_console if args.json else env.console
    console.print(" | ".join((*TRIAL_COLUMNS, "budget")), highlight=False, markup=False, style="bold")
    first: list[Trial] = []  # the first best is the start: later ones are put against it

    started = time.monotonic()

    def show(trial: Trial) -> None:
        left = max(0.0, args.budget - (time.monotonic() - started))
        console.print(" | ".join(trial_row(trial)) + f" | {left:.0f} s left", highlight=False, markup=False)
        console.file.flush()  # piped (| tee), each trial shows as it ends, not when the budget is spent

    def announce(best: Trial) -> None:
        first[:] = first or [best]
        console.print(best_so_far_line(best, first[0]), highlight=False, markup=False, style="green")
        console.file.flush()

    report = search_script(
        args.script,
        baseline,
        runner=env.worker_factory("tune", args.python),
        nvml=nvml,
        environ=env.environ,
        command_runner=env.runner_factory(),
        budget_seconds=args.budget,
        on_trial=show,
        on_best=announce,
        around_trial=lambda step: env.progress(f"trial: {step}"),
    )
    if args.json:
        env.stdout.write(render_tune_json(report))
    else:
        for line in tune_conclusion(report):
            console.print(line, markup=False)
    return ExitStatus.SUCCESS if report.best.outcome is TrialOutcome.OK else ExitStatus.ERROR
