"""``tfgpu burn``'s result as text (one PASS/FAIL line per device) and as a versioned JSON document."""

from __future__ import annotations

from collections.abc import Sequence

from tfgpu.model.codec import encode
from tfgpu.model.documents import Document
from tfgpu.model.findings import Severity
from tfgpu.model.stress import GpuBurn
from tfgpu.report.envelope import command_document, render_document
from tfgpu.report.sanitize import printable


def render_burn_text(burns: Sequence[GpuBurn]) -> str:
    """A PASS/FAIL line per device with its rate, trend, heat and checks, then its findings."""
    lines = []
    for b in burns:
        verdict = "PASS" if b.passed else "FAIL"
        trend = f", {b.first_tflops:.3g} → {b.last_tflops:.3g} TFLOP/s" if b.first_tflops and b.last_tflops else ""
        temp = f", max {b.max_temperature_celsius:.0f} °C" if b.max_temperature_celsius is not None else ""
        where = "CPU" if b.index < 0 else f"GPU {b.index} {printable(b.name)}"
        lines.append(
            f"{verdict} {where}: {b.mean_tflops or 0:.3g} TFLOP/s mean over {b.seconds:.0f} s{trend}{temp}, "
            f"{b.iterations} products, {b.mismatches} mismatches{' (stopped early)' if b.stopped_early else ''}"
        )
        for f in b.findings:
            lines.append(f"   {f.severity.value}: {printable(f.summary)}")
            if f.detail and f.severity is Severity.ERROR:  # why it failed, not only that it did
                lines.append(f"     {printable(f.detail)}")
            lines += [f"     - {printable(a)}" for a in f.advice]
    return "".join(line + "\n" for line in lines)


def render_burn_json(burns: Sequence[GpuBurn]) -> str:
    """The document ``--json`` prints (``schema_version`` is the contract)."""
    return render_document(command_document(Document.BURN, {"gpus": [encode(b) for b in burns]}))
