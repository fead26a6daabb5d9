"""One poll of a GPU, and statistics over many: the monitor's data."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from tfgpu.model.findings import Severity

THROTTLE_REASON_WORDS: dict[str, str] = {
    "gpu_idle": "idle",
    "applications_clocks_setting": "app clocks",
    "sw_power_cap": "power cap",
    "hw_slowdown": "HW slowdown",
    "sync_boost": "sync boost",
    "sw_thermal_slowdown": "thermal (SW)",
    "hw_thermal_slowdown": "thermal (HW)",
    "hw_power_brake_slowdown": "power brake",
    "display_clock_setting": "display clock",
}
"""NVML clocks-event reasons (nvml.collect names them) in the words the monitor shows."""

THERMAL_REASONS = ("sw_thermal_slowdown", "hw_thermal_slowdown", "hw_slowdown", "hw_power_brake_slowdown")
"""The clocks-event reasons that mean heat or hardware slowdown (not the normal power cap)."""

DCGM_METRICS = (
    ("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", "utilization_percent", 1.0),
    ("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", "memory_used_bytes", 1 / 2**20),
    ("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", "temperature_celsius", 1.0),
    ("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", "power_draw_watts", 1.0),
    ("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", "sm_clock_mhz", 1.0),
    ("DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", "memory_clock_mhz", 1.0),
)
"""(DCGM exporter's metric name, its help text, the GpuSample field, the scale to DCGM's unit): a dashboard
built on DCGM's series reads tfgpu's under the same names and joins them by the ``UUID`` label."""
DCGM_LABELS = ("gpu", "UUID", "Hostname", "modelName")
JOB_LABELS = ("pod", "namespace", "hpc_job")
"""DCGM exporter's labels for the workload using a GPU (Kubernetes pod and namespace, a Slurm job through
its HPC job mapping): tfgpu sets the ones it knows from inside the job, so the series also join on them."""
VIOLATION_METRICS = (
    ("power", "DCGM_FI_DEV_POWER_VIOLATION", "Throttling duration due to power constraints (in us)."),
    ("thermal", "DCGM_FI_DEV_THERMAL_VIOLATION", "Throttling duration due to thermal constraints (in us)."),
    ("sync_boost", "DCGM_FI_DEV_SYNC_BOOST_VIOLATION", "Throttling duration due to sync-boost constraints (in us)."),
    ("board_limit", "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", "Throttling duration due to board limit constraints (in us)."),
    ("low_utilization", "DCGM_FI_DEV_LOW_UTIL_VIOLATION", "Throttling duration due to low utilization (in us)."),
    ("reliability", "DCGM_FI_DEV_RELIABILITY_VIOLATION", "Throttling duration due to reliability constraints (in us)."),
)
"""(NVML perf policy, DCGM exporter's metric name, its help text): the driver's accumulated throttle time
per reason (nvmlDeviceGetViolationStatus), which DCGM exporter exports as counters when enabled
(https://github.com/NVIDIA/dcgm-exporter/blob/main/etc/default-counters.csv). Unlike the sampled
clocks-event flags they miss no throttling between two readings."""

SAMPLE_METRICS = (
    "utilization_percent",
    "memory_utilization_percent",
    "memory_used_bytes",
    "temperature_celsius",
    "power_draw_watts",
    "sm_clock_mhz",
    "memory_clock_mhz",
)


@dataclass(frozen=True)
class GpuSample:
    """One reading of one GPU. A metric the GPU does not report is None.

    nvidia-smi keys: utilization.gpu, utilization.memory, memory.used, memory.total,
    temperature.gpu, power.draw, power.limit, clocks.sm, clocks.mem, clocks_event_reasons.active.
    """

    time_seconds: float
    index: int
    utilization_percent: float | None
    memory_utilization_percent: float | None
    memory_used_bytes: float | None
    memory_total_bytes: float | None
    temperature_celsius: float | None
    power_draw_watts: float | None
    power_limit_watts: float | None
    sm_clock_mhz: float | None
    max_sm_clock_mhz: float | None
    memory_clock_mhz: float | None
    throttle_reasons: tuple[str, ...] = ()
    ecc_uncorrected_errors: float | None = None
    """Volatile uncorrected ECC errors (nvidia-smi ecc.errors.uncorrected.volatile.total)."""
    xid_events: tuple[int, ...] = ()
    """Critical Xid errors NVML reported since the previous sample."""
    lost: bool = False
    """The GPU stopped answering (fell off the bus) at this sample."""


@dataclass(frozen=True)
class MetricStats:
    """Mean, min, max and last of one metric over a window; None when never reported."""

    mean: float | None
    min: float | None
    max: float | None
    last: float | None
    count: int


@dataclass(frozen=True)
class SampleStats:
    """Statistics of one GPU over a window of samples."""

    index: int
    samples: int
    seconds: float
    metrics: tuple[tuple[str, MetricStats], ...]
    throttle_fractions: tuple[tuple[str, float], ...]
    """Per throttle reason, the fraction of samples in which it was active."""
    idle_fraction: float | None
    """Fraction of samples with utilization below 5 %."""
    memory_total_bytes: float | None
    max_sm_clock_mhz: float | None
    lost: bool
    ecc_errors_added: float = 0.0
    """Rise of the uncorrected ECC counter over the window."""
    xid_events: tuple[int, ...] = ()

    def get(self, metric: str) -> MetricStats:
        """The statistics of one metric (all None when unknown)."""
        return dict(self.metrics).get(metric, MetricStats(None, None, None, None, 0))

    def throttle(self, reason: str) -> float:
        """Fraction of samples with that throttle reason active."""
        return dict(self.throttle_fractions).get(reason, 0.0)

    def thermal_throttle(self) -> float:
        """Fraction of samples slowed for heat: the most frequent of the THERMAL_REASONS."""
        return max(self.throttle(r) for r in THERMAL_REASONS)


@dataclass(frozen=True)
class EpochFigures:
    """One training epoch as GpuMonitor measured it: what the exposition publishes for a fleet's dashboards."""

    number: int
    seconds: float
    first_seconds: float
    """The first epoch's seconds: tracing and, under XLA, compilation are what it has beyond a later one."""
    steps: int | None = None
    samples: int | None = None
    """Samples trained on (steps x GpuMonitor's batch_size), None when the batch is not known."""
    gpu_busy_percent: tuple[tuple[int, float], ...] = ()
    """(NVML index, mean utilization over the epoch): 100 minus it is the share the GPU ran no kernel."""
    verdict: str | None = None
    """The id of the epoch's first bottleneck verdict (input-bound, gpu-bound, ...)."""
    xla_compiled: int | None = None
    """Programs XLA compiled and wrote to its persistent cache since training began (cache misses)."""
    xla_loaded: int | None = None
    """Programs loaded from that cache since training began (hits); None when opens cannot be watched."""


@dataclass(frozen=True)
class Verdict:
    """The bottleneck named from samples and step times, with what to change."""

    id: str
    severity: Severity
    summary: str
    detail: str
    advice: tuple[str, ...]


class JudgedFrom(str, Enum):
    """Where the window the GPU is judged over begins: the best mark the caller had for training's start."""

    TRAINING = "its training steps (the first step, tracing and compilation, left out)"
    FIRST_PROGRAM = "when XLA's first compiled program was written (start-up and compilation left out)"
    SECOND_EPOCH = "the second epoch on (the first holds tracing and compilation)"
    FIRST_ACTIVITY = "its first activity on"
    WHOLE_RUN = "every sample"
