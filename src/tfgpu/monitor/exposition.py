"""Prometheus exposition of the GPUs' readings and a training's pace, for a fleet's dashboards.

Device figures carry DCGM exporter's names and join labels (``gpu``, ``UUID``, ``Hostname``,
``modelName``), so a dashboard built on DCGM reads tfgpu's series beside it and joins them by
``UUID``, the driver's throttle time per reason included (DCGM's ``*_VIOLATION`` names, off by
default in DCGM exporter); tfgpu adds what DCGM cannot see: throttle reasons by name, its health judgement, and,
from GpuMonitor, the training's pace (epoch and step seconds, samples/s), the share of each epoch the GPU
ran no kernel, the epoch's bottleneck verdict, and XLA's persistent-cache compiles and loads. Served over HTTP (``port``) and/or
written as a node-exporter textfile (``textfile``, replaced whole each time), through
prometheus_client (the ``metrics`` extra), from a registry of its own. Only NVML's device queries
are read, never the profiling counters a running DCGM exporter may hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tfgpu.model.errors import NvmlUnavailable, UsageError
from tfgpu.model.samples import (
    DCGM_LABELS,
    JOB_LABELS,
    THROTTLE_REASON_WORDS,
    VIOLATION_METRICS,
    EpochFigures,
    GpuSample,
)
from tfgpu.monitor.gauges import METRICS_INSTALL, DeviceGauges, metrics_available
from tfgpu.monitor.snapshot import judge_sample
from tfgpu.nvml.client import NvmlClient
from tfgpu.nvml.collect import identity
from tfgpu.system.files import read_regular_or_none

THROTTLE_REASONS = tuple(THROTTLE_REASON_WORDS)


TRAINING_METRICS = (
    ("tfgpu_training_epoch", "Epochs finished."),
    ("tfgpu_training_epoch_seconds", "Seconds of the last epoch."),
    ("tfgpu_training_step_seconds", "Mean seconds per step of the last epoch."),
    ("tfgpu_training_first_epoch_seconds", "Seconds of the first epoch (tracing and compilation in it)."),
    ("tfgpu_training_samples_per_second", "Samples per second of the last epoch (GpuMonitor's batch_size)."),
    (
        "tfgpu_xla_cache_programs_compiled",
        "Programs XLA compiled and wrote to its persistent cache since training began (misses).",
    ),
    ("tfgpu_xla_cache_programs_loaded", "Programs loaded from XLA's persistent cache since training began (hits)."),
)
"""Per-process training gauges (labels Hostname and the job's), set at each epoch's end."""

KUBERNETES_NAMESPACE_FILE = "var/run/secrets/kubernetes.io/serviceaccount/namespace"


def job_labels(environ: Mapping[str, str], root: str = "/") -> dict[str, str]:
    """The JOB_LABELS this process can name from inside its job.

    Slurm: ``hpc_job`` is SLURM_JOB_ID. Kubernetes: ``pod`` is POD_NAME (the downward API's usual
    name), else HOSTNAME (a pod's default hostname is its name); ``namespace`` is POD_NAMESPACE, else
    the service account's namespace file.
    """
    labels: dict[str, str] = {}
    if environ.get("KUBERNETES_SERVICE_HOST"):
        pod = environ.get("POD_NAME") or environ.get("HOSTNAME")
        namespace = environ.get("POD_NAMESPACE") or _service_account_namespace(root)
        labels.update({k: v for k, v in (("pod", pod), ("namespace", namespace)) if v})
    if environ.get("SLURM_JOB_ID"):
        labels["hpc_job"] = environ["SLURM_JOB_ID"]
    return labels


def _service_account_namespace(root: str) -> str:
    data = read_regular_or_none(Path(root) / KUBERNETES_NAMESPACE_FILE, 256)
    return data.decode("utf-8", "replace").strip() if data else ""


def open_prometheus_sink(
    hostname: str,
    nvml: NvmlClient,
    indices: Sequence[int],
    *,
    port: int | None,
    textfile: str | None,
    job: Mapping[str, str] | None = None,
) -> PrometheusSink:
    """The exposition for ``--prometheus-port`` / ``--textfile``, refused in words when it cannot be served.

    Raises:
        UsageError: prometheus_client is not installed, or the port cannot be bound.
    """
    if not metrics_available():
        raise UsageError(f"--prometheus-port and --textfile need prometheus_client: {METRICS_INSTALL}")
    try:
        return PrometheusSink(hostname, nvml, indices, port=port, textfile=textfile, job=job)
    except OSError as exc:
        raise UsageError(f"--prometheus-port {port}: {exc.strerror or exc}") from None


class PrometheusSink:
    """A sampler sink (``on_sample``) that keeps the latest reading of each GPU as Prometheus gauges."""

    def __init__(
        self,
        hostname: str,
        nvml: NvmlClient,
        indices: Sequence[int],
        *,
        port: int | None = None,
        textfile: str | None = None,
        job: Mapping[str, str] | None = None,
    ) -> None:
        """``job``: JOB_LABELS values (job_labels()), set on every series beside DCGM's labels."""
        from prometheus_client import CollectorRegistry, Gauge, start_http_server

        self.registry = CollectorRegistry()
        self.hostname, self.textfile = hostname, textfile
        job = {k: v for k, v in (job or {}).items() if k in JOB_LABELS}
        self.job_names, self.job_values = tuple(job), tuple(job.values())
        self.labels: dict[int, tuple[str, ...]] = {}
        for i in indices:
            name, uuid = identity(nvml, i)
            self.labels[i] = (str(i), uuid, hostname, name, *self.job_values)
        self.gauges = DeviceGauges(self.registry, self.job_names)
        self.throttle = Gauge(
            "tfgpu_gpu_clocks_event_active",
            "1 while NVML reports this clocks-event (throttle) reason active.",
            (*DCGM_LABELS, *self.job_names, "reason"),
            registry=self.registry,
        )
        self.nvml = nvml
        self.violations = [
            (policy, Gauge(name, text, (*DCGM_LABELS, *self.job_names), registry=self.registry))
            for policy, name, text in VIOLATION_METRICS
        ]
        self.unsupported: set[tuple[int, str]] = set()
        self.training: dict[str, Any] = {
            name: Gauge(name, text, ("Hostname", *self.job_names), registry=self.registry)
            for name, text in TRAINING_METRICS
        }
        self.idle = Gauge(
            "tfgpu_training_gpu_idle_ratio",
            "Share of the last epoch this GPU ran no kernel (1 - NVML utilization): input waits, host work and "
            "synchronisation together.",
            (*DCGM_LABELS, *self.job_names),
            registry=self.registry,
        )
        self.bottleneck = Gauge(
            "tfgpu_training_bottleneck",
            "1 for the bottleneck tfgpu's verdict named for the last epoch, 0 for those named before.",
            ("Hostname", *self.job_names, "verdict"),
            registry=self.registry,
        )
        self.verdicts: set[str] = set()
        if port is not None:
            start_http_server(port, registry=self.registry)

    def __call__(self, sample: GpuSample) -> None:
        """Set one GPU's gauges from its latest reading (a figure it did not report keeps its last value)."""
        key = self.labels.get(sample.index) or (
            str(sample.index),
            "unknown",
            self.hostname,
            "unknown",
            *self.job_values,
        )
        self.gauges.set(sample, key, judge_sample(sample, None)[0])
        for reason in THROTTLE_REASONS:
            self.throttle.labels(*key, THROTTLE_REASON_WORDS[reason]).set(1 if reason in sample.throttle_reasons else 0)
        if not sample.lost:
            self._violations(sample.index, key)
        self._write()

    def _violations(self, index: int, key: tuple[str, ...]) -> None:
        """The driver's accumulated throttle microseconds per reason; a reason NVML does not report is left out.

        Exported as gauges under DCGM's counter names, so the series join DCGM's; ``rate()`` of one
        is the share of time the GPU was held down for that reason, including between two readings.
        """
        for policy, gauge in self.violations:
            if (index, policy) in self.unsupported:
                continue
            try:
                microseconds = self.nvml.violation_microseconds(index, policy)
            except NvmlUnavailable:
                self.unsupported.add((index, policy))
                continue
            gauge.labels(*key).set(microseconds)  # a label set made before the read would show a false 0

    def epoch(self, figures: EpochFigures) -> None:
        """A training epoch ended (GpuMonitor): its pace, the GPUs' idle share, its verdict and XLA's cache use."""
        seconds, steps, samples = figures.seconds, figures.steps, figures.samples
        values = {
            "tfgpu_training_epoch": figures.number,
            "tfgpu_training_epoch_seconds": seconds,
            "tfgpu_training_step_seconds": seconds / steps if steps else None,
            "tfgpu_training_first_epoch_seconds": figures.first_seconds,
            "tfgpu_training_samples_per_second": samples / seconds if samples and seconds > 0 else None,
            "tfgpu_xla_cache_programs_compiled": figures.xla_compiled,
            "tfgpu_xla_cache_programs_loaded": figures.xla_loaded,
        }
        for name, value in values.items():
            if value is not None:
                self.training[name].labels(self.hostname, *self.job_values).set(value)
        for index, busy in figures.gpu_busy_percent:
            if index in self.labels:
                self.idle.labels(*self.labels[index]).set(max(0.0, min(1.0, 1 - busy / 100)))
        if figures.verdict:
            self.verdicts.add(figures.verdict)
            for verdict in self.verdicts:
                self.bottleneck.labels(self.hostname, *self.job_values, verdict).set(verdict == figures.verdict)
        self._write()

    def _write(self) -> None:
        if self.textfile:
            from prometheus_client import write_to_textfile

            write_to_textfile(self.textfile, self.registry)  # a temporary file renamed over it: never half-written
