"""How each severity looks, in every medium tfgpu writes: one table, so the four levels never drift apart."""

from __future__ import annotations

from types import MappingProxyType
from typing import NamedTuple

from tfgpu.model.findings import Severity


class Mark(NamedTuple):
    """A severity's glyph and rich style on a terminal, and its emoji in a Markdown report."""

    glyph: str
    style: str
    emoji: str


MARKS = MappingProxyType(
    {
        Severity.OK: Mark("✓", "green", "✅"),
        Severity.INFO: Mark("i", "cyan", "ℹ️"),
        Severity.WARNING: Mark("!", "yellow", "⚠️"),
        Severity.ERROR: Mark("✗", "bold red", "❌"),
    }
)
