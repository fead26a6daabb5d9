"""The XLA cache in words: one line after ``tfgpu run``, and the listing of ``tfgpu cache``."""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from tfgpu.model.documents import Document
from tfgpu.model.xla_cache import CacheListing, CacheUse
from tfgpu.report.envelope import command_document, render_document
from tfgpu.report.sanitize import printable
from tfgpu.report.text import add_cells, styled
from tfgpu.report.words import byte_size, counted


def _epoch(seconds: float | None) -> str:
    return f"{seconds:.1f} s" if seconds is not None else "not printed"


def cache_use_line(use: CacheUse, directory: str) -> str | None:
    """What one run compiled and loaded, in one sentence; None when it did neither (no XLA in the run).

    Examples:
        >>> cache_use_line(CacheUse(0, 3, 5.7, 61.0), "/c")
        'XLA cache: 3 programs loaded instead of compiled (first epoch 5.7 s; 61.0 s in the run that compiled them)'
        >>> cache_use_line(CacheUse(1, 0, 56.0), "/c")
        'XLA cache: 1 program compiled in this run and kept in /c: the next run loads it instead of compiling (first epoch 56.0 s)'
    """
    loaded, compiled = use.loaded or 0, use.compiled
    if loaded and not compiled:
        earlier = (
            f"; {use.compiling_first_epoch_seconds:.1f} s in the run that compiled {_them(loaded)}"
            if use.compiling_first_epoch_seconds is not None
            else ""
        )
        return (
            f"XLA cache: {counted(loaded, 'program')} loaded instead of compiled "
            f"(first epoch {_epoch(use.first_epoch_seconds)}{earlier})"
        )
    if compiled:
        also = f", {loaded} loaded" if loaded else ""
        return (
            f"XLA cache: {counted(compiled, 'program')} compiled in this run{also} and kept in {printable(directory)}: "
            f"the next run loads {_them(compiled)} instead of compiling (first epoch {_epoch(use.first_epoch_seconds)})"
        )
    return None


def _them(count: int) -> str:
    return "it" if count == 1 else "them"


def cache_listing(listing: CacheListing, now: float | None = None) -> Group:
    """``tfgpu cache``: where, how big, for which versions, and the latest runs."""
    now = time.time() if now is None else now
    head = styled(
        f"XLA cache {listing.root} ({listing.mode.value}): {byte_size(listing.size_bytes)} of "
        f"{byte_size(listing.limit_bytes)} in {counted(len(listing.directories), 'key')}"
    )
    parts: list[Text | Table] = [head]
    if listing.removed_bytes is not None:
        parts.append(Text(f"cleared: {byte_size(listing.removed_bytes)} removed", style="bold"))
    if listing.directories:
        table = Table(box=None, header_style="bold", pad_edge=False)
        for column in ("key", "TensorFlow", "GPUs", "programs", "size", "last used"):
            table.add_column(column, no_wrap=column != "GPUs")
        for d in listing.directories:
            tf = next((f"{n} {v}" for n, v in d.key.parts if n in ("tensorflow", "tensorflow-cpu", "tf-nightly")), "?")
            used = f"{(now - d.last_used_unix) / 3600:.1f} h ago" if d.last_used_unix is not None else "-"
            add_cells(
                table,
                d.key.digest,
                tf,
                d.key.part("gpus") or "?",
                str(d.programs),
                byte_size(d.size_bytes),
                used,
            )
        parts.append(table)
    if listing.runs:
        runs = Table(box=None, header_style="bold", pad_edge=False, title="recent runs", title_justify="left")
        for column in ("when", "key", "compiled", "loaded", "first epoch", "command"):
            runs.add_column(column, no_wrap=column != "command")
        for run in listing.runs:
            add_cells(
                runs,
                time.strftime("%Y-%m-%d %H:%M", time.localtime(run.finished_unix)),
                run.digest,
                str(run.use.compiled),
                "?" if run.use.loaded is None else str(run.use.loaded),
                _epoch(run.use.first_epoch_seconds),
                run.command,
            )
        parts.append(runs)
    parts.extend(styled(p, style="yellow") for p in listing.problems)
    return Group(*parts)


def render_cache_json(listing: CacheListing) -> str:
    """``tfgpu cache --json``."""
    return render_document(command_document(Document.CACHE, _cache_body(listing)))


def _cache_body(listing: CacheListing) -> dict[str, Any]:
    return {
        "root": listing.root,
        "mode": listing.mode.value,
        "limit_bytes": listing.limit_bytes,
        "size_bytes": listing.size_bytes,
        "removed_bytes": listing.removed_bytes,
        "keys": [
            {
                "digest": d.key.digest,
                "parts": dict(d.key.parts),
                "programs": d.programs,
                "size_bytes": d.size_bytes,
                "last_used_unix": d.last_used_unix,
            }
            for d in listing.directories
        ],
        "runs": [{**asdict(r), "use": asdict(r.use)} for r in listing.runs],
        "problems": list(listing.problems),
    }
