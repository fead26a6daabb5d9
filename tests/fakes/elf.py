"""Write minimal ELF64 shared objects with a chosen SONAME, NEEDED, RUNPATH and dynamic symbols.

Lets the library-location tests build a TensorFlow-shaped site-packages tree without a
compiler; an integration test checks these files against readelf and nm. Symbols a library
defines, and symbols it binds from another library (through a version requirement naming that
file, as cuSPARSE binds libnvJitLink.so.12's), are written the way ld.so reads them: a
symbol table sized by DT_HASH, DT_VERSYM and DT_VERNEED.
"""

from __future__ import annotations

import struct
from pathlib import Path

BASE = 0x400000  # the load segment's virtual address, so the parser must translate addresses
STB_GLOBAL_FUNC = (1 << 4) | 2


def _align(offset: int) -> int:
    return (offset + 7) & ~7


def elf_bytes(
    soname: str | None = None,
    needed: tuple[str, ...] = (),
    runpath: str | None = None,
    defines: tuple[str, ...] = (),
    binds: dict[str, tuple[str, ...]] | None = None,
) -> bytes:
    binds = binds or {}
    undefined = [(file, name) for file, names in binds.items() for name in names]
    strings = b"\0"
    offsets: dict[str, int] = {}
    for text in [t for t in (soname, *needed, runpath, *defines, *binds, *(n for _, n in undefined)) if t]:
        if text not in offsets:
            offsets[text] = len(strings)
            strings += text.encode() + b"\0"
    symbols = [(0, 0, 0)] + [(offsets[n], STB_GLOBAL_FUNC, 1) for n in defines]
    symbols += [(offsets[n], STB_GLOBAL_FUNC, 0) for _, n in undefined]
    index = {file: 2 + i for i, file in enumerate(binds)}  # 0 local, 1 global: requirements start at 2
    versym = [0] + [1] * len(defines) + [index[file] for file, _ in undefined]

    strtab_off = 64 + 2 * 56
    symtab_off = _align(strtab_off + len(strings))
    symtab = b"".join(struct.pack("<IBBHQQ", name, info, 0, shndx, 0, 0) for name, info, shndx in symbols)
    hash_off = _align(symtab_off + len(symtab))
    hashtab = struct.pack(f"<II{1 + len(symbols)}I", 1, len(symbols), 0, *([0] * len(symbols)))
    versym_off = _align(hash_off + len(hashtab))
    versyms = struct.pack(f"<{len(versym)}H", *versym)
    verneed_off = _align(versym_off + len(versyms))
    verneed = b"".join(
        struct.pack("<HHIII", 1, 1, offsets[file], 16, 32 if i + 1 < len(binds) else 0)
        + struct.pack("<IHHII", 0, 0, index[file], offsets[file], 0)
        for i, file in enumerate(binds)
    )
    dyn_off = _align(verneed_off + len(verneed))

    entries = [(5, BASE + strtab_off), (10, len(strings))]  # DT_STRTAB, DT_STRSZ
    if soname:
        entries.append((14, offsets[soname]))
    entries += [(1, offsets[n]) for n in needed]
    if runpath:
        entries.append((29, offsets[runpath]))
    if defines or binds:
        entries += [(6, BASE + symtab_off), (11, 24), (4, BASE + hash_off), (0x6FFFFFF0, BASE + versym_off)]
    if binds:
        entries += [(0x6FFFFFFE, BASE + verneed_off), (0x6FFFFFFF, len(binds))]
    entries.append((0, 0))
    dynamic = b"".join(struct.pack("<qQ", t, v) for t, v in entries)
    total = dyn_off + len(dynamic)
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, 2, 64, 0, 0)
    load = struct.pack("<IIQQQQQQ", 1, 5, 0, BASE, BASE, total, total, 0x1000)
    dyn = struct.pack("<IIQQQQQQ", 2, 6, dyn_off, BASE + dyn_off, BASE + dyn_off, len(dynamic), len(dynamic), 8)
    body = bytearray(header + load + dyn)
    for offset, part in (
        (strtab_off, strings),
        (symtab_off, symtab if defines or binds else b""),
        (hash_off, hashtab if defines or binds else b""),
        (versym_off, versyms if defines or binds else b""),
        (verneed_off, verneed),
        (dyn_off, dynamic),
    ):
        body += bytes(offset - len(body)) + part
    return bytes(body)


def write_elf(path: Path, **kwargs: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(elf_bytes(**kwargs))  # type: ignore[arg-type]
    return path
