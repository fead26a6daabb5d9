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
    BY_VERSIONS = "by_versions"
    """No line names a problem: the versions the log (or the machine's facts) states conflict, where the GPU is wanted
    and TF made no device of it (TF built for one CUDA, another installed)."""
    BY_RESEMBLANCE = "by_resemblance"
    """No line is any signature's message: the paste resembles public reports of this problem most."""


class SetAsideReason(str, Enum):
    """What in a log shows a run in another environment than this machine's, whose facts are then left out."""

    TENSORFLOW = "tensorflow"
    """The log names another TensorFlow release."""
    OS = "os"
    """The log's paths and libraries are another operating system's (Windows DLLs read on Linux, or the reverse)."""
    CUDA_BUILD = "cuda_build"
    """The log's TensorFlow loads the CUDA runtime of a CUDA this machine's TensorFlow was not built for."""


@dataclass(frozen=True)
class FactsSetAside:
    """This machine's facts left out of a log's diagnosis, and why: they describe another run than the log's."""

    reason: SetAsideReason
    log: str
    """What the log shows: "TensorFlow 2.1", "native Windows (its paths or DLLs)", "a TensorFlow built for CUDA 11.0 …"."""
    machine: str
    """What this machine has instead: "TensorFlow 2.21.0", "Linux", "TensorFlow 2.21.0, built for CUDA 12.5.1"."""


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
    facts_set_aside: FactsSetAside | None = None
    """Where the log shows another environment than this machine's (another TF release, OS or CUDA build),
    why: its facts were left out of the diagnosis and the fixes."""
