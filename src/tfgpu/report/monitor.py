"""The monitor's live table and the end-of-run verdict, for humans."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tfgpu.model.facts import GpuLink
from tfgpu.model.monitoring import MonitorResult, Reading
from tfgpu.model.samples import THROTTLE_REASON_WORDS, GpuSample, Verdict
from tfgpu.report.marks import MARKS
from tfgpu.report.sanitize import printable
from tfgpu.report.text import LINK_WORDS, add_cells, styled


def _v(value: float | None, fmt: str = "{:.0f}", unit: str = "") -> str:
    return "n/a" if value is None else fmt.format(value) + unit


def _ecc_xid(s: GpuSample) -> Text:
    xid = f" Xid {','.join(map(str, s.xid_events))}" if s.xid_events else ""
    ecc = "-" if s.ecc_uncorrected_errors is None else f"{s.ecc_uncorrected_errors:.0f}"
    return Text(ecc + xid, style="bold red" if xid or (s.ecc_uncorrected_errors or 0) > 0 else "")


def samples_table(samples: Sequence[GpuSample], names: Mapping[int, str], processes: Mapping[int, list[str]]) -> Table:
    """One row per GPU (and its processes under it); names from NVML and /proc are escaped as they enter."""
    table = Table(box=None, header_style="bold", pad_edge=False)
    for column in ("GPU", "util", "memory", "temp", "power", "SM clock", "mem clock", "clocks held by", "ECC/Xid"):
        table.add_column(column, no_wrap=True)
    for s in samples:
        if s.lost:
            add_cells(
                table,
                f"{s.index} {names.get(s.index, '')}",
                Text("GPU LOST (fell off the bus)", style="bold red"),
                *([""] * 7),
            )
            continue
        memory = "n/a"
        if s.memory_used_bytes is not None and s.memory_total_bytes:
            memory = f"{s.memory_used_bytes / 2**30:.1f}/{s.memory_total_bytes / 2**30:.0f} GiB"
        reasons = ", ".join(THROTTLE_REASON_WORDS.get(r, r) for r in s.throttle_reasons) or "-"
        style = "red" if any("thermal" in r or "slowdown" in r for r in s.throttle_reasons) else ""
        add_cells(
            table,
            f"{s.index} {names.get(s.index, '')}",
            _v(s.utilization_percent, unit="%"),
            memory,
            _v(s.temperature_celsius, unit=" °C"),
            f"{_v(s.power_draw_watts)}/{_v(s.power_limit_watts)} W",
            f"{_v(s.sm_clock_mhz)}/{_v(s.max_sm_clock_mhz)} MHz",
            _v(s.memory_clock_mhz, unit=" MHz"),
            Text(reasons, style=style),
            _ecc_xid(s),
        )
        for line in processes.get(s.index, []):
            add_cells(table, "", styled("  " + line, style="dim"), *([""] * 7))
    return table


def topology_text(links: Mapping[int, tuple[GpuLink, ...] | str]) -> Text:
    """Each pair of GPUs once, and how they reach each other (or why NVML could not say)."""
    lines = []
    for index, peers in sorted(links.items()):
        if isinstance(peers, str):
            lines.append(f"GPU {index}: links unknown ({printable(peers)})")
            continue
        lines += [f"GPU {index} - GPU {p.peer}: {LINK_WORDS.get(p.via, p.via)}" for p in peers if p.peer > index]
    return Text("\n".join(lines), style="dim")


def verdict_text(verdicts: Sequence[Verdict]) -> Text:
    """The verdicts, the first as the headline (quoted log lines escaped)."""
    text = Text()
    for number, v in enumerate(verdicts):
        text.append(printable(("Verdict: " if number == 0 else "Also: ") + v.summary + "\n"), MARKS[v.severity].style)
        text.append(printable("  " + v.detail + "\n"))
        for advice in v.advice:
            text.append(printable("  - " + advice + "\n"), style="cyan")
    return text


def reading_table(reading: Reading) -> Table:
    """One poll of the live view."""
    return samples_table(reading.samples, reading.names, reading.processes)


def render_monitor_result(result: MonitorResult, console: Console, stderr: TextIO) -> None:
    """The end of ``tfgpu monitor``: the one reading of ``--once``, else the verdict; why not, without a GPU."""
    if result.no_gpu:
        stderr.write(f"tfgpu monitor: no NVIDIA GPU to monitor: {printable(result.no_gpu)} (exit status 6)\n")
        return
    if result.last is not None:
        console.print(reading_table(result.last))
        if result.links:
            console.print(topology_text(result.links))
        return
    console.print(verdict_text(result.verdicts))
    if result.plot:
        stderr.write(f"wrote {printable(result.plot)}\n")
