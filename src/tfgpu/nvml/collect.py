"""Turn NVML answers into ``DriverFacts`` and ``GpuFacts``; one bad GPU never hides the others."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tfgpu.model.errors import NvmlUnavailable
from tfgpu.model.facts import DriverFacts, GpuFacts, GpuLink, GpuProcess
from tfgpu.model.unavailable import Unavailable
from tfgpu.nvml.client import NvmlClient

T = TypeVar("T")

# nvmlClocksEventReasons bits (nvml.h). GpuIdle and application-clock settings are not problems.
CLOCK_EVENT_REASONS: dict[int, str] = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}


def decode_clock_event_reasons(mask: int) -> tuple[str, ...]:
    """Names of the set bits, in bit order.

    Examples:
        >>> decode_clock_event_reasons(0x24)
        ('sw_power_cap', 'sw_thermal_slowdown')
    """
    return tuple(name for bit, name in CLOCK_EVENT_REASONS.items() if mask & bit)


def _maybe(fn: Callable[[], T]) -> T | Unavailable:
    try:
        return fn()
    except NvmlUnavailable as exc:
        return Unavailable(exc.reason, exc.source)


def identity(client: NvmlClient, index: int) -> tuple[str, str]:
    """A GPU's name and UUID for labels; "unknown" for what NVML does not give (a lost GPU answers nothing)."""
    name, uuid = _maybe(lambda: client.name(index)), _maybe(lambda: client.uuid(index))
    return (name if isinstance(name, str) else "unknown", uuid if isinstance(uuid, str) else "unknown")


def collect_driver_facts(client: NvmlClient) -> DriverFacts:
    """The driver version and the newest CUDA it supports.

    Source: NVML ``nvmlSystemGetDriverVersion``, ``nvmlSystemGetCudaDriverVersion_v2``;
    nvidia-smi header "Driver Version" / "CUDA Version".

    Raises:
        NvmlUnavailable: NVML cannot be used at all (no driver, no binding).
    """
    version = client.driver_version()
    cuda = _maybe(client.cuda_driver_version)
    cuda_text: str | Unavailable = cuda if isinstance(cuda, Unavailable) else f"{cuda // 1000}.{cuda % 1000 // 10}"
    return DriverFacts(driver_version=version, cuda_driver_version=cuda_text, source="nvml")


def collect_gpu_facts(client: NvmlClient) -> tuple[GpuFacts, ...]:
    """Every GPU NVML sees.

    Raises:
        NvmlUnavailable: the GPUs cannot be counted.
    """
    count = client.device_count()
    return tuple(_gpu(client, index, count) for index in range(count))


MAX_LINKED_GPUS = 64
"""Pairs are asked only up to this many GPUs: links are count² NVML calls (1,000 GPUs took 60 s), and
no machine has more GPUs that talk peer to peer; beyond it the links are "not collected"."""


def collect_links(client: NvmlClient, index: int, count: int) -> tuple[GpuLink, ...]:
    """How GPU ``index`` reaches each of the other ``count - 1`` GPUs.

    Raises:
        NvmlUnavailable: NVML cannot say (a GPU lost, an old driver), or ``count`` is above MAX_LINKED_GPUS.
    """
    if count > MAX_LINKED_GPUS:
        raise NvmlUnavailable(f"not collected for {count} GPUs (pairs are asked up to {MAX_LINKED_GPUS})", "tfgpu")
    return tuple(GpuLink(peer, client.link_to(index, peer)) for peer in range(count) if peer != index)


def _gpu(client: NvmlClient, index: int, count: int) -> GpuFacts:
    name = _maybe(lambda: client.name(index))
    memory = _maybe(lambda: client.memory_info(index))
    cc = _maybe(lambda: client.compute_capability(index))
    util = _maybe(lambda: client.utilization(index))
    reasons = _maybe(lambda: client.clocks_event_reasons(index))
    return GpuFacts(
        index=index,
        name=name if isinstance(name, str) else f"GPU {index} ({name.reason})",
        uuid=_maybe(lambda: client.uuid(index)),
        pci_bus_id=_maybe(lambda: client.pci_bus_id(index)),
        compute_capability=cc if isinstance(cc, Unavailable) else f"{cc[0]}.{cc[1]}",
        memory_total_bytes=memory if isinstance(memory, Unavailable) else memory.total_bytes,
        memory_used_bytes=memory if isinstance(memory, Unavailable) else memory.used_bytes,
        utilization_percent=util if isinstance(util, Unavailable) else util.gpu_percent,
        temperature_celsius=_maybe(lambda: client.temperature_celsius(index)),
        slowdown_temperature_celsius=_maybe(lambda: client.slowdown_temperature_celsius(index)),
        power_draw_watts=_maybe(lambda: client.power_draw_watts(index)),
        power_limit_watts=_maybe(lambda: client.power_limit_watts(index)),
        sm_clock_mhz=_maybe(lambda: client.clock_mhz(index, "sm")),
        max_sm_clock_mhz=_maybe(lambda: client.max_clock_mhz(index, "sm")),
        throttle_reasons=reasons if isinstance(reasons, Unavailable) else decode_clock_event_reasons(reasons),
        persistence_mode=_maybe(lambda: client.persistence_mode(index)),
        mig_mode=_maybe(lambda: client.mig_mode(index)),
        ecc_enabled=_maybe(lambda: client.ecc_enabled(index)),
        processes=_maybe(lambda: collect_processes(client, index)),
        nvlinks_active=_maybe(lambda: client.nvlinks_active(index)),
        links=_maybe(lambda: collect_links(client, index, count)),
    )


def _process_name(client: NvmlClient, pid: int) -> str | Unavailable:
    return _maybe(lambda: client.process_name(pid))


def collect_processes(client: NvmlClient, index: int) -> tuple[GpuProcess, ...]:
    """The processes on a GPU with their names ("?" when NVML cannot name one).

    Raises:
        NvmlUnavailable: the process list itself cannot be read.
    """
    out = []
    for proc in client.processes(index):
        pname = _process_name(client, proc.pid)
        out.append(GpuProcess(proc.pid, pname if isinstance(pname, str) else "?", proc.used_memory_bytes))
    return tuple(out)
