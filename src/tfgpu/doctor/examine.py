"""The doctor's one call: this machine's facts (and what TensorFlow does in a child), or a saved report's.

``tfgpu doctor`` comes here; ``tfgpu env`` and ``tfgpu explain`` collect the static facts the same
way (doctor/collect.py) without importing the doctor command.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from tfgpu._version import __version__
from tfgpu.doctor.collect import Sources, collect_facts
from tfgpu.knowledge.fixes import fix_env_lines, not_installed, nothing_to_fix, unbindable_note, unnameable_note
from tfgpu.model.codec import decode, map_leaves
from tfgpu.model.documents import SCHEMA_VERSIONS, Document
from tfgpu.model.errors import UsageError
from tfgpu.model.facts import EnvFix, Facts
from tfgpu.probe.collect import run_interpreter_probe, run_tensorflow_probe
from tfgpu.probe.runner import ProbeRunner
from tfgpu.system.files import read_regular


def examine(
    sources: Sources,
    worker: ProbeRunner,
    *,
    tfgpu_version: str,
    other_python: str | None = None,
    probe: bool = True,
    quick: bool = False,
    probe_timeout: float,
    around_probe: Callable[[], contextlib.AbstractContextManager[object]] | None = None,
) -> Facts:
    """The facts, collected where the training Python looks, then what TensorFlow does in ``worker``'s child.

    With ``other_python``, the packages are looked for on that interpreter's sys.path, asked through ``worker``.

    Raises:
        UsageError: ``other_python`` did not answer as a Python 3 interpreter.
    """
    interpreter = None
    if other_python:
        interpreter = run_interpreter_probe(worker, sources.environ)
        if interpreter is None:
            raise UsageError(f"--python {other_python}: it did not run the probe (is it a Python 3 interpreter?)")
        sources = replace(sources, search_path=[str(p) for p in interpreter.get("path", [])])
    facts = collect_facts(sources, tfgpu_version=tfgpu_version, interpreter=interpreter)
    if not probe:
        return facts
    with around_probe() if around_probe else contextlib.nullcontext():
        live = run_tensorflow_probe(worker, sources.environ, timeout_seconds=probe_timeout, training=not quick)
    return replace(facts, probe=live)


MAX_REPORT_BYTES = 16 * 2**20
"""A real report is tens of KiB; anything this large is not one (and would be slow to render)."""
MAX_STRING_CHARS = 4096


def static_facts(sources: Sources) -> Facts:
    """This machine's facts without starting TensorFlow (``tfgpu env``, ``tfgpu explain``'s fix commands)."""
    return collect_facts(sources, tfgpu_version=__version__)


def env_fix(facts: Facts) -> EnvFix:
    """The environment lines for these facts (``tfgpu env``, ``doctor --fix-env``), and what they leave."""
    lines = tuple(fix_env_lines(facts))
    notes = (
        tuple(n for n in (not_installed(facts), unnameable_note(facts), unbindable_note(facts)) if n) if lines else ()
    )
    return EnvFix(lines, nothing_to_fix(facts), notes)


def load_report(path: str) -> Facts:
    """The facts of a saved ``doctor --json`` report (``doctor --from``), read within bounds.

    Raises:
        UsageError: the file is missing, too large, not JSON, or not a tfgpu report.
    """
    try:
        text = read_regular(path, MAX_REPORT_BYTES).decode("utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc} (tfgpu reports are far below 16 MiB)") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not a text file") from None
    try:
        return facts_from_document(map_leaves(json.loads(text), _bounded_leaf))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path} is not JSON: {exc}") from None
    except RecursionError:
        raise UsageError(f"{path}: nested too deeply to be a tfgpu report") from None
    except (ValueError, TypeError, OverflowError) as exc:
        raise UsageError(f"{path}: not a tfgpu report ({str(exc)[:200]})") from None


def facts_from_document(doc: Any) -> Facts:
    """The Facts of a report written by ``--json``.

    Raises:
        ValueError: not a tfgpu report, or a schema this version cannot read.
    """
    if not isinstance(doc, dict) or doc.get("tool") != "tfgpu" or "facts" not in doc:
        raise ValueError("not a tfgpu doctor --json report")
    if doc.get("schema_version") != SCHEMA_VERSIONS[Document.DOCTOR]:
        raise ValueError(
            f"report schema_version {doc.get('schema_version')!r}; this tfgpu reads {SCHEMA_VERSIONS[Document.DOCTOR]}"
        )
    return decode(Facts, doc["facts"])


def _bounded_leaf(value: Any) -> Any:
    """A string of a loaded report cut to MAX_STRING_CHARS (a 100-MB GPU name is not a fact).

    Raises:
        ValueError: a number beyond 64 bits (no fact is one; it would overflow the arithmetic).
    """
    if isinstance(value, int) and abs(value) > 2**64:
        raise ValueError("a number beyond 64 bits")
    if isinstance(value, str) and len(value) > MAX_STRING_CHARS:
        return value[:MAX_STRING_CHARS] + "…"
    return value
