"""The automation contract: a stable JSON document with ``schema_version``.

Changing the shape requires bumping REPORT_SCHEMA_VERSION; the golden-file test enforces it.
Text output may change freely; this may not.
"""

from __future__ import annotations

from typing import Any

from tfgpu.model.codec import decode, encode
from tfgpu.model.facts import Facts
from tfgpu.model.findings import Severity
from tfgpu.model.results import Diagnosis
from tfgpu.report.envelope import command_document, render_document

REPORT_SCHEMA_VERSION = 1


def verdict(diagnosis: Diagnosis) -> str:
    """``errors``, ``warnings`` or ``healthy``."""
    severities = {f.severity for f in diagnosis.findings}
    if Severity.ERROR in severities:
        return "errors"
    if Severity.WARNING in severities:
        return "warnings"
    return "healthy"


def report_document(diagnosis: Diagnosis, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON-ready report: verdict, findings, and the facts they came from."""
    body = {
        "tfgpu_version": diagnosis.facts.tfgpu_version,
        "verdict": verdict(diagnosis),
        "findings": [encode(f) for f in diagnosis.findings],
        "facts": encode(diagnosis.facts),
        **(extra or {}),
    }
    return command_document("doctor", body, REPORT_SCHEMA_VERSION)


def render_json(diagnosis: Diagnosis, extra: dict[str, Any] | None = None) -> str:
    """The report as indented JSON text."""
    return render_document(report_document(diagnosis, extra))


def facts_from_document(doc: Any) -> Facts:
    """The Facts of a report written by ``--json`` (for ``doctor --from``).

    Raises:
        ValueError: not a tfgpu report, or a schema this version cannot read.
    """
    if not isinstance(doc, dict) or doc.get("tool") != "tfgpu" or "facts" not in doc:
        raise ValueError("not a tfgpu doctor --json report")
    if doc.get("schema_version") != REPORT_SCHEMA_VERSION:
        raise ValueError(
            f"report schema_version {doc.get('schema_version')!r}; this tfgpu reads {REPORT_SCHEMA_VERSION}"
        )
    return decode(Facts, doc["facts"])
