"""Shared by tune_mnist.py and tune_resnet50.py: hand-picked configurations against `tune`'s winner.

Both run the same example script through the same trial runner, so the hand figures and the
search's are measured the same way, in the same run; the search gets a TensorFlow child of its
own (as a user's `tfgpu tune` would: it pays the import), built by the same call `tfgpu tune` makes
(``search_script``, with tfgpu's XLA cache and its compile lever: without them Keras 3's ResNet-50
spent the XLA trial's whole 90 s compiling on the H200 on 2026-12-04). The target (issue 15): the winner
reaches >= 0.9 of the best hand configuration within the budget, and the first recommendation
is printed within 60 s. ``--hand-from`` reuses hand figures measured earlier in the same session (a device
call is limited to 10 minutes).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

from tfgpu.model.tune import Trial, TrialConfig
from tfgpu.nvml.client import PynvmlClient
from tfgpu.probe.runner import worker_runner
from tfgpu.report.tune import confirmation_line, trial_row, winner_line
from tfgpu.system.runner import SubprocessRunner
from tfgpu.tuning.api import script_baseline, search_script
from tfgpu.tuning.run import TrialRunner

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
HAND_TIMEOUT_SECONDS = 300.0


def _print(trial: Trial) -> None:
    print(" | ".join(trial_row(trial)), flush=True)


def _trial_runner(script: str, nvml: PynvmlClient) -> TrialRunner:
    """Hand trials in the runner `tfgpu tune` uses: the same XLA cache and compile lever as the search."""
    return TrialRunner(script, worker_runner("tune"), nvml, dict(os.environ), command_runner=SubprocessRunner())


def main(example: str, hand: list[TrialConfig], doc: str) -> None:
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--budget", type=float, default=600.0, metavar="SECONDS")
    parser.add_argument("--hand-from", metavar="JSON", help="hand trials measured earlier (this script's --json)")
    parser.add_argument("--skip-tune", action="store_true", help="measure the hand configurations only")
    parser.add_argument(
        "--repeat",
        type=int,
        default=0,
        metavar="N",
        help="then measure the best hand configuration in N fresh children: the run-to-run noise",
    )
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    script = str(EXAMPLES / example)
    nvml = PynvmlClient()
    doc_out: dict[str, object] = {"example": example}
    if args.hand_from:
        hand_rows = json.loads(Path(args.hand_from).read_text())["hand"]
    else:
        print("hand-picked configurations:")
        hand_rows = []
        with _trial_runner(script, nvml) as measure:
            for config in hand:
                trial = measure("hand", config, HAND_TIMEOUT_SECONDS)
                _print(trial)
                hand_rows.append(
                    {
                        "config": dataclasses.asdict(config),
                        "samples_per_second": trial.samples_per_second,
                        "spread": trial.spread,
                    }
                )
    doc_out["hand"] = hand_rows
    measured = [r for r in hand_rows if r["samples_per_second"]]
    if not measured:
        sys.exit("no hand configuration ran: nothing to compare the search with")
    best_hand = max(measured, key=lambda r: r["samples_per_second"])
    print(f"best hand configuration: {best_hand['config']} {best_hand['samples_per_second']:,.0f} samples/s")
    if not args.skip_tune:
        print(f"tune, budget {args.budget:.0f} s:")
        start = time.monotonic()
        bests: list[tuple[float, float]] = []

        def best_so_far(trial: Trial) -> None:
            bests.append((time.monotonic() - start, trial.samples_per_second or 0.0))
            print(f"  {bests[-1][0]:.0f} s: best so far {trial.samples_per_second:,.0f} samples/s", flush=True)

        report = search_script(
            script,
            script_baseline(script, None),
            runner=worker_runner("tune"),
            nvml=nvml,
            environ=dict(os.environ),
            command_runner=SubprocessRunner(),
            budget_seconds=args.budget,
            on_trial=_print,
            on_best=best_so_far,
        )
        result = report.result
        wall = time.monotonic() - start
        print(f"first recommendation after {bests[0][0]:.0f} s (target <= 60 s)" if bests else "no recommendation")
        print(f"TensorFlow processes: {report.processes}")
        ratio = (result.best.samples_per_second or 0.0) / best_hand["samples_per_second"]
        print(f"tune {winner_line(result)}")
        print(f"winner / best hand = {ratio:.2f} (target >= 0.9) {'MET' if ratio >= 0.9 else 'NOT MET'}")
        print(f"code change: {report.code_change or '(none: keep the configuration)'}")
        for note in (confirmation_line(result), report.batchnorm_note, report.xla_note, report.precision_note):
            if note:
                print(note)
        doc_out.update(
            winner=dataclasses.asdict(result.best.config),
            winner_samples_per_second=result.best.samples_per_second,
            baseline_samples_per_second=result.baseline.samples_per_second,
            ratio_to_hand=ratio,
            seconds=wall,
            best_so_far=bests,
            tensorflow_processes=report.processes,
            code_change=report.code_change,
            process_noise=result.process_noise,
            trials=[{**dataclasses.asdict(t), "config": dataclasses.asdict(t.config)} for t in result.trials],
        )
    if args.repeat:
        config = TrialConfig(**best_hand["config"])
        rates = []
        for _ in range(args.repeat):  # a fresh child each time: between processes, not between epochs
            with _trial_runner(script, nvml) as measure:
                trial = measure("repeat", config, HAND_TIMEOUT_SECONDS)
            _print(trial)
            rates.append(trial.samples_per_second or 0.0)
        low, high = min(rates), max(rates)
        spread = f"{(high - low) / low:.1%}" if low else "a child failed"
        print(f"run to run, {args.repeat} children: {low:,.0f}-{high:,.0f} samples/s ({spread})")
        doc_out["repeat"] = rates
    if args.json:
        Path(args.json).write_text(json.dumps(doc_out, indent=2))
    sys.stdout.flush()
