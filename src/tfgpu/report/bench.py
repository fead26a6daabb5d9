"""The benchmark table for humans, and the JSON contract."""

from __future__ import annotations

from rich.table import Table

from tfgpu.model.bench import BenchEntry, BenchRun
from tfgpu.model.codec import encode
from tfgpu.model.documents import Document
from tfgpu.report.envelope import command_document, render_document
from tfgpu.report.text import add_cells, styled


def bench_table(bench: BenchRun) -> Table:
    """One row per workload: figure, share of the datasheet peak, numerical error (and the ratio to a saved run)."""
    result, ratios = bench.result, bench.ratios
    table = Table(
        title=styled(f"tfgpu bench --suite {result.suite} on {result.gpu_name or 'no GPU'}"), header_style="bold"
    )
    for column in (
        "workload",
        "result",
        "of peak",
        "of best seen",
        "rel. error",
        *(("vs old",) if ratios else ()),
        "note",
    ):
        table.add_column(column, no_wrap=column != "note")
    for e in result.entries:
        value = f"{e.value:,.1f} {e.unit}" if e.ok and e.value is not None else "failed"
        share = f"{e.fraction_of_peak:.0%} of {e.peak:g}" if e.fraction_of_peak is not None and e.peak else "-"
        best = f"{e.value / e.best_measured:.0%}" if e.ok and e.value and e.best_measured else "-"
        error = f"{e.relative_error:.1e}" if e.relative_error is not None else "-"
        extra = (f"{ratios[e.name]:.2f}x" if e.name in ratios else "-",) if ratios else ()
        add_cells(table, e.name, value, share, best, error, *extra, e.error or _note(e))
    if result.peaks_source:
        table.caption = (
            f"peaks: dense datasheet figures, {result.peaks_source}; best seen: tfgpu's best recorded run on this "
            "GPU model; first epoch: tracing, autotuning and XLA compilation"
        )
    return table


def _note(e: BenchEntry) -> str:
    """The device, and what a reader compares next: the GPU's speedup, or the first epoch's cost."""
    parts = [e.device]
    if e.gpu_speedup is not None:
        parts.append(f"GPU {e.gpu_speedup:,.0f}x faster")
    if e.scaling_efficiency is not None:
        parts.append(f"scaling {e.scaling_efficiency:.0%} of linear")
    if e.first_epoch_seconds is not None:
        parts.append(f"first epoch {e.first_epoch_seconds:.1f} s")
    if e.ok and e.value and e.peer and e.peer_framework:
        parts.append(f"{e.value / e.peer:.2f} of {e.peer_framework} on this GPU ({e.peer:,.0f})")
    return "; ".join(p for p in parts if p)


def render_bench_json(bench: BenchRun) -> str:
    """``--json``: entries with name, value, unit, peak (and ``compare``: the ratios to a saved run)."""
    body = {**encode(bench.result), **({"compare": dict(bench.ratios)} if bench.ratios else {})}
    return render_document(command_document(Document.BENCH, body))
