"""One fast reading of a GPU for the monitor (``read_sample``), tolerant of unsupported metrics."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tfgpu.model.errors import NvmlUnavailable
from tfgpu.model.samples import GpuSample
from tfgpu.nvml.client import NvmlClient
from tfgpu.nvml.collect import decode_clock_event_reasons

LOST_KINDS = {"NVMLError_GpuIsLost", "NVMLError_Unknown"}
T = TypeVar("T")


def _float(value: float | int | None) -> float | None:
    return None if value is None else float(value)


class SampleReader:
    """Reads samples of one client; remembers metrics a GPU does not support and stops asking.

    The unsupported set is reported once at the end (nvitop's UNKNOWN_FUNCTIONS idea).
    """

    def __init__(self, client: NvmlClient) -> None:
        self.client = client
        self.unsupported: dict[int, set[str]] = {}
        self._static: dict[int, tuple[float | None, float | None]] = {}

    def _get(self, index: int, name: str, fn: Callable[[], T], lost: list[bool]) -> T | None:
        skip = self.unsupported.setdefault(index, set())
        if name in skip or lost:
            return None
        try:
            return fn()
        except NvmlUnavailable as exc:
            if exc.kind in LOST_KINDS:
                lost.append(True)
            else:
                skip.add(name)
            return None

    def xid_events(self) -> list[tuple[int, int]]:
        """Pending critical Xid events of every GPU (checked once per poll, not per GPU)."""
        if "xid" in self.unsupported.setdefault(-1, set()):
            return []
        try:
            return self.client.xid_events()
        except NvmlUnavailable:
            self.unsupported[-1].add("xid")
            return []

    def read(self, index: int, now: float, xids: tuple[int, ...] = ()) -> GpuSample:
        """One sample of GPU ``index`` at time ``now``.

        Source: NVML nvmlDeviceGetUtilizationRates, nvmlDeviceGetMemoryInfo, nvmlDeviceGetTemperature,
        nvmlDeviceGetPowerUsage, nvmlDeviceGetClockInfo, nvmlDeviceGetCurrentClocksEventReasons.
        """
        c = self.client
        lost: list[bool] = []
        util = self._get(index, "utilization", lambda: c.utilization(index), lost)
        memory = self._get(index, "memory", lambda: c.memory_info(index), lost)
        if index not in self._static and not lost:
            max_sm = self._get(index, "max_sm_clock", lambda: c.max_clock_mhz(index, "sm"), lost)
            self._static[index] = (float(memory.total_bytes) if memory else None, float(max_sm) if max_sm else None)
        total, max_sm_clock = self._static.get(index, (None, None))
        reasons_mask = self._get(index, "clocks_event_reasons", lambda: c.clocks_event_reasons(index), lost)
        return GpuSample(
            time_seconds=now,
            index=index,
            utilization_percent=float(util.gpu_percent) if util else None,
            memory_utilization_percent=float(util.memory_percent) if util else None,
            memory_used_bytes=float(memory.used_bytes) if memory else None,
            memory_total_bytes=total,
            temperature_celsius=_float(self._get(index, "temperature", lambda: c.temperature_celsius(index), lost)),
            power_draw_watts=_float(self._get(index, "power", lambda: c.power_draw_watts(index), lost)),
            power_limit_watts=_float(self._get(index, "power_limit", lambda: c.power_limit_watts(index), lost)),
            sm_clock_mhz=_float(self._get(index, "sm_clock", lambda: c.clock_mhz(index, "sm"), lost)),
            max_sm_clock_mhz=max_sm_clock,
            memory_clock_mhz=_float(self._get(index, "memory_clock", lambda: c.clock_mhz(index, "memory"), lost)),
            throttle_reasons=decode_clock_event_reasons(int(reasons_mask)) if reasons_mask is not None else (),
            ecc_uncorrected_errors=_float(self._get(index, "ecc", lambda: c.ecc_uncorrected_errors(index), lost)),
            xid_events=tuple(xids),
            lost=bool(lost),
        )
