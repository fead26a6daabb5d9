"""The automation contract: a stable JSON document with ``schema_version``.

Changing the shape requires bumping the doctor's version in ``model/documents.py``; the golden-file test
enforces it.
Text output may change freely; this may not.
"""

from __future__ import annotations

from typing import Any

from tfgpu.model.codec import encode
from tfgpu.model.documents import Document
from tfgpu.model.findings import Severity
from tfgpu.model.results import Diagnosis
from tfgpu.report.envelope import command_document, render_document


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
    return command_document(Document.DOCTOR, body)


def render_json(diagnosis: Diagnosis, extra: dict[str, Any] | None = None) -> str:
    """The report as indented JSON text."""
    return render_document(report_document(diagnosis, extra))
