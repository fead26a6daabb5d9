"""What ``tfgpu explain`` found in a log."""

from __future__ import annotations

from dataclasses import dataclass

from tfgpu.model.findings import Severity


@dataclass(frozen=True)
class QuotedLine:
    """A line of the log, by its 1-based number."""

    line_number: int
    text: str


@dataclass(frozen=True)
class Problem:
    """One distinct message class found in the log, with its cause and the fix for this machine."""

    id: str
    category: str
    title: str
    severity: Severity
    benign: bool
    cause: str
    fix: str
    sources: tuple[str, ...]
    count: int
    lines: tuple[QuotedLine, ...]


@dataclass(frozen=True)
class Explanation:
    """Problems most important first, then the harmless lines, and what was read."""

    problems: tuple[Problem, ...]
    harmless: tuple[Problem, ...]
    lines_read: int
    bytes_read: int
    long_lines_cut: int
    os: str | None
    tf_version: str | None
