"""The best figure tfgpu has measured per workload on each GPU model (data/gpu_measured.csv).

A datasheet peak says what the silicon could do; this says what TensorFlow reached on the
same model of GPU with tfgpu's own workloads, so a user's result can be judged against a
figure that is actually reachable. Each row names the recorded run it came from (built by
scripts/best_measured.py from the files in docs/examples/).
"""

from __future__ import annotations

import functools

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
