"""Findings: the doctor's verdicts, each with a stable id, the cause and the fix."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)+$")


class Severity(enum.Enum):
    """How bad a finding is; ``ok`` records a check that passed."""

    OK = "ok"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        """Order for sorting, worst first when negated."""
        return _RANK[self]


_RANK = {Severity.OK: 0, Severity.INFO: 1, Severity.WARNING: 2, Severity.ERROR: 3}


class Section(enum.Enum):
    """Where a finding is shown in the human report."""

    HARDWARE = "Hardware & driver"
    CUDA = "CUDA libraries"
    TENSORFLOW = "TensorFlow"
    ENVIRONMENT = "Environment"


@dataclass(frozen=True)
class Finding:
    """One verdict of a check.

    ``id`` is kebab-case ``<area>-<problem>`` and stable: scripts and docs refer to it.
    ``summary`` is one line; ``detail`` is the cause in a sentence or two; ``hint`` is the
    exact fix (a command where there is one); ``link`` the primary source.
    """

    id: str
    severity: Severity
    section: Section
    summary: str
    detail: str = ""
    hint: str = ""
    link: str = ""

    def __post_init__(self) -> None:
        if not _ID.match(self.id):
            raise ValueError(f"finding id must be kebab-case <area>-<problem>: {self.id!r}")
