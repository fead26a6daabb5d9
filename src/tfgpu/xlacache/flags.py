"""Merging tfgpu's XLA flags into the user's ``TF_XLA_FLAGS`` / ``XLA_FLAGS``: theirs are kept, never overwritten."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_NAME = re.compile(r"--([A-Za-z0-9_]+)")
_UNSAFE_VALUE = re.compile(r"[\s'\"\\]")


def flag_names(value: str) -> set[str]:
    """The names of the flags in a flags string (``--name=value`` or ``--name``).

    Examples:
        >>> sorted(flag_names("--tf_xla_auto_jit=2  --tf_xla_cpu_global_jit"))
        ['tf_xla_auto_jit', 'tf_xla_cpu_global_jit']
    """
    return {m.group(1) for token in value.split() if (m := _NAME.match(token))}


def flag_value(value: str, name: str) -> str | None:
    """The value of ``--name=value`` in a flags string (the last one wins, as in TF's parser), else None.

    Examples:
        >>> flag_value("--tf_xla_auto_jit=2 --tf_xla_persistent_cache_directory=/c", "tf_xla_persistent_cache_directory")
        '/c'
    """
    found = None
    for token in value.split():
        key, sep, rest = token.partition("=")
        if sep and key == f"--{name}":
            found = rest
    return found


def safe_value(value: str) -> bool:
    """Whether a value can travel in a flags string as one token (TF splits the string at whitespace)."""
    return not _UNSAFE_VALUE.search(value)


@dataclass(frozen=True)
class Merged:
    """The variables to export, and the user's flags that won over tfgpu's."""

    variables: dict[str, str]
    kept: tuple[str, ...]

    def kept_any(self, flags: Mapping[str, Sequence[tuple[str, str]]]) -> bool:
        """Whether the user's value won for any of ``flags`` (per variable, (name, value) pairs)."""
        return any(f"{variable}: --{name}" in self.kept for variable, pairs in flags.items() for name, _ in pairs)


def merge_flags(environ: Mapping[str, str], ours: Mapping[str, Sequence[tuple[str, str]]]) -> Merged:
    """Append ``ours`` (per variable, (name, value) pairs) to the user's variables, theirs first and untouched.

    A flag the user set already keeps the user's value; it is named in ``kept``.

    Examples:
        >>> m = merge_flags({"TF_XLA_FLAGS": "--tf_xla_auto_jit=2"}, {"TF_XLA_FLAGS": [("tf_xla_auto_jit", "1"), ("x", "y")]})
        >>> m.variables, m.kept
        ({'TF_XLA_FLAGS': '--tf_xla_auto_jit=2 --x=y'}, ('TF_XLA_FLAGS: --tf_xla_auto_jit',))
    """
    variables: dict[str, str] = {}
    kept: list[str] = []
    for variable, flags in ours.items():
        theirs = environ.get(variable, "")
        present = flag_names(theirs)
        added = []
        for name, value in flags:
            if name in present:
                kept.append(f"{variable}: --{name}")
            else:
                added.append(f"--{name}={value}")
        if added:
            variables[variable] = " ".join([theirs.strip(), *added]).strip()
    return Merged(variables, tuple(kept))
