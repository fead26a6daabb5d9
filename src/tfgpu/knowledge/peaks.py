"""Datasheet peaks by GPU model (data/gpu_peaks.csv, a source URL per row): what a benchmark is measured against."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from tfgpu.knowledge.tables import csv_rows

_DTYPE_COLUMN = {
    "float64": "fp64_tflops",
    "float32": "fp32_tflops",
    "tf32": "tf32_tflops",
    "bfloat16": "bf16_tflops",
    "float16": "fp16_tflops",
}


@dataclass(frozen=True)
class GpuPeaks:
    """Dense peak rates of one model."""

    model: str
    tflops: dict[str, float]
    memory_gbps: float | None
    source_url: str


@functools.cache
def _table() -> tuple[GpuPeaks, ...]:
    out = []
    for row in csv_rows("gpu_peaks.csv"):
        tflops = {dtype: float(row[col]) for dtype, col in _DTYPE_COLUMN.items() if row[col]}
        out.append(
            GpuPeaks(
                row["gpu_model"], tflops, float(row["memory_gbps"]) if row["memory_gbps"] else None, row["source_url"]
            )
        )
    return tuple(out)


def peaks_for(gpu_name: str) -> GpuPeaks | None:
    """The row for an NVML product name ("NVIDIA H200"), exact first, then the longest contained name.

    Examples:
        >>> peaks_for("NVIDIA H200").memory_gbps
        4800.0
    """
    rows = _table()
    exact = next((r for r in rows if r.model == gpu_name), None)
    if exact:
        return exact
    contained = [r for r in rows if r.model in gpu_name or gpu_name in r.model]
    return max(contained, key=lambda r: len(r.model)) if contained else None


def peak_for(peaks: GpuPeaks | None, kind: str, dtype: str | None, tf32: bool = True) -> float | None:
    """The peak a result of this kind and dtype is compared with (TFLOP/s or GB/s)."""
    if peaks is None:
        return None
    if kind == "copy":
        return peaks.memory_gbps
    if dtype == "float32" and tf32:
        return peaks.tflops.get("tf32") or peaks.tflops.get("float32")
    return peaks.tflops.get(dtype or "float32")
