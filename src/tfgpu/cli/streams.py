"""The process's standard streams as a command can always write to them.

``tfgpu doctor | head -1`` closes the pipe after one line, ``tfgpu doctor >&-`` starts with no
stdout at all, and ``PYTHONIOENCODING=ascii`` cannot encode ✓. None of these may turn into a
traceback or an exit status of 1: output that cannot be written is dropped, characters the
encoding lacks are replaced, and the command still returns its own status.
"""

from __future__ import annotations

import io
import os
import sys
from typing import TextIO


class SafeStream(io.TextIOBase):
    """Writes to ``target`` until it fails once (a closed pipe), then drops everything quietly."""

    def __init__(self, target: TextIO | None) -> None:
        super().__init__()
        self.target = target
        self.broken = target is None
        self.lost: OSError | None = None
        """A write that failed for another reason than a reader gone (a full disk): the output is incomplete."""
        if target is not None and hasattr(target, "reconfigure"):
            target.reconfigure(errors="replace")  # an ASCII locale gets '?' instead of a crash

    def write(self, text: str) -> int:
        """Write, or drop the text once the stream is gone."""
        if not self.broken and self.target is not None:
            try:
                self.target.write(text)
            except (BrokenPipeError, ValueError, OSError) as exc:
                self._fail(exc)
        return len(text)

    def write_bytes(self, data: bytes) -> None:
        """Write bytes as they are (``tfgpu run`` passes a command's output through unchanged), or drop them.

        Through the target's byte layer where it has one; a text-only target gets them decoded.
        """
        buffer = getattr(self.target, "buffer", None)
        if buffer is None:
            self.write(data.decode("utf-8", "replace"))
            return
        if not self.broken:
            try:
                self.target.flush()  # type: ignore[union-attr]
                buffer.write(data)
                buffer.flush()
            except (BrokenPipeError, ValueError, OSError) as exc:
                self._fail(exc)

    def flush(self) -> None:
        """Flush, or nothing once the stream is gone."""
        if not self.broken and self.target is not None:
            try:
                self.target.flush()
            except (BrokenPipeError, ValueError, OSError) as exc:
                self._fail(exc)

    def _fail(self, exc: Exception) -> None:
        """Stop writing; remember a failure that loses output (not a reader that stopped early: ``| head``)."""
        self.broken = True
        if isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError) and self.lost is None:
            self.lost = exc

    def isatty(self) -> bool:
        """Whether the stream is a live terminal."""
        return not self.broken and self.target is not None and self.target.isatty()

    def writable(self) -> bool:
        """Always: failed writes are dropped, not raised."""
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        """The target's encoding (rich reads it to choose its characters)."""
        return getattr(self.target, "encoding", None) or "utf-8"


def silence_broken_stdout(stream: SafeStream) -> None:
    """After a closed pipe, point fd 1 at /dev/null so Python's exit-time flush cannot fail."""
    if stream.broken and sys.stdout is not None:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
