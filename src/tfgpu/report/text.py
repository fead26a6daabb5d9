"""The human report: sections, one mark per check, the cause and the exact fix under each problem."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tfgpu.model.facts import GpuFacts
from tfgpu.model.findings import Finding, Section, Severity
from tfgpu.model.results import Diagnosis
from tfgpu.model.unavailable import Unavailable
from tfgpu.report.marks import MARKS
from tfgpu.report.sanitize import printable
from tfgpu.report.versions import version_rows
from tfgpu.report.words import counted

Part = str | tuple[str, str]
"""Text, or text and its rich style."""


def styled(*parts: Part, style: str = "") -> Text:
    """A rich Text of ``parts``, each escaped where it enters and never read as markup.

    Every string a renderer puts on the terminal comes through here (or ``add_cells``): a GPU
    name, a process's command line or a log line can carry escape sequences, and rich would
    read ``[link=…]`` in a plain string as a link.
    """
    return Text.assemble(
        *((printable(p), "") if isinstance(p, str) else (printable(p[0]), p[1]) for p in parts), style=style
    )


def add_cells(table: Table, *cells: str | Text) -> None:
    """A table row whose string cells are escaped and shown as written (a str cell would be parsed as markup)."""
    table.add_row(*(styled(c) if isinstance(c, str) else c for c in cells))


def make_console(stream: TextIO, *, color: bool, width: int | None = None) -> Console:
    """A rich console on ``stream``: colour only when asked (the CLI asks only on a TTY)."""
    return Console(
        file=stream,
        force_terminal=color,
        no_color=not color,
        color_system="auto" if color else None,
        width=width or 100,
        highlight=False,
        emoji=False,
        soft_wrap=False,
    )


def _finding(console: Console, finding: Finding) -> None:
    mark = MARKS[finding.severity]
    console.print(
        styled((f" {mark.glyph} ", mark.style), (finding.summary, "bold" if finding.severity is Severity.ERROR else ""))
    )
    if finding.severity is Severity.OK:
        return
    if finding.detail:
        console.print(styled("     " + finding.detail), overflow="fold")
    if finding.hint:
        # Never wrap a fix: it is a command to copy and paste.
        console.print(styled(("     fix: ", "bold"), (finding.hint, "cyan")), soft_wrap=True)
    if finding.link:
        console.print(styled(f"     see: {finding.link}", style="dim"), soft_wrap=True)
    console.print(styled(f"     [{finding.id}]", style="dim"))


def headline(diagnosis: Diagnosis, *, static: bool) -> tuple[str, str]:
    """The one-line verdict and its style."""
    errors = [f for f in diagnosis.findings if f.severity is Severity.ERROR]
    warnings = [f for f in diagnosis.findings if f.severity is Severity.WARNING]
    gpus = diagnosis.facts.gpus
    count = 0 if isinstance(gpus, Unavailable) else len(gpus)
    scope = " (static checks; TensorFlow was not started)" if static else ""
    if errors:
        first = errors[0].summary
        return (
            f"TensorFlow cannot use a GPU here: {counted(len(errors), 'error')}, {counted(len(warnings), 'warning')}{scope}. "
            f"Start with: {first}",
            "bold red",
        )
    if warnings:
        return f"Usable, with {counted(len(warnings), 'warning')} to look at{scope}.", "yellow"
    return f"Healthy: nothing stops TensorFlow from using {counted(count, 'GPU')}{scope}.", "bold green"


def render_text(
    diagnosis: Diagnosis, console: Console, *, static: bool = True, replayed_from: str | None = None
) -> None:
    """Print the report section by section, worst first inside each section.

    ``replayed_from`` names the saved report the facts were read from: nothing came from this machine.
    """
    if replayed_from:
        console.print(
            styled(
                f"Replayed from {replayed_from}: facts collected by tfgpu {diagnosis.facts.tfgpu_version or '?'} "
                "on another run; nothing was read from this machine.\n"
            ),
            soft_wrap=True,
        )
    console.print(Text("tfgpu doctor", style="bold"))
    for section in Section:
        found = [f for f in diagnosis.findings if f.section is section]
        console.print()
        console.print(Text(section.value, style="bold underline"))
        if section is Section.HARDWARE:
            _gpu_lines(console, diagnosis)
        if not found:
            console.print(Text(_empty_note(diagnosis, section), style="dim"))
        for finding in found:
            _finding(console, finding)
    console.print()
    console.print(Text("Versions", style="bold underline"))
    rows = version_rows(diagnosis.facts)
    width = max(len(what) for what, _ in rows)
    for what, version in rows:
        console.print(styled(f"   {what:<{width}}  {version}", style="dim"), overflow="fold")
    console.print()
    text, style = headline(diagnosis, static=static)
    console.print(styled(text, style=style), overflow="fold")


def _empty_note(diagnosis: Diagnosis, section: Section) -> str:
    if section is Section.CUDA and diagnosis.facts.libraries is None:
        return "   not checked: no CUDA build of TensorFlow is installed"
    return "   nothing to report"


def _gpu_lines(console: Console, diagnosis: Diagnosis) -> None:
    gpus = diagnosis.facts.gpus
    if isinstance(gpus, Unavailable):
        return
    for gpu in gpus:
        console.print(styled("   " + gpu_line(gpu), style="dim"), overflow="fold")


def _val(value: object, unit: str = "") -> str:
    if isinstance(value, Unavailable) or value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.0f}{unit}"
    return f"{value}{unit}"


def gpu_line(gpu: GpuFacts) -> str:
    """One dense line of a GPU's live state."""
    gib = 1024**3
    used = gpu.memory_used_bytes
    total = gpu.memory_total_bytes
    memory = f"{used / gib:.1f}/{total / gib:.0f} GiB" if isinstance(used, int) and isinstance(total, int) else "n/a"
    line = (
        f"GPU {gpu.index}: {memory} used, {_val(gpu.utilization_percent, '%')} busy, "
        f"{_val(gpu.temperature_celsius, '°C')}, {_val(gpu.power_draw_watts, ' W')} of {_val(gpu.power_limit_watts, ' W')}, "
        f"SM {_val(gpu.sm_clock_mhz)}/{_val(gpu.max_sm_clock_mhz)} MHz"
    )
    if isinstance(gpu.nvlinks_active, int) and gpu.nvlinks_active:
        line += f", {gpu.nvlinks_active} NVLink links up"
    if not isinstance(gpu.links, Unavailable) and gpu.links:
        line += "; to " + ", ".join(f"GPU {link.peer} {LINK_WORDS.get(link.via, link.via)}" for link in gpu.links)
    return line


LINK_WORDS = {
    "nvlink": "over NVLink",
    "board": "on the same board",
    "pcie-switch": "through one PCIe switch (PIX)",
    "pcie-switches": "through several PCIe switches (PXB)",
    "host-bridge": "through the CPU's PCIe host bridge (PHB)",
    "numa-node": "through one NUMA node's host bridges (NODE)",
    "system": "across the CPUs' interconnect (SYS)",
}
"""How ``nvidia-smi topo -m`` would put each link, in words and its own abbreviation."""
