"""Read a log of any size as text lines, in bounded memory, refusing what is not a log."""

from __future__ import annotations

import codecs
import gzip
import zlib
from collections.abc import Iterator
from typing import BinaryIO, cast

CHUNK_BYTES = 1 << 20
SNIFF_BYTES = 64 * 1024
MAX_LINE_BYTES = 64 * 1024


class NotALogError(ValueError):
    """The input is empty or binary; the message says which."""


def looks_binary(head: bytes) -> bool:
    r"""NUL bytes are never in a text log; a few in the first 64 KiB mean a binary file.

    Examples:
        >>> looks_binary(b"I tensorflow/core ...\n"), looks_binary(b"\x7fELF\x02\x01\x00\x00\x00")
        (False, True)
    """
    return head.count(b"\0") > max(1, len(head) // 1000)


UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
GZIP_MAGIC = b"\x1f\x8b"


class _Prefixed:
    """A stream whose first bytes were already read (to sniff it), put back in front of the rest."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self.head = head
        self.stream = stream

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes: the head first, then the stream."""
        if self.head:
            out, self.head = (
                (self.head, b"") if size < 0 or size >= len(self.head) else (self.head[:size], self.head[size:])
            )
            return out
        return self.stream.read(size)


class _Utf16AsUtf8:
    """A UTF-16 stream (PowerShell's ``>`` writes UTF-16 with a BOM) read back as UTF-8 bytes."""

    def __init__(self, stream: _Prefixed) -> None:
        self.decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
        self.stream = stream

    def read(self, size: int) -> bytes:
        """Up to about ``size`` bytes' worth of text, as UTF-8; b"" only at the end."""
        while True:
            raw = self.stream.read(size)
            if not raw:
                return self.decoder.decode(b"", final=True).encode("utf-8")
            text = self.decoder.decode(raw)
            if text:  # an odd byte alone decodes to nothing yet: read on
                return text.encode("utf-8")


class _Gunzip:
    """A gzip stream read as its text; damaged or cut-off data ends it where it stops making sense."""

    def __init__(self, stream: _Prefixed) -> None:
        self.file = gzip.GzipFile(fileobj=stream)  # type: ignore[call-overload]

    def read(self, size: int) -> bytes:
        """Up to ``size`` decompressed bytes; b"" at the end or where the data is damaged."""
        try:
            data: bytes = self.file.read(size)
            return data
        except (OSError, EOFError, zlib.error):
            return b""


def _bounded(line: bytes) -> bytes:
    r"""A line cut to MAX_LINE_BYTES: from its last ``\r`` redraw when it has one there, else its head."""
    if len(line) <= MAX_LINE_BYTES:
        return line
    body = line.rstrip(b"\r")  # a CRLF ending is not a redraw
    redraw = body.rfind(b"\r", len(body) - MAX_LINE_BYTES)
    return line[redraw:] if redraw >= 0 else line[:MAX_LINE_BYTES]


class LogReader:
    """Iterate over decoded lines; ``bytes_read`` counts what was consumed.

    Lines longer than MAX_LINE_BYTES are cut (the rest of such a line is skipped, not kept),
    invalid UTF-8 is replaced, and CRLF is accepted.
    """

    def __init__(self, stream: BinaryIO, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.stream = stream
        self.chunk_bytes = chunk_bytes
        self.bytes_read = 0

    def lines(self) -> Iterator[str]:
        """The lines of the stream.

        Raises:
            NotALogError: the stream is empty or holds binary data.
        """
        first = self.stream.read(min(SNIFF_BYTES, self.chunk_bytes))
        if not first:
            raise NotALogError("the log is empty")
        if first.startswith(GZIP_MAGIC):  # `explain train.log.gz`: read through, as zcat would
            self.stream = cast(BinaryIO, _Gunzip(_Prefixed(first, self.stream)))
            first = self.stream.read(min(SNIFF_BYTES, self.chunk_bytes))
            if not first:
                raise NotALogError("the compressed log is empty or not gzip data")
        if first.startswith(UTF16_BOMS):
            utf16 = _Utf16AsUtf8(_Prefixed(first, self.stream))
            self.stream = cast(BinaryIO, utf16)
            first = utf16.read(self.chunk_bytes)
        if looks_binary(first):
            raise NotALogError("this is binary data, not a text log")
        pending = b""
        chunk = first
        while chunk:
            self.bytes_read += len(chunk)
            data = pending + chunk
            parts = data.split(b"\n")
            pending = parts.pop()
            for part in parts:
                yield _bounded(part).decode("utf-8", errors="replace")
            if len(pending) > MAX_LINE_BYTES:
                redraw = pending.rfind(b"\r")
                if 0 <= len(pending) - redraw <= MAX_LINE_BYTES:
                    pending = pending[redraw:]  # progress redraws: only the last one is on screen
                    chunk = self.stream.read(self.chunk_bytes)
                    continue
                yield pending[:MAX_LINE_BYTES].decode("utf-8", errors="replace")
                pending = b""
                chunk = self._skip_to_newline()
                continue
            chunk = self.stream.read(self.chunk_bytes)
        if pending:
            yield pending.decode("utf-8", errors="replace")

    def _skip_to_newline(self) -> bytes:
        while True:
            chunk = self.stream.read(self.chunk_bytes)
            if not chunk:
                return b""
            self.bytes_read += len(chunk)
            cut = chunk.find(b"\n")
            if cut >= 0:
                self.bytes_read -= len(chunk) - cut - 1
                return chunk[cut + 1 :]
