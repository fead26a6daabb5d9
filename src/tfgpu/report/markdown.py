"""A paste-ready bug report with personal data removed (collect_env's anonymisation, extended).

Removed: the user name, the host name (and its first label, which paths and prompts carry),
home directories, GPU and MIG UUIDs, credentials in any URL, the values of environment
variables whose names look secret, the whole of TF_CONFIG but its task (cluster hosts and
ports), plus well-known token shapes anywhere. ``--json`` is not redacted: docs/security.md.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tfgpu.model.findings import Severity
from tfgpu.model.results import Diagnosis
from tfgpu.report.json import report_document, verdict
from tfgpu.report.sanitize import printable_tree

_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSW|KEY|AUTH|CREDENTIAL|COOKIE|SESSION", re.I)
_TOKEN_SHAPES = re.compile(
    r"\b(ghp_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|hf_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|"
    r"sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\b"
)
_URL_CREDENTIALS = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@:'\"]+(?::[^/\s@'\"]*)?@")
_HOME = re.compile(r"(/home/|/Users/|C:\\\\Users\\\\|C:\\Users\\)([^/\\\s\"']+)")


@dataclass(frozen=True)
class Redactions:
    """Identifying strings of this machine, gathered by the caller (the report never collects)."""

    user: str | None = None
    host: str | None = None


def redact(text: str, redactions: Redactions) -> str:
    """Remove personal and secret data from any text.

    Examples:
        >>> redact("/home/ada/x on ada-laptop GPU-12345678-1234-1234-1234-123456789abc", Redactions("ada", "ada-laptop"))
        '/home/<user>/x on <host> GPU-<uuid>'
        >>> redact("https://u:p@data.example/x and /srv/node7/data", Redactions(None, "node7.cluster.local"))
        'https://<credentials>@data.example/x and /srv/<host>/data'
    """
    out = _UUID.sub(lambda m: f"{m.group(1)}-<uuid>", text)
    out = _TOKEN_SHAPES.sub("<token>", out)
    out = _URL_CREDENTIALS.sub(lambda m: f"{m.group(1)}<credentials>@", out)
    out = _HOME.sub(lambda m: f"{m.group(1)}<user>", out)
    if redactions.host and len(redactions.host) > 2:
        out = re.sub(re.escape(redactions.host), "<host>", out, flags=re.I)
        short = redactions.host.split(".", 1)[0]
        if short != redactions.host and len(short) > 2:
            out = re.sub(rf"(?<![A-Za-z0-9]){re.escape(short)}(?![A-Za-z0-9])", "<host>", out, flags=re.I)
    if redactions.user and len(redactions.user) > 2:
        out = re.sub(rf"\b{re.escape(redactions.user)}\b", "<user>", out)
    return out


def _redact_environ(doc: dict[str, Any]) -> None:
    env = doc.get("facts", {}).get("environ")
    if isinstance(env, list):
        doc["facts"]["environ"] = [[name, _environ_value(name, value)] for name, value in env]


def _environ_value(name: str, value: str) -> str:
    """A variable's value as the report may show it."""
    if _SECRET_NAME.search(name):
        return "<redacted>"
    if name == "TF_CONFIG":
        try:
            task = json.loads(value).get("task")
        except (ValueError, AttributeError):
            return "<redacted>"
        return json.dumps({"cluster": "<redacted>", "task": task})
    return value


def render_markdown(diagnosis: Diagnosis, redactions: Redactions) -> str:
    """The whole report as GitHub-flavoured Markdown, redacted, with control characters escaped."""
    diagnosis = printable_tree(diagnosis)
    doc = report_document(diagnosis)
    _redact_environ(doc)
    lines = [
        "### tfgpu doctor report",
        "",
        f"**Verdict:** {verdict(diagnosis)}  ",
        f"**tfgpu:** {diagnosis.facts.tfgpu_version or 'unknown'}",
        "",
        "| | finding | summary | fix |",
        "|---|---|---|---|",
    ]
    marks = {Severity.OK: "✅", Severity.INFO: "ℹ️", Severity.WARNING: "⚠️", Severity.ERROR: "❌"}
    for f in diagnosis.findings:
        # A hint that holds backticks itself would break an inline code span.
        fix = f"`{f.hint}`" if f.hint and "`" not in f.hint else f.hint
        cells = [marks[f.severity], f"`{f.id}`", f.summary, fix]
        lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    lines += [
        "",
        "<details><summary>Collected facts (JSON)</summary>",
        "",
        "```json",
        json.dumps(doc["facts"], indent=1),
        "```",
        "",
        "</details>",
        "",
    ]
    return redact("\n".join(lines), redactions)
