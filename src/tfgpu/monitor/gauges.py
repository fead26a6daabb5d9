"""DCGM's device gauges and tfgpu's health gauge in one Prometheus registry.

``tfgpu snapshot --format prometheus`` and the monitor's exposition (monitor/exposition.py) set
them the same way: DCGM exporter's metric names, its join labels (``gpu``, ``UUID``,
``Hostname``, ``modelName``) and ``tfgpu_gpu_health`` (0 healthy, 1 degraded, 2 failed).
prometheus_client is the ``metrics`` extra, imported when the gauges are made.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from tfgpu.model.samples import DCGM_LABELS, DCGM_METRICS, GpuSample
from tfgpu.model.snapshot import Health

METRICS_INSTALL = "pip install 'tfgpu[metrics]'"
"""How to get prometheus_client, said wherever a Prometheus output is asked for without it."""


def metrics_available() -> bool:
    """Whether prometheus_client can be imported (checked when the option is read, not at the first reading)."""
    return importlib.util.find_spec("prometheus_client") is not None


class DeviceGauges:
    """One gauge per DCGM device figure, and the health gauge, registered in ``registry``."""

    def __init__(self, registry: Any, extra_labels: tuple[str, ...] = ()) -> None:
        from prometheus_client import Gauge

        names = (*DCGM_LABELS, *extra_labels)
        self.device = [(Gauge(n, h, names, registry=registry), f, s) for n, h, f, s in DCGM_METRICS]
        self.health = Gauge(
            "tfgpu_gpu_health", "tfgpu's judgement: 0 healthy, 1 degraded, 2 failed.", names, registry=registry
        )

    def set(self, sample: GpuSample, labels: tuple[str, ...], health: Health) -> None:
        """One GPU's figures (a figure it did not report keeps its last value) and its health."""
        for gauge, field, scale in self.device:
            value = getattr(sample, field)
            if value is not None:
                gauge.labels(*labels).set(value * scale)
        self.health.labels(*labels).set(health.rank)
