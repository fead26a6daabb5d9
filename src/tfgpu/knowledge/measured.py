"""What has been measured on each GPU model: tfgpu's best per workload, and the fastest peer framework.

A datasheet peak says what the silicon could do; data/gpu_measured.csv says what TensorFlow
reached on the same model of GPU with tfgpu's own workloads, so a user's result can be judged
against a figure that is actually reachable (built by scripts/best_measured.py from the files in
docs/examples/). data/peer_measured.csv holds the same model trained by another framework on
that GPU (PyTorch's ResNet-50 on the H200: TF's Keras 3 reached 0.27 of it, docs/performance.md
§5b), so a report can say how far TensorFlow is from what the GPU is known to do. Each row
names the recorded run it came from.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from tfgpu.knowledge.tables import csv_rows


@functools.cache
def _table() -> dict[tuple[str, str], float]:
    return {(row["gpu_model"], row["workload"]): float(row["value"]) for row in csv_rows("gpu_measured.csv")}


def best_measured(gpu_name: str | None, workload: str) -> float | None:
    """The best recorded value of ``workload`` (a bench entry name) on this GPU model, if any.

    Examples:
        >>> best_measured("NVIDIA H200", "matmul bfloat16 8192") > 600
        True
        >>> best_measured("NVIDIA H200", "matmul bfloat16 77") is None
        True
    """
    if gpu_name is None:
        return None
    return _table().get((gpu_name, workload))


@dataclass(frozen=True)
class PeerFigure:
    """Another framework's rate for the same model, precision and batch on the same GPU model."""

    framework: str
    value: float
    unit: str
    source: str


@functools.cache
def _peers() -> dict[tuple[str, str, str, int], PeerFigure]:
    return {
        (row["gpu_model"], row["model"], row["precision"], int(row["batch"])): PeerFigure(
            row["framework"], float(row["value"]), row["unit"], row["source"]
        )
        for row in csv_rows("peer_measured.csv")
    }


def peer_measured(gpu_name: str | None, model: str, precision: str, batch: int) -> PeerFigure | None:
    """The fastest other framework measured training ``model`` on this GPU model, if any.

    Examples:
        >>> peer_measured("NVIDIA H200", "resnet50", "float32", 256).framework.startswith("PyTorch")
        True
        >>> peer_measured("NVIDIA H200", "resnet50", "float32", 64) is None
        True
    """
    if gpu_name is None:
        return None
    return _peers().get((gpu_name, model, precision, batch))
