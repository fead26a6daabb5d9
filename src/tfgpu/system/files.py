"""Reading a file the machine may have made hostile: regular files only, never blocking, bounded by bytes read.

A FIFO where a report or a config file is expected blocked the doctor forever, and the 16 MiB bound
trusted ``stat``, which says 0 for ``/dev/zero`` (``doctor --from /dev/zero`` grew to 2.9 GB).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from tfgpu.model.errors import UsageError


def _read_prefix(path: str | Path, limit: int) -> bytes:
    """At most ``limit`` bytes from the start of a regular file, opened without blocking.

    Raises:
        OSError: it cannot be opened or read, or it is not a regular file (EINVAL, "not a regular file").
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        chunks: list[bytes] = []
        total = 0
        while total < limit:
            chunk = os.read(fd, min(1 << 20, limit - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_regular(path: str | Path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``.

    Raises:
        OSError: it cannot be opened, is not a regular file (EINVAL) or holds more than ``max_bytes`` (EFBIG);
            ``strerror`` says which in words.
    """
    data = _read_prefix(path, max_bytes + 1)  # one byte more tells a file of exactly max_bytes from a larger one
    if len(data) > max_bytes:
        raise OSError(errno.EFBIG, f"larger than {max_bytes:,} bytes", str(path))
    return data


def read_regular_head(path: str | Path, max_bytes: int) -> bytes | None:
    """The first ``max_bytes`` of a regular file (for headers at its start), None where it cannot be read."""
    try:
        return _read_prefix(path, max_bytes)
    except OSError:
        return None


def read_regular_or_none(path: str | Path, max_bytes: int) -> bytes | None:
    """``read_regular``, or None where it raises (for facts that may simply be absent)."""
    try:
        return read_regular(path, max_bytes)
    except OSError:
        return None


def _write_beside(path: Path, text: str, place: Callable[[str, Path], None]) -> None:
    """Write ``text`` to a temporary file beside ``path``, then ``place`` it there; nothing is left behind on failure."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        place(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)  # gone already once renamed; a link keeps the file under its new name


def write_atomically(path: Path, text: str) -> None:
    """Write through a temporary file beside ``path`` and a rename: a reader never sees half a file.

    Raises:
        OSError: it cannot be written (nothing is left behind).
    """
    _write_beside(path, text, os.replace)


def save_document(path: str, document: str) -> None:
    """Write a document the user asked for (``--json FILE``, ``--save FILE``): whole or not at all.

    A symbolic link at ``path`` is replaced, not written through.

    Raises:
        UsageError: it cannot be written (nothing is left behind).
    """
    try:
        write_atomically(Path(path), document)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def write_new(path: Path, text: str) -> None:
    """Create ``path`` with ``text``, whole or not at all, never replacing a file that is there.

    Written beside it and hard-linked into place (link fails where a name exists), so a full disk
    leaves no empty file behind to block the retry, and a reader never sees half of it.

    Raises:
        FileExistsError: ``path`` exists.
        OSError: it cannot be written (nothing is left behind).
    """
    _write_beside(path, text, os.link)
