"""Draw a run's samples to a PNG (matplotlib, the optional ``plot`` extra)."""

from __future__ import annotations

from collections.abc import Sequence

from tfgpu.model.errors import UsageError
from tfgpu.model.samples import GpuSample

PANELS = (
    ("utilization_percent", "utilization %", 1.0),
    ("memory_used_bytes", "memory used GiB", 1 / 2**30),
    ("temperature_celsius", "temperature °C", 1.0),
    ("sm_clock_mhz", "SM clock MHz", 1.0),
)


def plot_samples(
    samples: Sequence[GpuSample], path: str, *, epoch_marks: Sequence[float] = (), title: str = ""
) -> None:
    """Four panels over time, one line per GPU, epochs as vertical lines.

    Raises:
        UsageError: matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("plots need matplotlib: pip install 'tfgpu[plot]'") from None
    if not samples:
        raise UsageError("no samples to plot")
    start = samples[0].time_seconds
    fig, axes = plt.subplots(len(PANELS), 1, figsize=(10, 9), sharex=True)
    for ax, (metric, label, scale) in zip(axes, PANELS, strict=True):
        for index in sorted({s.index for s in samples}):
            points = [
                (s.time_seconds - start, getattr(s, metric))
                for s in samples
                if s.index == index and getattr(s, metric) is not None
            ]
            if points:
                ax.plot([p[0] for p in points], [p[1] * scale for p in points], label=f"GPU {index}", linewidth=1)
        for mark in epoch_marks:
            ax.axvline(mark - start, color="grey", linestyle=":", linewidth=0.8)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend(loc="upper right")
    axes[-1].set_xlabel("seconds")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
