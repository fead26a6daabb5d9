"""The packaged CSV tables of knowledge/data, read once each."""

from __future__ import annotations

import csv
import functools
import io
from importlib import resources


@functools.cache
def csv_rows(name: str) -> tuple[dict[str, str], ...]:
    """The rows of ``knowledge/data/<name>`` as dicts keyed by its header."""
    text = resources.files("tfgpu.knowledge").joinpath("data").joinpath(name).read_text(encoding="utf-8")
    return tuple(csv.DictReader(io.StringIO(text)))
