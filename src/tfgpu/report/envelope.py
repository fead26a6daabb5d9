"""The envelope of every ``--json`` document: ``schema_version``, ``tool``, ``command``, then the body.

One function so doctor, explain, bench, burn and tune cannot drift apart in the keys an
automation reads first (they did: the doctor's report had no ``command``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tfgpu.model.documents import SCHEMA_VERSIONS, Document


def command_document(kind: Document, body: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON-ready document of ``kind``: the envelope's keys first (its one schema version), then ``body``'s."""
    return {"schema_version": SCHEMA_VERSIONS[kind], "tool": "tfgpu", "command": kind.value, **body}


def render_document(doc: Mapping[str, Any]) -> str:
    """Indented JSON text with a final newline (what ``--json`` prints)."""
    return json.dumps(doc, indent=2) + "\n"
