"""Write minimal ELF64 shared objects with a chosen SONAME, NEEDED and RUNPATH.

Lets the library-location tests build a TensorFlow-shaped site-packages tree without a
compiler; an integration test checks these files against readelf.
"""

from __future__ import annotations

import struct
from pathlib import Path

BASE = 0x400000  # the load segment's virtual address, so the parser must translate addresses


def elf_bytes(soname: str | None = None, needed: tuple[str, ...] = (), runpath: str | None = None) -> bytes:
    strings = b"\0"
    offsets = {}
    for text in [t for t in (soname, *needed, runpath) if t]:
        offsets[text] = len(strings)
        strings += text.encode() + b"\0"
    strtab_off = 64 + 2 * 56
    dyn_off = (strtab_off + len(strings) + 7) & ~7
    entries = [(5, BASE + strtab_off), (10, len(strings))]  # DT_STRTAB, DT_STRSZ
    if soname:
        entries.append((14, offsets[soname]))
    entries += [(1, offsets[n]) for n in needed]
    if runpath:
        entries.append((29, offsets[runpath]))
    entries.append((0, 0))
    dynamic = b"".join(struct.pack("<qQ", t, v) for t, v in entries)
    total = dyn_off + len(dynamic)
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, 2, 64, 0, 0)
    load = struct.pack("<IIQQQQQQ", 1, 5, 0, BASE, BASE, total, total, 0x1000)
    dyn = struct.pack("<IIQQQQQQ", 2, 6, dyn_off, BASE + dyn_off, BASE + dyn_off, len(dynamic), len(dynamic), 8)
    body = header + load + dyn + strings
    return body + bytes(dyn_off - len(body)) + dynamic


def write_elf(path: Path, **kwargs: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(elf_bytes(**kwargs))  # type: ignore[arg-type]
    return path
