"""FakeNvml: an NvmlClient over FakeGpu records, or over readings recorded on a real GPU.

Errors are raised exactly as PynvmlClient raises them: NvmlUnavailable with the reason and
kind that nvml/errors.py gives for the NVML error class.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tfgpu.model.errors import NvmlUnavailable
from tfgpu.nvml.client import MemoryInfo, ProcessInfo, Utilization
from tfgpu.nvml.errors import describe

FIXTURES = Path(__file__).parent.parent / "fixtures" / "nvml"
MIB = 1024 * 1024


def nvml_error(kind: str, source: str = "nvml:nvmlInit") -> NvmlUnavailable:
    info = describe(kind, kind)
    return NvmlUnavailable(info.reason, source, kind=kind)


@dataclass(frozen=True)
class FakeGpu:
    """One GPU's readings; a value that is an NvmlUnavailable is raised when queried."""

    name: str = "NVIDIA H200"
    uuid: str = "GPU-8b3a1f2e-1111-2222-3333-444455556666"
    pci_bus_id: str = "00000000:00:05.0"
    compute_capability: tuple[int, int] = (9, 0)
    memory_info: MemoryInfo = MemoryInfo(143771 * MIB, 0, 143771 * MIB)
    utilization: Utilization = Utilization(0, 0)
    temperature_celsius: int = 30
    slowdown_temperature_celsius: int = 87
    power_draw_watts: float = 75.0
    power_limit_watts: float = 700.0
    clocks: dict[str, int] = field(default_factory=lambda: {"graphics": 345, "sm": 345, "memory": 3201})
    max_clocks: dict[str, int] = field(default_factory=lambda: {"graphics": 1980, "sm": 1980, "memory": 3201})
    clocks_event_reasons: int = 0x1
    persistence_mode: bool = True
    mig_mode: bool | NvmlUnavailable = False
    ecc_uncorrected_errors: int = 0
    ecc_enabled: bool = True
    processes: tuple[ProcessInfo, ...] = ()
    nvlinks_active: int | NvmlUnavailable = field(
        default_factory=lambda: nvml_error("NVMLError_NotSupported", "nvml:nvmlDeviceGetNvLinkState")
    )
    """Not recorded on the lent H200, so unknown by default: NVML's answer for a board without NVLink."""
    violation_microseconds: dict[str, float | NvmlUnavailable] = field(default_factory=dict)
    """The driver's accumulated throttle time per perf policy; not recorded on the lent H200, so 0 for
    every policy unless given (an idle GPU's); NotSupported when the source is in ``unsupported``."""
    unsupported: frozenset[str] = frozenset()


class FakeNvml:
    """NvmlClient protocol over FakeGpu records; ``init_error`` makes every call fail like nvmlInit."""

    def __init__(
        self,
        gpus: list[FakeGpu] | None = None,
        *,
        driver: str = "580.159.04",
        cuda: int = 13000,
        init_error: str | None = None,
        process_names: dict[int, str] | None = None,
        links: dict[tuple[int, int], str] | None = None,
    ) -> None:
        self.gpus = gpus if gpus is not None else [FakeGpu()]
        self.driver = driver
        self.cuda = cuda
        self.init_error = init_error
        self.process_names = process_names or {}
        self.links = links or {}
        """(GPU, peer) → "nvlink" or a TOPOLOGY_LEVELS value; symmetric, "system" when unset."""
        self.calls: list[str] = []
        self.pending_xids: list[tuple[int, int]] = []
        """Xid events the next xid_events() call returns, as (GPU index, Xid)."""

    # scenario factories -------------------------------------------------------------------
    @classmethod
    def no_driver(cls, kind: str = "NVMLError_LibraryNotFound") -> FakeNvml:
        return cls([], init_error=kind)

    @classmethod
    def single_gpu(cls, **changes: Any) -> FakeNvml:
        return cls([replace(FakeGpu(), **changes)])

    @classmethod
    def held_by(cls, pid: int, name: str, used_gib: int, total_gib: int = 140) -> FakeNvml:
        """One GPU of which another process (``name``) holds ``used_gib``, as NVML reports a training still running."""
        used, total = used_gib * 1024**3, total_gib * 1024**3
        memory = MemoryInfo(total, used, total - used)
        return cls(
            [replace(FakeGpu(), memory_info=memory, processes=(ProcessInfo(pid, used),))], process_names={pid: name}
        )

    @classmethod
    def from_recording(cls, name: str, key: str = "idle") -> FakeNvml:
        """Readings recorded by scripts/record_gpu_fixtures.py on a real machine."""
        data = json.loads((FIXTURES / f"{name}.json").read_text())[key]
        if isinstance(data["device_count"], dict):
            return cls.no_driver(data["device_count"]["error"])
        gpus = []
        for g in data["gpus"]:
            mem, util = g["memory_info"], g["utilization"]
            gpus.append(
                FakeGpu(
                    name=g["name"],
                    uuid=g["uuid"],
                    pci_bus_id=g["pci_bus_id"],
                    compute_capability=tuple(g["compute_capability"]),  # type: ignore[arg-type]
                    memory_info=MemoryInfo(mem["total_bytes"], mem["used_bytes"], mem["free_bytes"]),
                    utilization=Utilization(util["gpu_percent"], util["memory_percent"]),
                    temperature_celsius=g["temperature_celsius"],
                    slowdown_temperature_celsius=g["slowdown_temperature_celsius"],
                    power_draw_watts=g["power_draw_watts"],
                    power_limit_watts=g["power_limit_watts"],
                    clocks=g["clock_mhz"],
                    max_clocks=g["max_clock_mhz"],
                    clocks_event_reasons=g["clocks_event_reasons"],
                    persistence_mode=g["persistence_mode"],
                    mig_mode=_value_or_error(g["mig_mode"]),
                    ecc_enabled=g["ecc_enabled"],
                    processes=tuple(ProcessInfo(p["pid"], p["used_memory_bytes"]) for p in g["processes"]),
                    violation_microseconds={
                        p: _value_or_error(v) for p, v in g.get("violation_microseconds", {}).items()
                    },
                )
            )
        return cls(gpus, driver=data["driver_version"], cuda=data["cuda_driver_version"])

    # protocol -----------------------------------------------------------------------------
    def _check(self, source: str) -> None:
        self.calls.append(source)
        if self.init_error:
            raise nvml_error(self.init_error)

    def _gpu(self, index: int, source: str) -> FakeGpu:
        self._check(source)
        if not 0 <= index < len(self.gpus):
            raise nvml_error("NVMLError_InvalidArgument", f"nvml:{source}")
        gpu = self.gpus[index]
        if source in gpu.unsupported:
            raise nvml_error("NVMLError_NotSupported", f"nvml:{source}")
        return gpu

    def _get(self, index: int, source: str, attr: str) -> Any:
        value = getattr(self._gpu(index, source), attr)
        if isinstance(value, NvmlUnavailable):
            raise value
        return value

    def driver_version(self) -> str:
        self._check("nvmlSystemGetDriverVersion")
        return self.driver

    def cuda_driver_version(self) -> int:
        self._check("nvmlSystemGetCudaDriverVersion")
        return self.cuda

    def device_count(self) -> int:
        self._check("nvmlDeviceGetCount")
        return len(self.gpus)

    def name(self, index: int) -> str:
        return str(self._get(index, "nvmlDeviceGetName", "name"))

    def uuid(self, index: int) -> str:
        return str(self._get(index, "nvmlDeviceGetUUID", "uuid"))

    def pci_bus_id(self, index: int) -> str:
        return str(self._get(index, "nvmlDeviceGetPciInfo", "pci_bus_id"))

    def compute_capability(self, index: int) -> tuple[int, int]:
        return tuple(self._get(index, "nvmlDeviceGetCudaComputeCapability", "compute_capability"))  # type: ignore[return-value]

    def memory_info(self, index: int) -> MemoryInfo:
        return self._get(index, "nvmlDeviceGetMemoryInfo", "memory_info")  # type: ignore[no-any-return]

    def utilization(self, index: int) -> Utilization:
        return self._get(index, "nvmlDeviceGetUtilizationRates", "utilization")  # type: ignore[no-any-return]

    def temperature_celsius(self, index: int) -> int:
        return int(self._get(index, "nvmlDeviceGetTemperature", "temperature_celsius"))

    def slowdown_temperature_celsius(self, index: int) -> int:
        return int(self._get(index, "nvmlDeviceGetTemperatureThreshold", "slowdown_temperature_celsius"))

    def power_draw_watts(self, index: int) -> float:
        return float(self._get(index, "nvmlDeviceGetPowerUsage", "power_draw_watts"))

    def power_limit_watts(self, index: int) -> float:
        return float(self._get(index, "nvmlDeviceGetEnforcedPowerLimit", "power_limit_watts"))

    def clock_mhz(self, index: int, kind: str) -> int:
        return int(self._get(index, "nvmlDeviceGetClockInfo", "clocks")[kind])

    def max_clock_mhz(self, index: int, kind: str) -> int:
        return int(self._get(index, "nvmlDeviceGetMaxClockInfo", "max_clocks")[kind])

    def clocks_event_reasons(self, index: int) -> int:
        return int(self._get(index, "nvmlDeviceGetCurrentClocksEventReasons", "clocks_event_reasons"))

    def violation_microseconds(self, index: int, policy: str) -> float:
        value = self._gpu(index, "nvmlDeviceGetViolationStatus").violation_microseconds.get(policy, 0.0)
        if isinstance(value, NvmlUnavailable):
            raise value
        return float(value)

    def persistence_mode(self, index: int) -> bool:
        return bool(self._get(index, "nvmlDeviceGetPersistenceMode", "persistence_mode"))

    def mig_mode(self, index: int) -> bool:
        return bool(self._get(index, "nvmlDeviceGetMigMode", "mig_mode"))

    def ecc_enabled(self, index: int) -> bool:
        return bool(self._get(index, "nvmlDeviceGetEccMode", "ecc_enabled"))

    def processes(self, index: int) -> list[ProcessInfo]:
        return list(self._get(index, "nvmlDeviceGetComputeRunningProcesses", "processes"))

    def ecc_uncorrected_errors(self, index: int) -> int:
        return int(self._get(index, "nvmlDeviceGetTotalEccErrors", "ecc_uncorrected_errors"))

    def xid_events(self) -> list[tuple[int, int]]:
        self._check("nvmlEventSetWait")
        events, self.pending_xids = self.pending_xids, []
        return events

    def nvlinks_active(self, index: int) -> int:
        return int(self._get(index, "nvmlDeviceGetNvLinkState", "nvlinks_active"))

    def link_to(self, index: int, peer: int) -> str:
        self._gpu(index, "nvmlDeviceGetP2PStatus")
        self._gpu(peer, "nvmlDeviceGetP2PStatus")
        return self.links.get((index, peer)) or self.links.get((peer, index)) or "system"

    def process_name(self, pid: int) -> str:
        self._check("nvmlSystemGetProcessName")
        if pid not in self.process_names:
            raise nvml_error("NVMLError_NotFound", "nvml:nvmlSystemGetProcessName")
        return self.process_names[pid]


def _value_or_error(value: Any) -> Any:
    if isinstance(value, dict) and "error" in value:
        return nvml_error(value["error"], value.get("source", "nvml"))
    return value


class SeriesNvml(FakeNvml):
    """GPU 0 replays a recorded 10 Hz series: each utilization() call moves to the next reading.

    Built from the `idle_series` / `load_series` that scripts/record_gpu_fixtures.py recorded on
    the H200 (the load series ran bf16 matmuls in PyTorch and shows the 700 W power cap).
    """

    def __init__(self, name: str, key: str, *, lost_after: int | None = None) -> None:
        base = FakeNvml.from_recording(name)
        super().__init__(base.gpus, driver=base.driver, cuda=base.cuda)
        self.rows = json.loads((FIXTURES / f"{name}.json").read_text())[key]
        self.position = -1
        self.lost_after = lost_after

    def _row(self, source: str) -> dict[str, Any]:
        if self.lost_after is not None and self.position >= self.lost_after:
            raise nvml_error("NVMLError_GpuIsLost", f"nvml:{source}")
        return self.rows[min(self.position, len(self.rows) - 1)]

    def utilization(self, index: int) -> Utilization:
        self.position += 1
        u = self._row("nvmlDeviceGetUtilizationRates")["utilization"]
        return Utilization(u["gpu_percent"], u["memory_percent"])

    def memory_info(self, index: int) -> MemoryInfo:
        m = self._row("nvmlDeviceGetMemoryInfo")["memory_info"]
        return MemoryInfo(m["total_bytes"], m["used_bytes"], m["free_bytes"])

    def temperature_celsius(self, index: int) -> int:
        return int(self._row("nvmlDeviceGetTemperature")["temperature_celsius"])

    def power_draw_watts(self, index: int) -> float:
        return float(self._row("nvmlDeviceGetPowerUsage")["power_draw_watts"])

    def clock_mhz(self, index: int, kind: str) -> int:
        row = self._row("nvmlDeviceGetClockInfo")
        return int(row["memory_clock_mhz"] if kind == "memory" else row["sm_clock_mhz"])

    def clocks_event_reasons(self, index: int) -> int:
        return int(self._row("nvmlDeviceGetCurrentClocksEventReasons")["clocks_event_reasons"])
