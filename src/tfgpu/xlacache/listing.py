"""``tfgpu cache``'s one domain call: what the cache holds, optionally after clearing it."""

from __future__ import annotations

from collections.abc import Mapping

from tfgpu.model.xla_cache import CacheListing, CacheMode
from tfgpu.xlacache.location import cache_limit_bytes, cache_mode, cache_root
from tfgpu.xlacache.store import clear, read_directories, read_runs

RECENT_RUNS = 10


def read_cache(environ: Mapping[str, str], *, clear_first: bool = False) -> CacheListing:
    """The cache's keys, sizes and latest runs; ``clear_first`` deletes its programs before (not in read-only mode).

    Raises:
        UsageError: a cache variable holds an invalid value.
    """
    root = cache_root(environ)
    mode = cache_mode(environ)
    problems: list[str] = []
    removed = None
    if clear_first:
        if mode is CacheMode.READ_ONLY:
            problems.append("not cleared: the cache is read-only here (TFGPU_XLA_CACHE=read-only)")
        else:
            removed = clear(root)
    if not root.is_dir():
        problems.append("nothing cached yet: tfgpu run, tfgpu.setup() and tfgpu tune fill it")
    return CacheListing(
        str(root),
        mode,
        cache_limit_bytes(environ),
        read_directories(root),
        tuple(read_runs(root)[-RECENT_RUNS:]),
        removed,
        tuple(problems),
    )
