"""The JSON envelope shared by the parent and ``worker.py`` (which keeps its own copy of the version).

The child writes one document to the ``--output`` file, never to stdout (TF and its plugins
print there): ``{"schema_version": 1, "task": ..., "ok": bool, "data": {...}, "error": {...}}``.
"""

from __future__ import annotations

SCHEMA_VERSION = 1
