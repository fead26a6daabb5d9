"""Exceptions for misuse and truly impossible operations (environment faults are findings)."""

from __future__ import annotations


class TfgpuError(Exception):
    """Base class of every error tfgpu raises on purpose."""


class DiagnosticError(TfgpuError):
    """A misuse that tfgpu can explain: what happened, why, and the line to change.

    Shaped like pip's ``DiagnosticPipError``: ``reference`` is a stable kebab-case id.
    """

    def __init__(
        self,
        reference: str,
        message: str,
        *,
        hint: str | None = None,
        note: str | None = None,
        link: str | None = None,
    ) -> None:
        super().__init__(message)
        self.reference = reference
        self.message = message
        self.hint = hint
        self.note = note
        self.link = link

    def __str__(self) -> str:
        parts = [f"{self.message} [{self.reference}]"]
        if self.hint:
            parts.append(f"hint: {self.hint}")
        if self.note:
            parts.append(f"note: {self.note}")
        if self.link:
            parts.append(f"see: {self.link}")
        return "\n".join(parts)


class UsageError(TfgpuError):
    """Bad input from the user (a missing file, a malformed report): exit status 2."""
