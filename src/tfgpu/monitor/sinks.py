"""CSV and JSON-lines writers for samples (one row per GPU per poll), and the files ``tfgpu monitor`` appends to."""

from __future__ import annotations

import csv
import dataclasses
import errno
import json
import os
from collections.abc import Callable
from typing import Any, TextIO

from tfgpu.model.errors import DiagnosticError, UsageError
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


def _open_append(path: str) -> tuple[TextIO, bool]:
    """The file appended to, and whether it was empty (a CSV header then); a symbolic link is refused.

    A link in a shared directory would make tfgpu append to whatever it points at.
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        why = "it is a symbolic link: give the file itself" if exc.errno == errno.ELOOP else exc.strerror or exc
        raise UsageError(f"cannot write {path}: {why}") from None
    return os.fdopen(fd, "a", encoding="utf-8"), os.fstat(fd).st_size == 0


class FileSinks:
    """``--csv`` and ``--jsonl``: each sample to every file asked for; a write that fails stops sampling in words."""

    def __init__(self, csv_path: str | None, jsonl_path: str | None) -> None:
        self._files: list[tuple[TextIO, str]] = []
        self._sinks: list[tuple[Callable[[GpuSample], None], str]] = []
        if csv_path:
            stream, empty = _open_append(csv_path)
            self._files.append((stream, csv_path))
            self._sinks.append((CsvSink(stream, header=empty), csv_path))
        if jsonl_path:
            try:
                stream, _ = _open_append(jsonl_path)
            except UsageError:
                self.close()
                raise
            self._files.append((stream, jsonl_path))
            self._sinks.append((JsonlSink(stream), jsonl_path))

    def add(self, sink: Callable[[GpuSample], None], label: str) -> None:
        """One more sink (the Prometheus exposition), named by ``label`` if it fails."""
        self._sinks.append((sink, label))

    def __call__(self, sample: GpuSample) -> None:
        """Hand the sample to every sink.

        Raises:
            DiagnosticError: a file cannot be written (a full disk): the readings would be lost.
        """
        for sink, label in self._sinks:
            try:
                sink(sample)
            except OSError as exc:
                raise _write_failed(label, exc) from None

    def close(self) -> None:
        """Close the files; one that cannot be flushed is said, like a failed write."""
        for stream, path in self._files:
            try:
                stream.close()
            except OSError as exc:
                raise _write_failed(path, exc) from None


def _write_failed(path: str, exc: OSError) -> DiagnosticError:
    return DiagnosticError("monitor-output-lost", f"cannot write {path}: {exc.strerror or exc}; sampling stopped")
