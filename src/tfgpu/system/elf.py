"""Read the dynamic section of an ELF shared object: RUNPATH, RPATH, NEEDED and SONAME.

TensorFlow finds the pip ``nvidia-*`` wheels through the RUNPATH of its own libraries, so a
library outside that RUNPATH is invisible to it even when installed. Reading the section
here in Python avoids depending on ``readelf`` (binutils), which slim images lack.
Only the header and the dynamic section are read, never the whole file.
"""

from __future__ import annotations

import os
import posixpath
import stat
import struct
from dataclasses import dataclass
from typing import BinaryIO

DT_NULL, DT_NEEDED, DT_STRTAB, DT_SONAME, DT_RPATH, DT_RUNPATH = 0, 1, 5, 14, 15, 29
PT_LOAD, PT_DYNAMIC = 1, 2


class ElfError(ValueError):
    """The file is not a readable ELF object."""


@dataclass(frozen=True)
class DynamicInfo:
    """The parts of an ELF dynamic section that decide where the loader looks."""

    soname: str | None
    needed: tuple[str, ...]
    rpath: tuple[str, ...]
    runpath: tuple[str, ...]


@dataclass(frozen=True)
class _Layout:
    endian: str
    is64: bool

    def unpack(self, fmt: str, data: bytes, offset: int = 0) -> tuple[int, ...]:
        return struct.unpack_from(self.endian + fmt, data, offset)


def read_dynamic(path: str) -> DynamicInfo:
    """The dynamic-section entries of one ELF file.

    Raises:
        ElfError: not an ELF file, or truncated.
        OSError: the file cannot be read.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))  # a FIFO must not block
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ElfError(f"{path}: not a regular file")
        ident = fh.read(16)
        if len(ident) < 16 or ident[:4] != b"\x7fELF":
            raise ElfError(f"{path}: not an ELF file")
        layout = _Layout("<" if ident[5] == 1 else ">", ident[4] == 2)
        header = fh.read(48 if layout.is64 else 36)
        try:
            return _parse(fh, layout, header)
        except struct.error as exc:
            raise ElfError(f"{path}: truncated ELF file") from exc
        except (OverflowError, ValueError, MemoryError) as exc:  # offsets and sizes past what a file can hold
            raise ElfError(f"{path}: an ELF header points outside the file ({exc})") from exc


MAX_STRING_BYTES = 64 * 1024
"""Longest string kept from the dynamic string table: a RUNPATH of many directories fits; a string with no
terminator (a crafted file) is cut there instead of being read to the end of the file."""


def _parse(fh: BinaryIO, lay: _Layout, header: bytes) -> DynamicInfo:
    # Program headers, not sections: the section table may be stripped, segments never are.
    if lay.is64:
        (phoff,) = lay.unpack("Q", header, 16)
        phentsize, phnum = lay.unpack("HH", header, 38)
    else:
        (phoff,) = lay.unpack("I", header, 12)
        phentsize, phnum = lay.unpack("HH", header, 26)
    segments = [_segment(fh, lay, phoff + i * phentsize, phentsize) for i in range(phnum)]
    dynamic = next((s for s in segments if s[0] == PT_DYNAMIC), None)
    if dynamic is None:
        return DynamicInfo(None, (), (), ())
    entries = _dynamic_entries(fh, lay, dynamic[1], dynamic[2])
    strtab_vaddr = next((v for tag, v in entries if tag == DT_STRTAB), None)
    if strtab_vaddr is None:
        return DynamicInfo(None, (), (), ())
    strtab_offset = _file_offset(strtab_vaddr, [s for s in segments if s[0] == PT_LOAD])

    def string(offset: int) -> str:
        """The NUL-terminated string at ``offset``, at most MAX_STRING_BYTES (linear: each piece is searched once)."""
        fh.seek(strtab_offset + offset)
        pieces: list[bytes] = []
        size = 0
        while size < MAX_STRING_BYTES:
            more = fh.read(min(4096, MAX_STRING_BYTES - size))
            if not more:
                break
            end = more.find(b"\0")
            if end >= 0:
                pieces.append(more[:end])
                break
            pieces.append(more)
            size += len(more)
        return b"".join(pieces).decode("utf-8", errors="replace")

    def values(tag: int) -> list[str]:
        return [string(v) for t, v in entries if t == tag]

    sonames = values(DT_SONAME)
    return DynamicInfo(
        soname=sonames[0] if sonames else None,
        needed=tuple(values(DT_NEEDED)),
        rpath=tuple(_split_paths(values(DT_RPATH))),
        runpath=tuple(_split_paths(values(DT_RUNPATH))),
    )


def _segment(fh: BinaryIO, lay: _Layout, offset: int, size: int) -> tuple[int, int, int, int, int]:
    """(type, file offset, file size, virtual address, memory size) of one program header."""
    fh.seek(offset)
    data = fh.read(size)
    if lay.is64:
        p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz, p_memsz = lay.unpack("IIQQQQQ", data)
    else:
        p_type, p_offset, p_vaddr, _paddr, p_filesz, p_memsz = lay.unpack("IIIIII", data)
    return p_type, p_offset, p_filesz, p_vaddr, p_memsz


MAX_DYNAMIC_BYTES = 1 << 20
"""A dynamic section is a few hundred entries; a header claiming 2^64-1 bytes is read this far at most."""


def _dynamic_entries(fh: BinaryIO, lay: _Layout, offset: int, size: int) -> list[tuple[int, int]]:
    fh.seek(offset)
    data = fh.read(min(size, MAX_DYNAMIC_BYTES))
    fmt, step = ("qQ", 16) if lay.is64 else ("iI", 8)
    entries = []
    for pos in range(0, len(data) - step + 1, step):
        tag, value = lay.unpack(fmt, data, pos)
        if tag == DT_NULL:
            break
        entries.append((tag, value))
    return entries


def _file_offset(vaddr: int, loads: list[tuple[int, int, int, int, int]]) -> int:
    for _type, offset, filesz, seg_vaddr, _memsz in loads:
        if seg_vaddr <= vaddr < seg_vaddr + filesz:
            return vaddr - seg_vaddr + offset
    return vaddr


def _split_paths(raw: list[str]) -> list[str]:
    """Colon-separated entries in order, duplicates dropped (TF's RUNPATH repeats each dir ~40 times)."""
    seen: dict[str, None] = {}
    for value in raw:
        for entry in value.split(":"):
            if entry:
                seen.setdefault(entry, None)
    return list(seen)


def expand_origin(entry: str, object_path: str) -> str:
    """Replace ``$ORIGIN`` / ``${ORIGIN}`` with the directory of the object, as ld.so does.

    Examples:
        >>> expand_origin("$ORIGIN/../nvidia/cublas/lib", "/sp/tensorflow/libtensorflow_framework.so.2")
        '/sp/nvidia/cublas/lib'
    """
    origin = posixpath.dirname(object_path)
    return posixpath.normpath(entry.replace("${ORIGIN}", origin).replace("$ORIGIN", origin))
