"""What ``tfgpu monitor`` reads beside the samples: the GPUs' names, processes and links, and a watched process.

The monitor command renders these; reading them is the domain's, so the command stays parse →
read → render and the same readings serve any other front end.
"""

from __future__ import annotations

from tfgpu.model.errors import NvmlUnavailable
from tfgpu.model.facts import GpuLink
from tfgpu.nvml.client import NvmlClient
from tfgpu.nvml.collect import collect_links, collect_processes
from tfgpu.system.procs import alive, cpu_seconds, uses_tensorflow


def gpu_names(client: NvmlClient) -> dict[int, str]:
    """Every GPU's name by index.

    Raises:
        NvmlUnavailable: NVML cannot be read (no driver, no GPU).
    """
    return {i: client.name(i) for i in range(client.device_count())}


def process_lines(client: NvmlClient, index: int) -> list[str]:
    """One line per process on the GPU (pid, name, memory, whether it runs TensorFlow); none when NVML cannot say."""
    try:
        procs = collect_processes(client, index)
    except NvmlUnavailable:
        return []
    lines = []
    for p in procs:
        memory = f"{p.used_memory_bytes / 2**30:.1f} GiB" if p.used_memory_bytes else "? GiB"
        lines.append(f"pid {p.pid} {p.name} {memory}{' [TensorFlow]' if uses_tensorflow(p.pid) else ''}")
    return lines


def gpu_links(client: NvmlClient, index: int, count: int) -> tuple[GpuLink, ...] | str:
    """The GPU's links to the others, or why NVML cannot say."""
    try:
        return collect_links(client, index, count)
    except NvmlUnavailable as exc:
        return exc.reason


class WatchedProcess:
    """The process ``--watch PID`` follows: whether it still runs, and its CPU time (for the verdict)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def alive(self) -> bool:
        """Whether it still runs (the watch ends when it does not)."""
        return alive(self.pid)

    def cpu_seconds(self) -> float | None:
        """User + system CPU seconds so far; None when /proc does not tell."""
        return cpu_seconds(self.pid)
