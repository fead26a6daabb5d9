"""Whose memory a GPU holds: the doctor's warning before a run, and explain's reading of an out-of-memory after one."""

from __future__ import annotations

from dataclasses import dataclass

from tfgpu.model.facts import GpuFacts
from tfgpu.model.unavailable import Unavailable

GIB = 1024**3


@dataclass(frozen=True)
class MemoryInUse:
    """Memory already in use on one GPU when the facts were read, and the processes NVML names for it."""

    used_gib: float
    total_gib: float
    holders: str
    """"python3 (pid 4242, 100.0 GiB), ..."; empty where NVML names none (another container's processes)."""


def memory_in_use(gpu: GpuFacts) -> MemoryInUse | None:
    """What others hold on ``gpu``, when it is more than a bare CUDA context (~0.5 GiB): 10 % of it or 2 GiB.

    TF takes nearly all of the memory that is free when it starts, so memory held by another
    training, or by a notebook kernel that ran TF and is still alive, is memory TF never gets.
    """
    used, total = gpu.memory_used_bytes, gpu.memory_total_bytes
    if isinstance(used, Unavailable) or isinstance(total, Unavailable) or total == 0:
        return None
    if used < max(2 * GIB, 0.1 * total):
        return None
    procs = () if isinstance(gpu.processes, Unavailable) else gpu.processes
    holders = ", ".join(
        f"{p.name} (pid {p.pid}, {p.used_memory_bytes / GIB:.1f} GiB)"
        if p.used_memory_bytes
        else f"{p.name} (pid {p.pid})"
        for p in procs
    )
    return MemoryInUse(used / GIB, total / GIB, holders)
