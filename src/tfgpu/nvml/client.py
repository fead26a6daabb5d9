"""The NvmlClient protocol and its only real implementation, over nvidia-ml-py.

Every query either returns a value or raises ``NvmlUnavailable`` with the reason in words.
``PynvmlClient`` initialises NVML lazily on the first query, under a lock, and shuts it down
at exit (nvitop's pattern; gpustat initialising at import time is the anti-pattern).
Source of each value: the NVML function named in each method's docstring.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol, TypeVar

from tfgpu.model.errors import NvmlUnavailable
from tfgpu.nvml.errors import describe

T = TypeVar("T")

CLOCK_KINDS = ("graphics", "sm", "memory")


@dataclass(frozen=True)
class MemoryInfo:
    """Frame-buffer memory in bytes (nvidia-smi ``memory.total``, ``memory.used``, ``memory.free``)."""

    total_bytes: int
    used_bytes: int
    free_bytes: int


@dataclass(frozen=True)
class Utilization:
    """Percent of the last sample period the GPU and its memory were busy."""

    gpu_percent: int
    memory_percent: int


@dataclass(frozen=True)
class ProcessInfo:
    """A process with a context on a GPU."""

    pid: int
    used_memory_bytes: int | None


class NvmlClient(Protocol):
    """Read-only access to NVML; every method may raise ``NvmlUnavailable``."""

    def driver_version(self) -> str:
        """Driver version string (nvmlSystemGetDriverVersion)."""
        ...

    def cuda_driver_version(self) -> int:
        """Newest CUDA the driver supports, e.g. 12040 (nvmlSystemGetCudaDriverVersion_v2)."""
        ...

    def device_count(self) -> int:
        """Number of GPUs NVML sees (nvmlDeviceGetCount)."""
        ...

    def name(self, index: int) -> str:
        """Product name (nvmlDeviceGetName)."""
        ...

    def uuid(self, index: int) -> str:
        """GPU UUID (nvmlDeviceGetUUID)."""
        ...

    def pci_bus_id(self, index: int) -> str:
        """PCI bus id (nvmlDeviceGetPciInfo)."""
        ...

    def compute_capability(self, index: int) -> tuple[int, int]:
        """CUDA compute capability (nvmlDeviceGetCudaComputeCapability)."""
        ...

    def memory_info(self, index: int) -> MemoryInfo:
        """Frame-buffer memory (nvmlDeviceGetMemoryInfo)."""
        ...

    def utilization(self, index: int) -> Utilization:
        """Utilization rates (nvmlDeviceGetUtilizationRates)."""
        ...

    def temperature_celsius(self, index: int) -> int:
        """GPU core temperature (nvmlDeviceGetTemperature)."""
        ...

    def slowdown_temperature_celsius(self, index: int) -> int:
        """Temperature at which the GPU slows down (nvmlDeviceGetTemperatureThreshold)."""
        ...

    def power_draw_watts(self, index: int) -> float:
        """Power draw (nvmlDeviceGetPowerUsage)."""
        ...

    def power_limit_watts(self, index: int) -> float:
        """Enforced power limit (nvmlDeviceGetEnforcedPowerLimit)."""
        ...

    def clock_mhz(self, index: int, kind: str) -> int:
        """Current clock of ``kind`` in CLOCK_KINDS (nvmlDeviceGetClockInfo)."""
        ...

    def max_clock_mhz(self, index: int, kind: str) -> int:
        """Maximum clock of ``kind`` (nvmlDeviceGetMaxClockInfo)."""
        ...

    def clocks_event_reasons(self, index: int) -> int:
        """Bitmask of why clocks are held down (nvmlDeviceGetCurrentClocksEventReasons)."""
        ...

    def violation_microseconds(self, index: int, policy: str) -> float:
        """Microseconds the clocks were held down for ``policy`` since the driver loaded (nvmlDeviceGetViolationStatus).

        ``policy`` is one of model/samples.VIOLATION_METRICS's.
        """
        ...

    def persistence_mode(self, index: int) -> bool:
        """Persistence mode (nvmlDeviceGetPersistenceMode)."""
        ...

    def mig_mode(self, index: int) -> bool:
        """Whether MIG is enabled now (nvmlDeviceGetMigMode)."""
        ...

    def ecc_enabled(self, index: int) -> bool:
        """Whether ECC is on now (nvmlDeviceGetEccMode)."""
        ...

    def processes(self, index: int) -> list[ProcessInfo]:
        """Compute and graphics processes (nvmlDeviceGetComputeRunningProcesses and graphics)."""
        ...

    def process_name(self, pid: int) -> str:
        """Process name (nvmlSystemGetProcessName)."""
        ...

    def ecc_uncorrected_errors(self, index: int) -> int:
        """Uncorrected ECC errors since the driver loaded (nvmlDeviceGetTotalEccErrors, volatile)."""
        ...

    def xid_events(self) -> list[tuple[int, int]]:
        """(GPU index, Xid) of critical errors since the last call, without waiting (nvmlEventSetWait)."""
        ...

    def nvlinks_active(self, index: int) -> int:
        """NVLink links that are up (nvmlDeviceGetNvLinkState over every link)."""
        ...

    def link_to(self, index: int, peer: int) -> str:
        """How two GPUs reach each other: "nvlink", or a PCIe level (a value of TOPOLOGY_LEVELS).

        NVLink when nvmlDeviceGetP2PStatus says peer access over it works, else the common
        ancestor of the two on the PCIe tree (nvmlDeviceGetTopologyCommonAncestor).
        """
        ...


def _load_binding() -> ModuleType:
    try:
        import pynvml
    except ImportError as exc:
        raise NvmlUnavailable("nvidia-ml-py is not installed", "import pynvml", kind="BindingMissing") from exc
    # An old unofficial `pynvml` distribution can shadow nvidia-ml-py's module; it lacks
    # functions every supported driver has (gpustat and nvitop probe the same way).
    if not hasattr(pynvml, "nvmlDeviceGetCudaComputeCapability"):
        raise NvmlUnavailable(
            "the pynvml module is an old unofficial binding, not nvidia-ml-py",
            "import pynvml",
            kind="BadBinding",
        )
    module: ModuleType = pynvml
    return module


# nvmlGpuTopologyLevel_t (nvml.h) → the key tfgpu uses; nvidia-smi topo -m prints the same levels
# as PIX/PXB/PHB/NODE/SYS.
TOPOLOGY_LEVELS: dict[int, str] = {
    0: "board",
    10: "pcie-switch",
    20: "pcie-switches",
    30: "host-bridge",
    40: "numa-node",
    50: "system",
}


INIT_DEADLINE_SECONDS = 20.0
"""How long nvmlInit may take: a healthy driver answers in well under a second (a few seconds on a
many-GPU machine without the persistence daemon); one that never returns must not hang the doctor or
the monitor (issue 25), so the call runs on its own thread and NVML counts as unavailable after this."""


def _initialised(deadline_seconds: float) -> ModuleType:
    """The binding after nvmlInit, which runs on a daemon thread so that a hung driver costs the deadline, not the process.

    Raises:
        NvmlUnavailable: no binding, nvmlInit failed, or it did not return within the deadline.
    """
    outcome: list[ModuleType | BaseException] = []

    def init() -> None:
        try:
            nvml = _load_binding()
            nvml.nvmlInit()
            outcome.append(nvml)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread as it is
            outcome.append(exc)

    thread = threading.Thread(target=init, name="tfgpu-nvml-init", daemon=True)
    thread.start()
    thread.join(deadline_seconds)
    if not outcome:
        raise NvmlUnavailable(
            f"nvmlInit did not return within {deadline_seconds:.0f} s (a hung driver or a GPU in a bad state: "
            "check dmesg and nvidia-smi)",
            "nvml:nvmlInit",
            kind="Timeout",
        )
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


class PynvmlClient:
    """NvmlClient over nvidia-ml-py. Thread-safe; initialises on first use, within INIT_DEADLINE_SECONDS."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._nvml: ModuleType | None = None
        self._init_error: NvmlUnavailable | None = None
        self._handles: dict[int, Any] = {}
        self._events: tuple[Any, dict[str, int]] | None = None

    def _module(self) -> ModuleType:
        with self._lock:
            if self._nvml is not None:
                return self._nvml
            if self._init_error is not None:
                raise self._init_error
            try:
                nvml = _initialised(INIT_DEADLINE_SECONDS)
            except NvmlUnavailable as exc:
                self._init_error = exc
                raise
            except Exception as exc:
                self._init_error = _translate(exc, "nvml:nvmlInit")
                raise self._init_error from exc
            atexit.register(self._shutdown)
            self._nvml = nvml
            return nvml

    def _shutdown(self) -> None:
        with self._lock:
            if self._nvml is not None:
                with contextlib.suppress(Exception):  # nothing to do about it at exit
                    self._nvml.nvmlShutdown()
                self._nvml = None

    def _call(self, source: str, fn: Callable[[ModuleType], T]) -> T:
        nvml = self._module()
        try:
            return fn(nvml)
        except NvmlUnavailable:
            raise
        except Exception as exc:
            raise _translate(exc, f"nvml:{source}") from exc

    def _handle(self, index: int) -> Any:
        if index not in self._handles:
            self._handles[index] = self._call(
                "nvmlDeviceGetHandleByIndex", lambda n: n.nvmlDeviceGetHandleByIndex(index)
            )
        return self._handles[index]

    def _device(self, index: int, source: str, fn: Callable[[ModuleType, Any], T]) -> T:
        handle = self._handle(index)
        return self._call(source, lambda n: fn(n, handle))

    def driver_version(self) -> str:
        """See NvmlClient."""
        return _text(self._call("nvmlSystemGetDriverVersion", lambda n: n.nvmlSystemGetDriverVersion()))

    def cuda_driver_version(self) -> int:
        """See NvmlClient."""
        return int(self._call("nvmlSystemGetCudaDriverVersion", _cuda_driver_version))

    def device_count(self) -> int:
        """See NvmlClient."""
        return int(self._call("nvmlDeviceGetCount", lambda n: n.nvmlDeviceGetCount()))

    def name(self, index: int) -> str:
        """See NvmlClient."""
        return _text(self._device(index, "nvmlDeviceGetName", lambda n, h: n.nvmlDeviceGetName(h)))

    def uuid(self, index: int) -> str:
        """See NvmlClient."""
        return _text(self._device(index, "nvmlDeviceGetUUID", lambda n, h: n.nvmlDeviceGetUUID(h)))

    def pci_bus_id(self, index: int) -> str:
        """See NvmlClient."""
        info = self._device(index, "nvmlDeviceGetPciInfo", lambda n, h: n.nvmlDeviceGetPciInfo(h))
        return _text(info.busId)

    def compute_capability(self, index: int) -> tuple[int, int]:
        """See NvmlClient."""
        major, minor = self._device(
            index, "nvmlDeviceGetCudaComputeCapability", lambda n, h: n.nvmlDeviceGetCudaComputeCapability(h)
        )
        return int(major), int(minor)

    def memory_info(self, index: int) -> MemoryInfo:
        """See NvmlClient."""
        mem = self._device(index, "nvmlDeviceGetMemoryInfo", lambda n, h: n.nvmlDeviceGetMemoryInfo(h))
        return MemoryInfo(int(mem.total), int(mem.used), int(mem.free))

    def utilization(self, index: int) -> Utilization:
        """See NvmlClient."""
        rates = self._device(index, "nvmlDeviceGetUtilizationRates", lambda n, h: n.nvmlDeviceGetUtilizationRates(h))
        return Utilization(int(rates.gpu), int(rates.memory))

    def temperature_celsius(self, index: int) -> int:
        """See NvmlClient."""
        return int(
            self._device(
                index, "nvmlDeviceGetTemperature", lambda n, h: n.nvmlDeviceGetTemperature(h, n.NVML_TEMPERATURE_GPU)
            )
        )

    def slowdown_temperature_celsius(self, index: int) -> int:
        """See NvmlClient."""
        return int(
            self._device(
                index,
                "nvmlDeviceGetTemperatureThreshold",
                lambda n, h: n.nvmlDeviceGetTemperatureThreshold(h, n.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN),
            )
        )

    def power_draw_watts(self, index: int) -> float:
        """See NvmlClient."""
        return float(self._device(index, "nvmlDeviceGetPowerUsage", lambda n, h: n.nvmlDeviceGetPowerUsage(h))) / 1000.0

    def power_limit_watts(self, index: int) -> float:
        """See NvmlClient."""
        milliwatts = self._device(
            index, "nvmlDeviceGetEnforcedPowerLimit", lambda n, h: n.nvmlDeviceGetEnforcedPowerLimit(h)
        )
        return float(milliwatts) / 1000.0

    def clock_mhz(self, index: int, kind: str) -> int:
        """See NvmlClient."""
        return int(
            self._device(index, "nvmlDeviceGetClockInfo", lambda n, h: n.nvmlDeviceGetClockInfo(h, _clock(n, kind)))
        )

    def max_clock_mhz(self, index: int, kind: str) -> int:
        """See NvmlClient."""
        return int(
            self._device(
                index, "nvmlDeviceGetMaxClockInfo", lambda n, h: n.nvmlDeviceGetMaxClockInfo(h, _clock(n, kind))
            )
        )

    def clocks_event_reasons(self, index: int) -> int:
        """See NvmlClient. Falls back to the pre-535 name ``…ClocksThrottleReasons``."""

        def read(n: ModuleType, h: Any) -> int:
            fn = (
                getattr(n, "nvmlDeviceGetCurrentClocksEventReasons", None)
                or n.nvmlDeviceGetCurrentClocksThrottleReasons
            )
            return int(fn(h))

        return self._device(index, "nvmlDeviceGetCurrentClocksEventReasons", read)

    def violation_microseconds(self, index: int, policy: str) -> float:
        """See NvmlClient. NVML reports nanoseconds."""

        def read(n: ModuleType, h: Any) -> float:
            status = n.nvmlDeviceGetViolationStatus(h, getattr(n, f"NVML_PERF_POLICY_{policy.upper()}"))
            return int(status.violationTime) / 1000.0

        return self._device(index, "nvmlDeviceGetViolationStatus", read)

    def persistence_mode(self, index: int) -> bool:
        """See NvmlClient."""
        mode = self._device(index, "nvmlDeviceGetPersistenceMode", lambda n, h: n.nvmlDeviceGetPersistenceMode(h))
        return bool(mode)

    def mig_mode(self, index: int) -> bool:
        """See NvmlClient."""
        current, _pending = self._device(index, "nvmlDeviceGetMigMode", lambda n, h: n.nvmlDeviceGetMigMode(h))
        return bool(current)

    def ecc_enabled(self, index: int) -> bool:
        """See NvmlClient."""
        current, _pending = self._device(index, "nvmlDeviceGetEccMode", lambda n, h: n.nvmlDeviceGetEccMode(h))
        return bool(current)

    def processes(self, index: int) -> list[ProcessInfo]:
        """See NvmlClient. A pid in both lists is reported once."""

        def read(n: ModuleType, h: Any) -> list[ProcessInfo]:
            seen: dict[int, ProcessInfo] = {}
            for fn in (n.nvmlDeviceGetComputeRunningProcesses, n.nvmlDeviceGetGraphicsRunningProcesses):
                for proc in fn(h):
                    used = proc.usedGpuMemory
                    # NVML reports NVML_VALUE_NOT_AVAILABLE (2**64-1) or None without permission.
                    used_bytes = None if used is None or used >= 2**63 else int(used)
                    seen.setdefault(int(proc.pid), ProcessInfo(int(proc.pid), used_bytes))
            return list(seen.values())

        return self._device(index, "nvmlDeviceGetComputeRunningProcesses", read)

    def process_name(self, pid: int) -> str:
        """See NvmlClient."""
        return _text(self._call("nvmlSystemGetProcessName", lambda n: n.nvmlSystemGetProcessName(pid)))

    def ecc_uncorrected_errors(self, index: int) -> int:
        """See NvmlClient."""
        return int(
            self._device(
                index,
                "nvmlDeviceGetTotalEccErrors",
                lambda n, h: n.nvmlDeviceGetTotalEccErrors(
                    h, n.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, n.NVML_VOLATILE_ECC
                ),
            )
        )

    def _register_xid(self, event_set: Any, handle: Any) -> None:
        def register(n: ModuleType) -> None:
            n.nvmlDeviceRegisterEvents(handle, n.nvmlEventTypeXidCriticalError, event_set)

        self._call("nvmlDeviceRegisterEvents", register)

    def xid_events(self) -> list[tuple[int, int]]:
        """See NvmlClient. The event set is created on first use for every GPU."""
        nvml = self._module()
        if self._events is None:
            event_set = self._call("nvmlEventSetCreate", lambda n: n.nvmlEventSetCreate())
            uuids = {}
            for index in range(self.device_count()):
                self._register_xid(event_set, self._handle(index))
                uuids[self.uuid(index)] = index
            self._events = (event_set, uuids)
        event_set, uuids = self._events
        out: list[tuple[int, int]] = []
        while True:
            try:
                event = nvml.nvmlEventSetWait(event_set, 0)
            except Exception:  # noqa: BLE001 - NVMLError_Timeout: no event pending
                return out
            out.append((uuids.get(_text(nvml.nvmlDeviceGetUUID(event.device)), -1), int(event.eventData)))

    def nvlinks_active(self, index: int) -> int:
        """See NvmlClient. A link NVML cannot read (absent on this board) counts as down."""

        def count(n: ModuleType, handle: Any) -> int:
            up = 0
            for link in range(n.NVML_NVLINK_MAX_LINKS):
                try:
                    up += int(n.nvmlDeviceGetNvLinkState(handle, link) == n.NVML_FEATURE_ENABLED)
                except n.NVMLError:
                    continue
            return up

        return self._device(index, "nvmlDeviceGetNvLinkState", count)

    def link_to(self, index: int, peer: int) -> str:
        """See NvmlClient."""
        a, b = self._handle(index), self._handle(peer)

        def read(n: ModuleType) -> str:
            if n.nvmlDeviceGetP2PStatus(a, b, n.NVML_P2P_CAPS_INDEX_NVLINK) == n.NVML_P2P_STATUS_OK:
                return "nvlink"
            return TOPOLOGY_LEVELS.get(int(n.nvmlDeviceGetTopologyCommonAncestor(a, b)), "unknown")

        return self._call("nvmlDeviceGetP2PStatus", read)


def _cuda_driver_version(n: ModuleType) -> int:
    fn = getattr(n, "nvmlSystemGetCudaDriverVersion_v2", None) or n.nvmlSystemGetCudaDriverVersion
    return int(fn())


def _clock(n: ModuleType, kind: str) -> int:
    table = {"graphics": n.NVML_CLOCK_GRAPHICS, "sm": n.NVML_CLOCK_SM, "memory": n.NVML_CLOCK_MEM}
    if kind not in table:
        raise ValueError(f"clock kind must be one of {CLOCK_KINDS}: {kind!r}")
    return int(table[kind])


def _text(value: Any) -> str:
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)


def _translate(exc: Exception, source: str) -> NvmlUnavailable:
    kind = type(exc).__name__
    info = describe(kind, str(exc))
    return NvmlUnavailable(info.reason, source, kind=kind)
