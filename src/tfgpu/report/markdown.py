"""A paste-ready bug report with personal data removed (collect_env's anonymisation, extended).

What ``report/redaction.py`` removes from any text, plus the values of environment variables
whose names look secret and the whole of TF_CONFIG but its task's type and index. Every string
from the machine is escaped for Markdown (no HTML, image, link or @mention from a GPU name), and
no fence or code span can be closed by the text inside it. ``--json`` is not redacted:
docs/security.md.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from tfgpu.model.results import Diagnosis
from tfgpu.report.json import report_document, verdict
from tfgpu.report.marks import MARKS
from tfgpu.report.redaction import SECRET_NAME, Redactions, home_users, redact
from tfgpu.report.sanitize import printable
from tfgpu.report.versions import version_rows

TASK_TYPES = frozenset({"worker", "chief", "master", "ps", "evaluator"})
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]{}()#+!~|])")
_BACKTICKS = re.compile(r"`+")

__all__ = ["Redactions", "render_markdown"]


def markdown_text(text: str) -> str:
    r"""Text that stays text in a GitHub table cell: no HTML, image, link, emphasis or @mention.

    Examples:
        >>> markdown_text("<img src=x> ![a](b) @team *b*")
        '&lt;img src=x&gt; \\!\\[a\\]\\(b\\) @\u200bteam \\*b\\*'
    """
    out = printable(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    out = _MARKDOWN_SPECIAL.sub(r"\\\1", out)
    return out.replace("@", "@\u200b").replace("\n", " ")


def code_span(text: str) -> str:
    """An inline code span that its content cannot end (a fence longer than any backtick run in it)."""
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    body = printable(text).replace("|", "\\|").replace("\n", " ")
    return f"{fence}{pad}{body}{pad}{fence}"


def _redact_environ(doc: dict[str, Any]) -> None:
    env = doc.get("facts", {}).get("environ")
    if isinstance(env, list):
        doc["facts"]["environ"] = [[name, _environ_value(name, value)] for name, value in env]


def _environ_value(name: str, value: str) -> str:
    """A variable's value as the report may show it: TF_CONFIG keeps only its task's type and index."""
    if SECRET_NAME.search(name):
        return "<redacted>"
    if name == "TF_CONFIG":
        try:
            task = json.loads(value).get("task")
        except (ValueError, AttributeError):
            return "<redacted>"
        task = task if isinstance(task, dict) else {}
        kept = {
            k: v
            for k, v in task.items()
            if (k == "type" and v in TASK_TYPES) or (k == "index" and isinstance(v, int) and not isinstance(v, bool))
        }
        return json.dumps({"cluster": "<redacted>", "task": kept})
    return value


def render_markdown(diagnosis: Diagnosis, redactions: Redactions) -> str:
    """The whole report as GitHub-flavoured Markdown, redacted, control characters escaped in every cell."""
    doc = report_document(diagnosis)
    _redact_environ(doc)
    lines = [
        "### tfgpu doctor report",
        "",
        f"**Verdict:** {markdown_text(redact(verdict(diagnosis), redactions))}  ",
        f"**tfgpu:** {markdown_text(diagnosis.facts.tfgpu_version or 'unknown')}",
        "",
        "| | finding | summary | fix |",
        "|---|---|---|---|",
    ]
    facts = json.dumps(doc["facts"], indent=1)
    # Redacted before escaping: an escaped ``_`` or ``@`` would hide a token or a user from the patterns.
    raw = "\n".join([facts, *(f"{f.summary}\n{f.hint or ''}" for f in diagnosis.findings)])
    redactions = replace(redactions, others=tuple(sorted(home_users(raw))))

    def clean(text: str) -> str:
        return redact(text, redactions)

    for f in diagnosis.findings:
        hint = code_span(clean(f.hint)) if f.hint else ""
        cells = [MARKS[f.severity].emoji, code_span(f.id), markdown_text(clean(f.summary)), hint]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "| | version |", "|---|---|"]
    lines += [f"| {what} | {markdown_text(clean(version))} |" for what, version in version_rows(diagnosis.facts)]
    facts = clean(facts)
    fence = "`" * max(3, 1 + max((len(m.group(0)) for m in _BACKTICKS.finditer(facts)), default=0))
    lines += [
        "",
        "<details><summary>Collected facts (JSON)</summary>",
        "",
        f"{fence}json",
        facts,
        fence,
        "",
        "</details>",
        "",
    ]
    return redact("\n".join(lines), redactions)
