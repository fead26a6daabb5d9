"""Inputs a machine can hold are handled in time linear in their size (issue 25 class 6).

The timeouts are sized to what the test waits for: the quadratic versions took minutes on these
inputs (a 4 MiB ELF string 11 s, growing with the square), the linear ones well under a second.
"""

from __future__ import annotations

import dataclasses
import struct

import pytest
from tests.fakes.elf import elf_bytes
from tests.fakes.nvml import FakeGpu, FakeNvml

from tfgpu.model.unavailable import Unavailable
from tfgpu.nvml.collect import MAX_LINKED_GPUS, collect_gpu_facts
from tfgpu.system.elf import MAX_STRING_BYTES, read_dynamic


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
