"""``tfgpu run``'s closing lines: the exit status, time, GPU use, then the verdicts."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from tfgpu.model.run import RunReport
from tfgpu.report.monitor import verdict_text
from tfgpu.report.xla_cache import cache_use_line


def run_summary(report: RunReport) -> Group:
    """The summary printed on stderr after the command ends (its own output went through untouched)."""
    util = (
        f", GPU busy {report.mean_utilization_percent:.0f}% on average"
        if report.mean_utilization_percent is not None
        else ""
    )
    peak = f", peak GPU memory {report.peak_memory_bytes / 2**30:.1f} GiB" if report.peak_memory_bytes else ""
    head = Text(f"\n[tfgpu run] exit status {report.exit_status} after {report.seconds:.1f} s{util}{peak}")
    line = (
        cache_use_line(report.xla_cache, report.xla_cache_directory)
        if report.xla_cache is not None and report.xla_cache_directory is not None
        else None
    )
    cache = [Text(line, style="cyan")] if line else []
    return Group(head, *cache, verdict_text(report.verdicts))
