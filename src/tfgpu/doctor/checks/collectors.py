"""Turn each collector that failed into a finding: the report shows what it could not see."""

from __future__ import annotations

from tfgpu.model.facts import Facts
from tfgpu.model.findings import Finding, Section, Severity
from tfgpu.model.unavailable import Unavailable

_PARTS = {
    "host": Section.ENVIRONMENT,
    "packages": Section.TENSORFLOW,
    "tensorflow": Section.TENSORFLOW,
    "libraries": Section.CUDA,
    "environ": Section.ENVIRONMENT,
}


def check_collectors(facts: Facts) -> list[Finding]:
    """A crashed collector is an error: that area could not be checked.

    Finding ids: ``collector-<part>-failed``. GPU collection failures are the driver
    check's business (no driver is a diagnosis, not a crash), unless the collector itself crashed.
    """
    out = []
    parts = dict(_PARTS)
    if isinstance(facts.gpus, Unavailable) and facts.gpus.source == "tfgpu:gpus":
        parts["gpus"] = Section.HARDWARE
    for part, section in parts.items():
        value = getattr(facts, part)
        if isinstance(value, Unavailable) and value.source.startswith("tfgpu:"):
            out.append(
                Finding(
                    f"collector-{part}-failed",
                    Severity.ERROR,
                    section,
                    f"Could not collect {part} facts",
                    detail=value.reason,
                    hint="This is a tfgpu bug: please report it with the output of `tfgpu doctor --markdown`.",
                )
            )
    return out
