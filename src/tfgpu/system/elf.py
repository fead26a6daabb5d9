"""Read the dynamic section of an ELF shared object: RUNPATH, RPATH, NEEDED, SONAME and its symbols.

TensorFlow finds the pip ``nvidia-*`` wheels through the RUNPATH of its own libraries, so a
library outside that RUNPATH is invisible to it even when installed. A library that is found
can still fail to load: cuSPARSE 12.5 binds ``__nvJitLinkAddData_12_5`` from libnvJitLink.so.12,
which CUDA 12.1's copy of that soname does not define ("undefined symbol: ..., version
libnvJitLink.so.12"). Reading the section here in Python avoids depending on ``readelf`` or
``nm`` (binutils), which slim images lack. Only the header, the dynamic section and the
tables it points to are read, never the whole file.
"""

from __future__ import annotations

import os
import posixpath
import stat
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import BinaryIO, TypeVar

DT_NULL, DT_NEEDED, DT_HASH, DT_STRTAB, DT_SYMTAB, DT_STRSZ = 0, 1, 4, 5, 6, 10
DT_SONAME, DT_RPATH, DT_RUNPATH = 14, 15, 29
DT_GNU_HASH, DT_VERSYM, DT_VERNEED, DT_VERNEEDNUM = 0x6FFFFEF5, 0x6FFFFFF0, 0x6FFFFFFE, 0x6FFFFFFF
PT_LOAD, PT_DYNAMIC = 1, 2
SHN_UNDEF, STB_GLOBAL, STB_WEAK = 0, 1, 2


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
class DynamicSymbols:
    """What the dynamic loader binds: the symbols an object defines, and those it needs by library.

    ``needed`` maps the file a version requirement names (``libnvJitLink.so.12``) to the undefined
    symbols bound to it; a symbol without a version requirement names no library and is left out.
    """

    defined: frozenset[str]
    needed: Mapping[str, frozenset[str]]


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
    return _read(path, _parse)


def read_symbols(path: str) -> DynamicSymbols:
    """The dynamic symbols of one ELF file: those it defines, and those it needs from each versioned library.

    Raises:
        ElfError: not an ELF file, truncated, or tables past the bounds below.
        OSError: the file cannot be read.
    """
    return _read(path, _parse_symbols)


_T = TypeVar("_T")


def _read(path: str, parse: Callable[[BinaryIO, _Layout, bytes], _T]) -> _T:
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
            return parse(fh, layout, header)
        except struct.error as exc:
            raise ElfError(f"{path}: truncated ELF file") from exc
        except (OverflowError, ValueError, MemoryError) as exc:  # offsets and sizes past what a file can hold
            raise ElfError(f"{path}: an ELF header points outside the file ({exc})") from exc


MAX_STRING_BYTES = 64 * 1024
"""Longest string kept from the dynamic string table: a RUNPATH of many directories fits; a string with no
terminator (a crafted file) is cut there instead of being read to the end of the file."""


_Segment = tuple[int, int, int, int, int]


def _dynamic(fh: BinaryIO, lay: _Layout, header: bytes) -> tuple[dict[int, list[int]], list[_Segment]]:
    """The dynamic section's values by tag, and the load segments that map its addresses to file offsets."""
    # Program headers, not sections: the section table may be stripped, segments never are.
    if lay.is64:
        (phoff,) = lay.unpack("Q", header, 16)
        phentsize, phnum = lay.unpack("HH", header, 38)
    else:
        (phoff,) = lay.unpack("I", header, 12)
        phentsize, phnum = lay.unpack("HH", header, 26)
    segments = [_segment(fh, lay, phoff + i * phentsize, phentsize) for i in range(phnum)]
    dynamic = next((s for s in segments if s[0] == PT_DYNAMIC), None)
    tags: dict[int, list[int]] = {}
    for tag, value in _dynamic_entries(fh, lay, dynamic[1], dynamic[2]) if dynamic else ():
        tags.setdefault(tag, []).append(value)
    return tags, [s for s in segments if s[0] == PT_LOAD]


def _parse(fh: BinaryIO, lay: _Layout, header: bytes) -> DynamicInfo:
    tags, loads = _dynamic(fh, lay, header)
    if DT_STRTAB not in tags:
        return DynamicInfo(None, (), (), ())
    strtab_offset = _file_offset(tags[DT_STRTAB][0], loads)

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
        return [string(v) for v in tags.get(tag, ())]

    sonames = values(DT_SONAME)
    return DynamicInfo(
        soname=sonames[0] if sonames else None,
        needed=tuple(values(DT_NEEDED)),
        rpath=tuple(_split_paths(values(DT_RPATH))),
        runpath=tuple(_split_paths(values(DT_RUNPATH))),
    )


def _segment(fh: BinaryIO, lay: _Layout, offset: int, size: int) -> _Segment:
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


def _file_offset(vaddr: int, loads: list[_Segment]) -> int:
    for _type, offset, filesz, seg_vaddr, _memsz in loads:
        if seg_vaddr <= vaddr < seg_vaddr + filesz:
            return vaddr - seg_vaddr + offset
    return vaddr


MAX_SYMBOLS = 1 << 20
"""A CUDA library exports a few thousand dynamic symbols; a hash table claiming more is not read."""
MAX_SYMBOL_STRINGS = 64 << 20
"""The largest dynamic string table read whole (libcusparse's is 14 KiB, libtensorflow_framework's a few MiB)."""


def _parse_symbols(fh: BinaryIO, lay: _Layout, header: bytes) -> DynamicSymbols:
    tags, loads = _dynamic(fh, lay, header)
    if DT_SYMTAB not in tags or DT_STRTAB not in tags or DT_STRSZ not in tags:
        return DynamicSymbols(frozenset(), {})
    if tags[DT_STRSZ][0] > MAX_SYMBOL_STRINGS:
        raise ElfError(f"a dynamic string table of {tags[DT_STRSZ][0]} bytes")
    fh.seek(_file_offset(tags[DT_STRTAB][0], loads))
    strings = fh.read(tags[DT_STRSZ][0])

    names: dict[int, str] = {}
    read = 0

    def name(offset: int) -> str:
        """The name at ``offset``, each offset decoded once, at most MAX_STRING_BYTES long.

        Symbols may share a name's tail, so offsets overlap; names that together run past twice the
        table (only a crafted file's, every offset inside one unterminated run) are refused, which
        keeps the work linear in the file.
        """
        nonlocal read
        if offset not in names:
            end = strings.find(b"\0", offset, offset + MAX_STRING_BYTES)
            raw = strings[offset : end if end >= 0 else offset + MAX_STRING_BYTES]
            read += len(raw)
            if read > 2 * len(strings) + MAX_STRING_BYTES:
                raise ElfError("dynamic symbol names that overlap past twice their string table")
            names[offset] = raw.decode("utf-8", errors="replace")
        return names[offset]

    count = _symbol_count(fh, lay, tags, loads)
    fh.seek(_file_offset(tags[DT_SYMTAB][0], loads))
    size = 24 if lay.is64 else 16
    table = fh.read(count * size)
    versions = _version_files(fh, lay, tags, loads, name)
    versym = b""
    if DT_VERSYM in tags:
        fh.seek(_file_offset(tags[DT_VERSYM][0], loads))
        versym = fh.read(2 * count)
    defined: set[str] = set()
    needed: dict[str, set[str]] = {}
    for i in range(1, min(count, len(table) // size)):  # entry 0 is the null symbol
        if lay.is64:
            st_name, st_info, _other, st_shndx = lay.unpack("IBBH", table, i * size)
        else:
            st_name, _value, _size, st_info, _other, st_shndx = lay.unpack("IIIBBH", table, i * size)
        if st_info >> 4 not in (STB_GLOBAL, STB_WEAK) or not st_name:
            continue
        if st_shndx != SHN_UNDEF:
            defined.add(name(st_name))
        elif 2 * i + 2 <= len(versym):
            file = versions.get(lay.unpack("H", versym, 2 * i)[0] & 0x7FFF)
            if file:
                needed.setdefault(file, set()).add(name(st_name))
    return DynamicSymbols(frozenset(defined), {k: frozenset(v) for k, v in needed.items()})


def _symbol_count(fh: BinaryIO, lay: _Layout, tags: dict[int, list[int]], loads: list[_Segment]) -> int:
    """How many entries the dynamic symbol table has, from its hash table as ld.so sizes it.

    DT_HASH states it (nchain); DT_GNU_HASH does not: its last chain, from the highest bucket,
    ends at the last symbol (the chain entry with the low bit set).
    """
    if DT_HASH in tags:
        fh.seek(_file_offset(tags[DT_HASH][0], loads))
        return min(lay.unpack("II", fh.read(8))[1], MAX_SYMBOLS)
    if DT_GNU_HASH not in tags:
        return 0
    start = _file_offset(tags[DT_GNU_HASH][0], loads)
    fh.seek(start)
    nbuckets, symoffset, bloom_size, _shift = lay.unpack("IIII", fh.read(16))
    if nbuckets > MAX_SYMBOLS or bloom_size > MAX_SYMBOLS:
        raise ElfError(f"a GNU hash table of {nbuckets} buckets")
    fh.seek(start + 16 + bloom_size * (8 if lay.is64 else 4))
    buckets = lay.unpack(f"{nbuckets}I", fh.read(4 * nbuckets))
    last = max(buckets, default=0)
    if last < symoffset:
        return symoffset
    chains = start + 16 + bloom_size * (8 if lay.is64 else 4) + 4 * nbuckets
    fh.seek(chains + 4 * (last - symoffset))
    while last < MAX_SYMBOLS:
        (value,) = lay.unpack("I", fh.read(4))
        last += 1
        if value & 1:
            return last
    raise ElfError(f"a GNU hash chain past {MAX_SYMBOLS} symbols")


def _version_files(
    fh: BinaryIO, lay: _Layout, tags: dict[int, list[int]], loads: list[_Segment], name: Callable[[int], str]
) -> dict[int, str]:
    """Version index -> the file its requirement names (DT_VERNEED's Verneed and Vernaux entries)."""
    if DT_VERNEED not in tags:
        return {}
    files: dict[int, str] = {}
    entry = _file_offset(tags[DT_VERNEED][0], loads)
    for _ in range(min(tags.get(DT_VERNEEDNUM, [0])[0], 4096)):
        fh.seek(entry)
        _version, count, file, aux, following = lay.unpack("HHIII", fh.read(16))
        item = entry + aux
        for _ in range(min(count, 4096)):
            fh.seek(item)
            _hash, _flags, index, _name, item_next = lay.unpack("IHHII", fh.read(16))
            files[index] = name(file)
            if not item_next:
                break
            item += item_next
        if not following:
            break
        entry += following
    return files


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
