"""``tfgpu snapshot``'s three outputs: the versioned JSON document, CSV rows, and Prometheus text.

The Prometheus text uses DCGM exporter's metric names and join labels (``gpu``, ``UUID``,
``Hostname``, ``modelName``) for the device figures, so a dashboard can join tfgpu's series with
DCGM's, and adds ``tfgpu_gpu_health`` (0 healthy, 1 degraded, 2 failed). It is written by
prometheus_client (the ``metrics`` extra), the library Prometheus's own parser comes from.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from tfgpu.model.codec import encode
from tfgpu.model.documents import Document
from tfgpu.model.snapshot import Snapshot
from tfgpu.monitor.gauges import DeviceGauges
from tfgpu.report.envelope import command_document, render_document
from tfgpu.report.sanitize import printable

CSV_COLUMNS = (
    "hostname",
    "gpu",
    "uuid",
    "name",
    "health",
    "reasons",
    "utilization_percent",
    "memory_used_mib",
    "memory_total_mib",
    "temperature_celsius",
    "power_draw_watts",
    "sm_clock_mhz",
)


def snapshot_document(snapshot: Snapshot) -> dict[str, Any]:
    """The JSON contract of ``tfgpu snapshot --format json``."""
    return command_document(Document.SNAPSHOT, encode(snapshot))


def render_snapshot_json(snapshot: Snapshot) -> str:
    """The document as text, one object."""
    return render_document(snapshot_document(snapshot))


def render_snapshot_csv(snapshot: Snapshot) -> str:
    """A header and one row per GPU (none when NVML could not be read: the exit status says it)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for gpu in snapshot.gpus:
        s = gpu.sample
        mib = [None if v is None else round(v / 2**20) for v in (s.memory_used_bytes, s.memory_total_bytes)]
        # Names and UUIDs come from the driver: no control character reaches a terminal.
        who = [printable(snapshot.hostname), gpu.index, printable(gpu.uuid), printable(gpu.name), gpu.health.value]
        who.append(printable("; ".join(gpu.reasons)))
        writer.writerow([*who, s.utilization_percent, *mib, s.temperature_celsius, s.power_draw_watts, s.sm_clock_mhz])
    return out.getvalue()


def render_snapshot_prometheus(snapshot: Snapshot) -> str:
    """The text exposition format, from a registry of its own (nothing global is touched)."""
    from prometheus_client import CollectorRegistry, Gauge, generate_latest

    registry = CollectorRegistry()
    node = Gauge(
        "tfgpu_node_health", "The worst GPU's health (2 when NVML cannot be read).", ["Hostname"], registry=registry
    )
    host = printable(snapshot.hostname)
    node.labels(host).set(snapshot.health.rank)
    gauges = DeviceGauges(registry)
    for gpu in snapshot.gpus:
        gauges.set(gpu.sample, (str(gpu.index), printable(gpu.uuid), host, printable(gpu.name)), gpu.health)
    return generate_latest(registry).decode("utf-8")
