"""CSV and JSON-lines writers for samples (one row per GPU per poll)."""

from __future__ import annotations

import csv
import dataclasses
import json
from typing import Any, TextIO

from tfgpu.model.samples import GpuSample

FIELDS = tuple(f.name for f in dataclasses.fields(GpuSample))


def _row(sample: GpuSample) -> dict[str, Any]:
    row = dataclasses.asdict(sample)
    row["throttle_reasons"] = "|".join(sample.throttle_reasons)
    return row


class CsvSink:
    """Writes a header (into an empty file only: a second run appends rows), then one row per sample, each flushed."""

    def __init__(self, stream: TextIO, header: bool = True) -> None:
        self.stream = stream
        self.writer = csv.DictWriter(stream, fieldnames=FIELDS)
        if header:
            self.writer.writeheader()

    def __call__(self, sample: GpuSample) -> None:
        """Write one sample."""
        self.writer.writerow(_row(sample))
        self.stream.flush()


class JsonlSink:
    """One JSON object per line per sample."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def __call__(self, sample: GpuSample) -> None:
        """Write one sample."""
        row = dataclasses.asdict(sample)
        row["throttle_reasons"] = list(sample.throttle_reasons)
        self.stream.write(json.dumps(row) + "\n")
        self.stream.flush()
