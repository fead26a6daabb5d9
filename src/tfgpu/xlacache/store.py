"""The cache on disk: one directory per key, TF's programs (``*.pb``) in it, a run history beside them.

tfgpu deletes only what it recognises (key directories it made, TF's programs, its own files), so
a cache root pointed at a directory that holds other things never loses them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

from tfgpu.model.xla_cache import CacheDirectory, CacheKey, CacheRun, CacheUse
from tfgpu.system.files import read_regular, write_atomically

KEY_FILE = "key.json"
RUNS_FILE = "runs.jsonl"
PROGRAMS = "*.pb"
_KEY_DIR = re.compile(r"[0-9a-f]{16}")
MAX_RUNS = 200
MAX_KEY_FILE_BYTES = 1 << 16
MAX_RUNS_FILE_BYTES = 1 << 20


def key_directory(root: Path, key: CacheKey) -> Path:
    """Where the programs of ``key`` live."""
    return root / key.digest


def write_key(directory: Path, key: CacheKey) -> None:
    """Create the key's directory and say in it what the key was made of (for ``tfgpu cache``).

    Raises:
        OSError: the directory cannot be created or written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / KEY_FILE
    if not path.exists():
        write_atomically(path, json.dumps(dict(key.parts), indent=1, sort_keys=True))


def _key_directories(root: Path) -> list[Path]:
    try:
        return sorted(p for p in root.iterdir() if _KEY_DIR.fullmatch(p.name) and p.is_dir() and not p.is_symlink())
    except OSError:
        return []


def _programs(directory: Path) -> list[tuple[float, int, Path]]:
    """(last used, size, path) of each program; a file that vanished meanwhile is skipped."""
    out = []
    for path in directory.glob(PROGRAMS):
        with contextlib.suppress(OSError):
            stat = path.lstat()
            if path.is_file() and not path.is_symlink():
                out.append((stat.st_mtime, stat.st_size, path))
    return out


def _read_key(directory: Path) -> CacheKey:
    try:
        data = json.loads(read_regular(directory / KEY_FILE, MAX_KEY_FILE_BYTES))
    except (OSError, ValueError):
        data = {}
    parts = tuple(sorted((str(k), str(v)) for k, v in data.items())) if isinstance(data, dict) else ()
    return CacheKey(directory.name, parts)


def read_directories(root: Path) -> tuple[CacheDirectory, ...]:
    """Every key's directory with its programs' count, size and last use."""
    out = []
    for directory in _key_directories(root):
        programs = _programs(directory)
        out.append(
            CacheDirectory(
                _read_key(directory),
                len(programs),
                sum(size for _, size, _ in programs),
                max((used for used, _, _ in programs), default=None),
            )
        )
    return tuple(out)


def snapshot(directory: Path) -> frozenset[str]:
    """The names of the programs in ``directory`` now."""
    return frozenset(path.name for _, _, path in _programs(directory))


def first_written(directory: Path, names: Iterable[str]) -> float | None:
    """The earliest modification time (Unix seconds) of the named programs: when a run's first compile ended."""
    wanted = set(names)
    return min((mtime for mtime, _, path in _programs(directory) if path.name in wanted), default=None)


def mark_used(directory: Path, names: Iterable[str]) -> None:
    """Set the programs' modification time to now: eviction removes the longest unused first."""
    now = time.time()
    for name in names:
        with contextlib.suppress(OSError):
            os.utime(directory / name, (now, now))


def evict(root: Path, limit_bytes: int, keep: Path | None = None) -> int:
    """Delete the longest-unused programs of other keys, then of ``keep``'s, until the cache fits ``limit_bytes``.

    Returns the bytes removed. A key directory left with no program is removed with it.
    """
    programs = [
        (keep is not None and p.parent == keep, used, size, p)
        for d in _key_directories(root)
        for used, size, p in _programs(d)
    ]
    total = sum(size for _, _, size, _ in programs)
    removed = 0
    for _, _, size, path in sorted(programs, key=lambda item: (item[0], item[1])):
        if total - removed <= limit_bytes:
            break
        with contextlib.suppress(OSError):
            path.unlink()
            removed += size
    for directory in _key_directories(root):
        if directory != keep and not _programs(directory):
            _remove_directory(directory)
    return removed


def _remove_directory(directory: Path) -> None:
    """Remove tfgpu's own files of a key directory, then the directory if nothing else is left in it."""
    for name in (KEY_FILE,):
        with contextlib.suppress(OSError):
            (directory / name).unlink()
    with contextlib.suppress(OSError):
        directory.rmdir()


def clear(root: Path) -> int:
    """Delete every program and key directory, the history and the flag checks; returns the bytes removed."""
    removed = 0
    for directory in _key_directories(root):
        for _, size, path in _programs(directory):
            with contextlib.suppress(OSError):
                path.unlink()
                removed += size
        _remove_directory(directory)
    for name in (RUNS_FILE, "checked.json"):
        with contextlib.suppress(OSError):
            (root / name).unlink()
    return removed


def record_run(root: Path, run: CacheRun) -> None:
    """Append one run to the history, keeping the newest MAX_RUNS."""
    runs = [*read_runs(root), run][-MAX_RUNS:]
    lines = [json.dumps({**asdict(r), "use": asdict(r.use)}) for r in runs]
    with contextlib.suppress(OSError):
        write_atomically(root / RUNS_FILE, "".join(line + "\n" for line in lines))


def read_runs(root: Path) -> list[CacheRun]:
    """The history, oldest first; lines that are not runs are skipped."""
    try:
        text = read_regular(root / RUNS_FILE, MAX_RUNS_FILE_BYTES).decode("utf-8", "replace")
    except OSError:
        return []
    out = []
    for line in text.splitlines():
        try:
            data = json.loads(line)
            use = data["use"]
            out.append(
                CacheRun(
                    float(data["finished_unix"]),
                    str(data["digest"]),
                    str(data["command"]),
                    CacheUse(
                        int(use["compiled"]),
                        None if use.get("loaded") is None else int(use["loaded"]),
                        None if use.get("first_epoch_seconds") is None else float(use["first_epoch_seconds"]),
                    ),
                )
            )
        except (ValueError, KeyError, TypeError):
            continue
    return out
