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


class NvmlUnavailable(Exception):  # noqa: N818 - named for what it means, like Unavailable
    """An NVML query could not be answered; ``reason`` says why in words.

    Raised by the NVML client (nvml/client.py) and caught wherever a machine without a readable GPU
    is an answer rather than a failure (the commands included), so it lives with the vocabulary.
    """

    def __init__(self, reason: str, source: str, *, kind: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.source = source
        self.kind = kind
