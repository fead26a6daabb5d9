"""A run's use of the cache, observed from outside the process that trains (``tfgpu run``)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from tfgpu.model.xla_cache import CacheMode, CachePlan, CacheRun, CacheUse
from tfgpu.xlacache.location import cache_limit_bytes, cache_root
from tfgpu.xlacache.store import evict, first_written, mark_used, read_runs, record_run, snapshot
from tfgpu.xlacache.watch import OpenWatch


@dataclass
class Observation:
    """Filled in when the run ends: what it compiled and loaded."""

    plan: CachePlan
    before: frozenset[str] = frozenset()
    opened: set[str] | None = None
    after: frozenset[str] = frozenset()
    ended: bool = False
    first_compiled_unix: float | None = None
    """When the first program this run compiled was written (TF writes each one as its compile ends)."""

    def use(self, first_epoch_seconds: float | None) -> CacheUse | None:
        """The run's use of the cache, None when it had none."""
        if not self.plan.active or not self.ended:
            return None
        loaded = None if self.opened is None else len(self.opened & self.before)
        return CacheUse(len(self.after - self.before), loaded, first_epoch_seconds)


@contextlib.contextmanager
def observe(plan: CachePlan) -> Iterator[Observation]:
    """Watch the key's directory while the block runs (the programs before, the opens, the programs after)."""
    observation = Observation(plan)
    if not plan.active or plan.directory is None:
        yield observation
        return
    directory = Path(plan.directory)
    observation.before = snapshot(directory)
    with OpenWatch(directory) as watch:
        yield observation
    observation.opened = watch.opened()
    observation.after = snapshot(directory)
    observation.first_compiled_unix = first_written(directory, observation.after - observation.before)
    observation.ended = True


def conclude(
    observation: Observation, environ: Mapping[str, str], command: str, first_epoch_seconds: float | None
) -> CacheUse | None:
    """Record the run in the history, mark the loaded programs used and keep the cache within its limit."""
    use = observation.use(first_epoch_seconds)
    plan = observation.plan
    if use is None or plan.key is None or plan.directory is None or plan.mode is not CacheMode.ON:
        return use
    directory = Path(plan.directory)
    mark_used(directory, (observation.opened or set()) & observation.before)
    root = cache_root(environ)
    compiling = [
        r.use.first_epoch_seconds
        for r in read_runs(root)
        if r.digest == plan.key.digest and r.use.compiled and r.use.first_epoch_seconds is not None
    ]
    if use.loaded and compiling:
        use = replace(use, compiling_first_epoch_seconds=compiling[-1])
    record_run(root, CacheRun(time.time(), plan.key.digest, command, use))
    evict(root, cache_limit_bytes(environ), keep=directory)
    return use
