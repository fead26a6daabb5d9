"""What ``tfgpu explain`` found in a log."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from tfgpu.model.findings import Severity


class Reading(str, Enum):
    """How a problem was told from a log, from the surest to the least sure."""

    AS_WRITTEN = "as_written"
    """A line is the signature's message as TF (or the driver, or a tool) prints it."""
    BY_WORDS = "by_words"
    """A line holds the words of one of the signature's messages, in another order or wording (a
    short paste, or an error line only the fallback knew)."""
    BY_RESEMBLANCE = "by_resemblance"
    """No line is any signature's message: the paste resembles public reports of this problem most."""


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
    reading: Reading = Reading.AS_WRITTEN
    """How it was told: a guess by resemblance is said so in the cause and here."""


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
    machine_tf_set_aside: str | None = None
    """This machine's TF release where the log names another: its facts describe another environment
    than the log's run, so they were left out of the diagnosis and the fixes."""
