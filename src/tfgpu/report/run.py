"""``tfgpu run``'s closing lines: the exit status, time, GPU use, then the verdicts."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from tfgpu.model.codec import encode
from tfgpu.model.documents import Document
from tfgpu.model.phases import Phase, PhaseTimes
from tfgpu.model.run import RunReport
from tfgpu.model.samples import JudgedFrom
from tfgpu.report.envelope import command_document, render_document
from tfgpu.report.monitor import verdict_text
from tfgpu.report.words import byte_size
from tfgpu.report.xla_cache import cache_use_line


def run_summary(report: RunReport) -> Group:
    """The summary printed on stderr after the command ends (its own output went through untouched)."""
    util = (
        f", GPU busy {report.mean_utilization_percent:.0f}% on average"
        + (f" (peak {report.peak_utilization_percent:.0f}%)" if report.peak_utilization_percent is not None else "")
        if report.mean_utilization_percent is not None
        else ""
    )
    peak = f", peak GPU memory {report.peak_memory_bytes / 2**30:.1f} GiB" if report.peak_memory_bytes else ""
    if report.host_memory_peak_bytes:
        peak += f", peak host memory {byte_size(report.host_memory_peak_bytes)}"
    head = Text(f"\n[tfgpu run] exit status {report.exit_status} after {report.seconds:.1f} s{util}{peak}")
    line = (
        cache_use_line(report.xla_cache, report.xla_cache_directory)
        if report.xla_cache is not None and report.xla_cache_directory is not None
        else None
    )
    cache = [Text(line, style="cyan")] if line else []
    phases = phase_lines(report.phases, report.judged_from, report.tracing_seconds)
    return Group(head, *cache, *phases, verdict_text(report.verdicts))


def phase_lines(
    phases: PhaseTimes | None, judged_from: JudgedFrom = JudgedFrom.TRAINING, tracing_seconds: float | None = None
) -> list[Text]:
    """Where the time went, one phase a line (seconds and share), or that no training phase was seen.

    ``tracing_seconds`` (TensorFlow's own counter of tf.function graph building) splits the first
    step's tracing from its compilation, and is the one phase a custom loop reports.
    """
    tracing = (
        [Text(f"  tf.function tracing, in the whole run (TensorFlow's counter) {tracing_seconds:8.1f} s")]
        if tracing_seconds is not None
        else []
    )
    if phases is None:
        return [
            Text(
                "Phases: no Keras fit() was seen (a custom loop, or it ended before training): "
                f"the GPU is judged from {judged_from.value}",
                style="dim",
            ),
            *tracing,
        ]
    total = phases.total or 1.0
    rate = f", {phases.steps_per_second:.1f} steps/s after the first" if phases.steps_per_second else ""
    epochs = f"{phases.epochs} epoch{'s' if phases.epochs != 1 else ''}, " if phases.epochs else ""
    lines = [Text(f"Where the time went ({epochs}{phases.steps} training steps{rate}):")]
    for phase, seconds in phases.seconds:
        steps = f" ({phases.steps} steps)" if phase is Phase.TRAINING and phases.steps else ""
        lines.append(Text(f"  {phase.value:<44} {seconds:8.1f} s {seconds / total:5.0%}{steps}"))
    if len(phases.epoch_seconds) > 1:
        first, rest = phases.epoch_seconds[0], sorted(phases.epoch_seconds[1:])
        lines.append(Text(f"  first epoch {first:.1f} s, later epochs {rest[len(rest) // 2]:.1f} s (median)"))
    return lines + tracing


def run_document(report: RunReport) -> dict[str, Any]:
    """The JSON contract of ``tfgpu run --json``: the report, with seconds per phase keyed by the phase's name."""
    body = encode(report)
    body["judged_from"] = report.judged_from.name.lower()
    if report.phases is not None:
        body["phases"] = {
            "seconds": {phase.name.lower(): round(seconds, 3) for phase, seconds in report.phases.seconds},
            "steps": report.phases.steps,
            "epochs": report.phases.epochs,
            "epoch_seconds": [round(seconds, 3) for seconds in report.phases.epoch_seconds],
            "steps_per_second": report.phases.steps_per_second,
        }
    return command_document(Document.RUN, body)


def render_run_json(report: RunReport) -> str:
    """``run --json FILE``'s document (written to that file: stdout and stderr are the command's)."""
    return render_document(run_document(report))
