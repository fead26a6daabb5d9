"""Render an Explanation: problems with quoted lines, cause, fix and source; harmless lines last."""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console
from rich.text import Text

from tfgpu.model.codec import encode
from tfgpu.model.documents import Document
from tfgpu.model.explanation import Explanation, Problem, Reading
from tfgpu.report.envelope import command_document, render_document
from tfgpu.report.marks import MARKS
from tfgpu.report.text import styled
from tfgpu.report.words import counted

# The "2023-06-19 17:03:27.840554: E tensorflow/.../cuda_dnn.cc:417] " or "W0000 00:00:17.6  24341 gpu_device.cc:2431] "
# prefix says nothing to a reader; the quoted line starts at the message.
_PREFIX = re.compile(
    r"^(?:\d{4}-\d\d-\d\d [\d:.]+: |[IWEF]\d{4} [\d:.]+\s+\d+ )?(?:[IWEF] )?[\w./\\:-]+\.(?:cc|h|py):\d+\] "
)


def _problem(console: Console, number: int, problem: Problem) -> None:
    mark = MARKS[problem.severity]
    times = f" ({problem.count} lines)" if problem.count > 1 else ""
    guess = "perhaps: " if problem.reading is Reading.BY_RESEMBLANCE else ""
    console.print(
        styled((f"{number}. {mark.glyph} ", mark.style), (guess, "italic"), (problem.title, "bold"), (times, "dim")),
        soft_wrap=True,
    )
    for line in problem.lines:
        console.print(
            styled(f"   line {line.line_number}: {_PREFIX.sub('', line.text)}", style="dim"),
            overflow="ellipsis",
            no_wrap=True,
        )
    console.print(styled("   cause: " + problem.cause), overflow="fold")
    console.print(styled(("   fix: ", "bold"), (problem.fix, "cyan")), soft_wrap=True)
    if problem.sources:
        console.print(styled("   see: " + problem.sources[0], style="dim"), soft_wrap=True)
    console.print(styled(f"   [{problem.id}]", style="dim"))


def render_explanation_text(explanation: Explanation, console: Console) -> None:
    """The human report (log lines and values escaped where they enter: a log can carry terminal sequences)."""
    set_aside = explanation.facts_set_aside
    if set_aside:
        console.print(
            styled(
                f"This log shows {set_aside.log}, this machine has {set_aside.machine}:"
                " the log is read on its own and the fixes are not this machine's commands.",
                style="dim",
            ),
            soft_wrap=True,
        )
    if explanation.problems:
        console.print(
            Text(
                f"{counted(len(explanation.problems), 'problem')} in {counted(explanation.lines_read, 'line')}, "
                "most important first:",
                style="bold",
            )
        )
        for number, problem in enumerate(explanation.problems, 1):
            console.print()
            _problem(console, number, problem)
    else:
        console.print(Text(f"No known problem in {counted(explanation.lines_read, 'line')}.", style="bold green"))
    if explanation.harmless:
        console.print()
        console.print(Text("Harmless, you can ignore these:", style="bold"))
        for item in explanation.harmless:
            where = ", ".join(str(q.line_number) for q in item.lines)
            more = f" (+{item.count - len(item.lines)} more)" if item.count > len(item.lines) else ""
            console.print(styled(f" i {item.title} - line {where}{more}"), soft_wrap=True)
    if explanation.long_lines_cut:
        console.print(Text(f"({explanation.long_lines_cut} very long lines were read in part only)", style="dim"))


def explanation_document(explanation: Explanation) -> dict[str, Any]:
    """The JSON contract of ``tfgpu explain --json``."""
    return command_document(Document.EXPLAIN, encode(explanation))


def render_explanation_json(explanation: Explanation) -> str:
    """``--json`` output."""
    return render_document(explanation_document(explanation))
