"""Inputs a machine can hold are handled in time linear in their size (issue 25 class 6).

The timeouts are sized to what the test waits for: the quadratic versions took minutes on these
inputs (a 4 MiB ELF string 11 s, growing with the square), the linear ones well under a second.
"""

from __future__ import annotations

import dataclasses
import os
import struct

import pytest
from tests.fakes.elf import elf_bytes
from tests.fakes.nvml import FakeGpu, FakeNvml

from tfgpu.model.unavailable import Unavailable
from tfgpu.nvml.collect import MAX_LINKED_GPUS, collect_gpu_facts
from tfgpu.system.elf import MAX_STRING_BYTES, ElfError, read_dynamic, read_symbols


@pytest.mark.timeout(60)
def test_an_elf_string_without_a_terminator_is_cut_not_read_quadratically(tmp_path):
    data = bytearray(elf_bytes(soname="libx.so.1"))
    strtab = 64 + 2 * 56
    entry = struct.pack("<qQ", 14, 1)  # DT_SONAME at offset 1 of the string table
    at = bytes(data).rindex(entry)
    data[at : at + 16] = struct.pack("<qQ", 14, len(data) - strtab)  # now points past the end, at the run below
    path = tmp_path / "libx.so.1"
    path.write_bytes(bytes(data) + b"a" * (16 << 20))
    info = read_dynamic(str(path))
    assert info.soname is not None and len(info.soname) == MAX_STRING_BYTES


@pytest.mark.timeout(60)
def test_a_thousand_gpus_are_collected_without_asking_every_pair():
    gpus = [dataclasses.replace(FakeGpu(), uuid=f"GPU-{i:08d}-1111-2222-3333-444455556666") for i in range(1000)]
    facts = collect_gpu_facts(FakeNvml(gpus))
    assert len(facts) == 1000
    assert isinstance(facts[0].links, Unavailable) and str(MAX_LINKED_GPUS) in facts[0].links.reason
    few = collect_gpu_facts(FakeNvml(gpus[:4]))
    assert len(few[0].links) == 3  # a real machine's GPUs still get their links


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("offset", "size"), [(0, 2**64 - 1), (2**63 + 5, 16), (2**64 - 1, 2**64 - 1)])
def test_elf_sizes_and_offsets_past_any_file_are_a_refusal_not_a_crash(tmp_path, offset, size):
    data = bytearray(elf_bytes(soname="libx.so.1"))
    dyn = 64 + 56  # the second program header: PT_DYNAMIC
    p_type, flags, p_offset, vaddr, paddr, _filesz, memsz, align = struct.unpack_from("<IIQQQQQQ", data, dyn)
    struct.pack_into("<IIQQQQQQ", data, dyn, p_type, flags, offset or p_offset, vaddr, paddr, size, memsz, align)
    path = tmp_path / "libx.so.1"
    path.write_bytes(bytes(data))
    try:
        info = read_dynamic(str(path))
    except ElfError as exc:
        assert "outside the file" in str(exc) or "truncated" in str(exc)
    else:
        assert info.soname in (None, "libx.so.1")  # a huge size is read only as far as the file goes


@pytest.mark.timeout(30)
def test_a_fifo_where_a_library_should_be_is_refused_at_once(tmp_path):
    fifo = tmp_path / "libcudnn.so.9"
    os.mkfifo(fifo)
    with pytest.raises(ElfError, match="not a regular file"):
        read_dynamic(str(fifo))


def _symbols_elf(tmp_path, tag: int, value: int) -> str:
    """A library with a symbol table whose dynamic entry ``tag`` is replaced by ``value``."""
    data = bytearray(elf_bytes(soname="libx.so.1", defines=("a",), binds={"liby.so": ("b",)}))
    for at in range(len(data) - 16, 0, -8):  # the dynamic section is last; find the entry by its tag
        if struct.unpack_from("<q", data, at)[0] == tag:
            struct.pack_into("<qQ", data, at, tag, value)
            break
    path = tmp_path / "libx.so.1"
    path.write_bytes(bytes(data))
    return str(path)


@pytest.mark.timeout(60)
def test_a_symbol_count_past_any_library_reads_only_what_the_file_holds(tmp_path):
    path = _symbols_elf(tmp_path, 4, 0)  # DT_HASH moved to address 0: the header's bytes read as nbucket, nchain
    try:
        symbols = read_symbols(path)
    except ElfError:
        return
    assert len(symbols.defined) < 100


@pytest.mark.timeout(60)
def test_a_string_table_claimed_past_the_bound_is_a_refusal(tmp_path):
    with pytest.raises(ElfError, match="string table"):
        read_symbols(_symbols_elf(tmp_path, 10, 2**40))  # DT_STRSZ


@pytest.mark.timeout(60)
def test_symbol_names_in_one_unterminated_run_are_refused_not_read_once_per_symbol(tmp_path):
    """Each of 20,000 symbols starts inside one 140 KB run with no terminator: read once per symbol, about 1.3 GB."""
    names = tuple(f"s{i:05d}" for i in range(20_000))
    data = bytearray(elf_bytes(soname="libx.so.1", defines=names))
    start = 64 + 2 * 56 + 1  # the string table follows the program headers; its first byte is the empty name
    size = data.index(b"\0s00000\0", start - 1) + 1  # NULs from here on are the names' terminators
    end = data.index(b"\0", data.index(f"s{len(names) - 1:05d}".encode(), size))
    data[size:end] = data[size:end].replace(b"\0", b"a")
    path = tmp_path / "libx.so.1"
    path.write_bytes(bytes(data))
    with pytest.raises(ElfError, match="overlap"):
        read_symbols(str(path))
