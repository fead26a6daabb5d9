"""The tuning report: every trial, the winner, the code change."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from tfgpu.model.codec import encode
from tfgpu.model.documents import Document
from tfgpu.model.tune import Trial, TrialOutcome, TuneReport, TuneResult
from tfgpu.report.envelope import command_document, render_document
from tfgpu.report.sanitize import printable

if TYPE_CHECKING:
    from rich.console import Console


def describe(trial: Trial) -> str:
    """The configuration in one short line."""
    c = trial.config
    fused = ", fused BN" if c.batchnorm == "fused" else ""
    return f"batch {c.batch_size}, {c.input}, {c.precision}, jit={c.jit_compile}, spe={c.steps_per_execution}, {c.allocator}{fused}"


TRIAL_COLUMNS = ("step", "configuration", "samples/s", "spread", "GPU busy", "warm-up", "outcome", "reason")
"""The header of the live table, one name per field of ``trial_row``."""


def trial_row(trial: Trial) -> tuple[str, ...]:
    """One row of the live table."""
    rate = f"{trial.samples_per_second:,.0f}" if trial.samples_per_second else "-"
    util = f"{trial.utilization_percent:.0f}%" if trial.utilization_percent is not None else "-"
    warmup = f"{trial.warmup_seconds:.1f} s" if trial.warmup_seconds is not None else "-"
    spread = f"±{trial.spread / 2:.0%}" if trial.spread is not None else "-"
    return (trial.step, describe(trial), rate, spread, util, warmup, trial.outcome.value, printable(trial.reason))


def trial_count(result: TuneResult) -> str:
    """How many trials ran and how many the budget left out: "12 trials ran, 2 skipped"."""
    skipped = sum(t.outcome is TrialOutcome.SKIPPED for t in result.trials)
    ran = len(result.trials) - skipped
    return f"{ran} trial{'s' if ran != 1 else ''} ran" + (f", {skipped} skipped," if skipped else "")


def winner_line(result: TuneResult) -> str:
    """The verdict: the winner, its rate and its speedup over the start (or why there is none)."""
    best, start = result.best, result.baseline
    ran = sum(t.outcome is not TrialOutcome.SKIPPED for t in result.trials)
    if ran <= 1:
        return (
            f"Only the starting configuration was measured ({trial_count(result)} in {result.seconds:.0f} s): "
            "nothing to compare it with"
        )
    if best.config != start.config and not result.beats_noise:
        return (
            f"No change measured beyond the noise: the fastest, {describe(best)}, ran {result.lead or 0:.2f}x the "
            f"start by its lower figure, within ±{result.noise:.0%}; {trial_count(result)} in {result.seconds:.0f} s"
        )
    measured = "" if start.config == result.start_config else " without XLA"
    against = (
        f"{result.speedup:.2f}x the starting configuration{measured} ({start.samples_per_second:,.0f} samples/s)"
        if result.speedup
        else f"the starting configuration gave no figure ({start.outcome.value}: {printable(start.reason)})"
    )
    spread = f" (±{best.spread / 2:.0%} between epochs)" if best.spread is not None else ""  # half the IQR
    return (
        f"Winner: {describe(best)}: {best.samples_per_second or 0:,.0f} samples/s{spread}, {against}; "
        f"{trial_count(result)} in {result.seconds:.0f} s"
    )


def confirmation_line(result: TuneResult) -> str | None:
    """The winner measured again in a fresh process: the figure to expect and the noise a gain must beat."""
    again = result.confirmation
    if again is None:
        return None
    if again.outcome is not TrialOutcome.OK or not again.samples_per_second or not result.best.samples_per_second:
        return f"Not measured again in a fresh TensorFlow process ({again.outcome.value}: {printable(again.reason)})."
    change = again.samples_per_second / result.best.samples_per_second - 1
    noise = result.process_noise or 0.0
    line = (
        f"Measured again in a fresh TensorFlow process: {again.samples_per_second:,.0f} samples/s ({change:+.1%}); "
        f"differences under {max(noise, 0.01):.0%} are noise between processes"
    )
    start = result.baseline.samples_per_second
    if start:  # judged by the lower of the winner's two figures: the one a user can count on
        lead = min(again.samples_per_second, result.best.samples_per_second) / start
        if lead - 1 <= noise:
            line += f", and the winner's lead over the start ({lead:.2f}x by its lower figure) is within it"
    return line + "."


def best_so_far_line(best: Trial, start: Trial | None) -> str:
    """The recommendation while the search goes on."""
    gain = (
        f", {best.samples_per_second / start.samples_per_second:.2f}x the start"
        if start is not None and start.samples_per_second and best.samples_per_second
        else ""
    )
    return f"  best so far: {describe(best)}: {best.samples_per_second or 0:,.0f} samples/s{gain}"


class LiveTrials:
    """The live table of ``tfgpu tune``: a header, each trial as it ends with the budget left, each new best.

    Each line is flushed as it is printed, so a piped run (``| tee``) shows a trial when it ends, not
    when the budget is spent; the first best is the start, which later bests are put against.
    """

    def __init__(self, console: Console, budget_seconds: float) -> None:
        self.console, self.budget = console, budget_seconds
        self.started = time.monotonic()
        self.start: Trial | None = None
        self._say(" | ".join((*TRIAL_COLUMNS, "budget")), style="bold")

    def trial(self, trial: Trial) -> None:
        """One trial that ended."""
        left = max(0.0, self.budget - (time.monotonic() - self.started))
        self._say(" | ".join(trial_row(trial)) + f" | {left:.0f} s left")

    def best(self, best: Trial) -> None:
        """A new best configuration."""
        self.start = self.start or best
        self._say(best_so_far_line(best, self.start), style="green")

    def conclude(self, lines: list[str]) -> None:
        """The lines after the trials (``tune_conclusion``)."""
        for line in lines:
            self._say(line)

    def _say(self, line: str, style: str = "") -> None:
        self.console.print(line, highlight=False, markup=False, style=style)
        self.console.file.flush()


def tune_conclusion(report: TuneReport) -> list[str]:
    """The lines after the trials: the winner, its confirmation, the code change, then the notes."""
    result = report.result
    if result.best.outcome is not TrialOutcome.OK:
        return [f"The starting configuration failed: {printable(result.best.reason)}"]
    processes = f"{report.processes} TensorFlow process{'es' if report.processes != 1 else ''}"
    lines = [f"\n{winner_line(result)}, in {processes}"]
    confirmed = confirmation_line(result)
    if confirmed:
        lines.append(confirmed)
    lines.append("\n" + (report.code_change or "Keep your configuration: nothing tried was faster beyond the noise."))
    return lines + ["\n" + note for note in report.notes]


def render_tune_json(report: TuneReport) -> str:
    """``--json``."""
    result = report.result
    body = {
        **encode(result),
        "speedup": result.speedup,
        "tensorflow_processes": report.processes,
        "code_change": report.code_change,
        "batch_caveat": report.batch_caveat,
        "xla_break_even": report.xla_note,
        "precision_note": report.precision_note,
        "batchnorm_note": report.batchnorm_note,
        "process_noise": result.process_noise,
        "noise": result.noise,
        "beats_noise": result.beats_noise,
    }
    return render_document(command_document(Document.TUNE, body))
