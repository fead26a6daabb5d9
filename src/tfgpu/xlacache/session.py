"""A run's use of the cache, observed from outside the process that trains (``tfgpu run``)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from tfgpu.model.xla_cache import CacheMode, CachePlan, CacheRun, CacheUse
from tfgpu.xlacache.flags import flag_value
from tfgpu.xlacache.location import cache_limit_bytes, cache_root
from tfgpu.xlacache.plan import DIRECTORY_FLAG
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


class LiveUse:
    """The persistent cache's use by this process so far, read at any time (GpuMonitor, once per epoch).

    ``with LiveUse.of(os.environ) as use: ... use.compiled(), use.loaded()``: programs written since
    it began (compiles) and programs that were there and were opened (loads). ``of`` returns None
    when TF_XLA_FLAGS names no cache directory.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.before: frozenset[str] = frozenset()
        self._watch = OpenWatch(directory)

    @classmethod
    def of(cls, environ: Mapping[str, str]) -> LiveUse | None:
        """The use of the directory ``--tf_xla_persistent_cache_directory`` names, None without one."""
        directory = flag_value(environ.get("TF_XLA_FLAGS", ""), DIRECTORY_FLAG)
        return cls(Path(directory)) if directory else None

    def __enter__(self) -> LiveUse:
        self.before = snapshot(self.directory)
        self._watch.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._watch.__exit__(None, None, None)

    def compiled(self) -> int:
        """Programs written since the start: each one a compile the cache could not spare."""
        return len(snapshot(self.directory) - self.before)

    def opened(self) -> set[str] | None:
        """The cache's file names opened since the start, None when opens cannot be watched."""
        return self._watch.opened()

    def loaded(self) -> int | None:
        """Programs that were in the cache and were opened since: each one a compile spared."""
        opened = self.opened()
        return None if opened is None else len(opened & self.before)


@contextlib.contextmanager
def observe(plan: CachePlan) -> Iterator[Observation]:
    """Watch the key's directory while the block runs (the programs before, the opens, the programs after)."""
    observation = Observation(plan)
    if not plan.active or plan.directory is None:
        yield observation
        return
    directory = Path(plan.directory)
    with LiveUse(directory) as live:
        observation.before = live.before
        yield observation
    observation.opened = live.opened()
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
