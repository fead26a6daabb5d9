"""Results of the long operations: the doctor's diagnosis."""

from __future__ import annotations

from dataclasses import dataclass

from tfgpu.model.facts import Facts
from tfgpu.model.findings import Finding, Severity


@dataclass(frozen=True)
class Diagnosis:
    """Facts and the findings the checks drew from them, worst first."""

    facts: Facts
    findings: tuple[Finding, ...]

    def problems(self, *, strict: bool = False) -> tuple[Finding, ...]:
        """Findings that make the doctor exit non-zero: errors, and warnings when strict."""
        worst = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
        return tuple(f for f in self.findings if f.severity in worst)
