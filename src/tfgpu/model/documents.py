"""Every JSON document tfgpu writes, and the one schema version each carries.

An automation reads ``schema_version`` first; one table keeps a document's version in one place
(the doctor's report had two: its own and the facts'), and the reader of a saved report
(``doctor --from``) checks the same number the writer put there.
"""

from __future__ import annotations

from enum import Enum
from types import MappingProxyType


class Document(str, Enum):
    """A document kind, named by the command that writes it (its ``command`` key)."""

    DOCTOR = "doctor"
    EXPLAIN = "explain"
    RUN = "run"
    TUNE = "tune"
    BENCH = "bench"
    BURN = "burn"
    SNAPSHOT = "snapshot"
    CACHE = "cache"


SCHEMA_VERSIONS = MappingProxyType({**{kind: 1 for kind in Document}, Document.EXPLAIN: 3})
"""Bump a kind's version when its shape changes; the golden-file tests fail until it is bumped.
explain 2: each problem says how it was told (``reading``).
explain 3: ``machine_tf_set_aside`` (a version) became ``facts_set_aside`` (why: ``reason``, ``log``, ``machine``)."""
