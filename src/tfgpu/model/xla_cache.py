"""What the persistent XLA cache holds and what one run did with it (data only)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class CacheMode(str, Enum):
    """How a run uses the cache: ``read-only`` suits a cache a team or fleet shares."""

    ON = "on"
    OFF = "off"
    READ_ONLY = "read-only"


@dataclass(frozen=True)
class CacheKey:
    """The versions and devices a compiled program is valid for, and their digest (the directory's name).

    TF's own check compares only the program (HLO) and its signature, not the compiler that built
    it, so an executable from another TF, CUDA or GPU would be loaded as is: the digest keeps them apart.
    """

    digest: str
    parts: tuple[tuple[str, str], ...]

    def part(self, name: str) -> str | None:
        """One part's value, None when the key has no such part."""
        return dict(self.parts).get(name)


@dataclass(frozen=True)
class CachePlan:
    """What a run is set up with: the variables to export, or why the cache is not used."""

    mode: CacheMode
    directory: str | None
    key: CacheKey | None
    variables: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()
    """What the user is told: flags of theirs that were kept, a mode that was changed and why."""

    @property
    def active(self) -> bool:
        """Whether the run has a cache directory (tfgpu's, or the user's own in TF_XLA_FLAGS)."""
        return self.directory is not None


@dataclass(frozen=True)
class CacheUse:
    """What one run did with the cache, as the file system saw it.

    ``loaded`` is None where the opens cannot be observed (no inotify).
    """

    compiled: int
    loaded: int | None
    first_epoch_seconds: float | None = None
    """Keras's first epoch in this run, when its progress output said it."""
    compiling_first_epoch_seconds: float | None = None
    """The first epoch of the latest earlier run of this key that compiled programs (what loading saved)."""


@dataclass(frozen=True)
class CacheRun:
    """One run in the cache's history (the ``runs.jsonl`` beside the programs)."""

    finished_unix: float
    digest: str
    command: str
    use: CacheUse


@dataclass(frozen=True)
class CacheDirectory:
    """One key's directory: its programs and their size."""

    key: CacheKey
    programs: int
    size_bytes: int
    last_used_unix: float | None


@dataclass(frozen=True)
class CacheListing:
    """The whole cache, for ``tfgpu cache``."""

    root: str
    mode: CacheMode
    limit_bytes: int
    directories: tuple[CacheDirectory, ...]
    runs: tuple[CacheRun, ...] = ()
    removed_bytes: int | None = None
    """Set by ``--clear``: what was deleted."""
    problems: tuple[str, ...] = ()

    @property
    def size_bytes(self) -> int:
        """All programs of every key together."""
        return sum(d.size_bytes for d in self.directories)
