"""The envelope of every ``--json`` document: ``schema_version``, ``tool``, ``command``, then the body.

One function so doctor, explain, bench, burn and tune cannot drift apart in the keys an
automation reads first (they did: the doctor's report had no ``command``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def command_document(command: str, body: Mapping[str, Any], schema_version: int = 1) -> dict[str, Any]:
    """The JSON-ready document of ``command``: the envelope's keys first, then ``body``'s."""
    return {"schema_version": schema_version, "tool": "tfgpu", "command": command, **body}


def render_document(doc: Mapping[str, Any]) -> str:
    """Indented JSON text with a final newline (what ``--json`` prints)."""
    return json.dumps(doc, indent=2) + "\n"
