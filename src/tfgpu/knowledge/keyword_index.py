"""The literal-keyword prefilter of the signature base: what the scanner looks for in a block before any regex.

Each pattern's branches hold a literal a line cannot match without (``literals``); those keywords are
looked for in a block's ``compact`` text, most of them behind a shared gate (a five-letter piece of
text) or a shorter keyword that holds them, so a block of progress lines costs a few substring tests.
Built once per signature base (``keyword_index``).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from dataclasses import dataclass

from tfgpu.knowledge.log_facts import fold_digits
from tfgpu.knowledge.signatures import Signature, compile_pattern

Keyed = tuple[tuple[str, list[tuple[int, re.Pattern[str]]]], ...]
_Folded = tuple[tuple[str, Keyed], ...]
"""A keyword with its digits folded, and the keywords (with what each stands for) that fold to it."""


def compact(text: str) -> str:
    """``text`` with every digit read as 0 and each of its lines once: all a keyword search of it needs.

    A keyword folded the same way (``fold_digits``) is in the compact text wherever the keyword is in the text
    (keywords hold no line break). A training log's lines mostly differ from one another only
    in their numbers (steps, losses, times, addresses), so a block's search reads a small part
    of it.
    """
    return "\n".join(dict.fromkeys(fold_digits(text).split("\n")))


GATE_CHARS = 5
"""The length of a gate: long enough to be rarer than the keywords' common words, short enough for several to share."""
MIN_GATED = 3
"""A gate stands for at least this many keywords (one saved scan for two does not pay for the gate's own)."""


def _grams(key: str) -> set[str]:
    """Every substring of ``key`` GATE_CHARS long."""
    return {key[i : i + GATE_CHARS] for i in range(len(key) - GATE_CHARS + 1)}


def _gates(keyed: _Folded) -> tuple[_Folded, tuple[tuple[str, _Folded], ...]]:
    """Keywords split into those looked for alone and groups behind a gate: a substring every keyword of the group holds.

    A text without the gate holds none of its group, so one scan stands for several. Gates are
    chosen greedily, the one most keywords share first (ties: the first in order, so the choice
    does not depend on hashing), and hold no blank: " not " is in every kind of text.
    """
    left = dict(keyed)
    grams = {key: {g for g in _grams(key) if not any(c.isspace() for c in g)} for key in left}
    shared = Counter(gram for key in left for gram in grams[key])  # counted once, then lowered as keys leave
    gates: list[tuple[str, _Folded]] = []
    while shared:
        gate, count = min(shared.items(), key=lambda item: (-item[1], item[0]))
        if count < MIN_GATED:
            break
        members = sorted(k for k in left if gate in grams[k])
        for key in members:
            shared.subtract(grams[key])
        shared = +shared  # only grams some key left still holds
        gates.append((gate, tuple((key, left.pop(key)) for key in members)))
    return tuple(left.items()), tuple(gates)


@dataclass(frozen=True)
class KeySet:
    """Keywords to look for in a ``compact`` text: most behind a shared gate or a shorter keyword, looked for only where that is."""

    alone: _Folded
    """Keywords that hold no shorter keyword of the set and share no gate."""
    gated: tuple[tuple[str, _Folded], ...]
    """A gate, and the keywords (holding no shorter keyword) that all hold it."""
    guarded: tuple[tuple[str, _Folded], ...]
    """A keyword, and the longer keywords that hold it: a text without it holds none of them."""

    @classmethod
    def of(cls, keyed: Keyed) -> KeySet:
        """The set of ``keyed``: keywords read with their digits folded, grouped behind the keywords they hold and shared gates."""
        by_fold: dict[str, list[tuple[str, list[tuple[int, re.Pattern[str]]]]]] = {}
        for key, entries in keyed:
            by_fold.setdefault(fold_digits(key), []).append((key, entries))
        folded = tuple((key, tuple(entries)) for key, entries in by_fold.items())
        free = tuple(group for group in folded if not any(other != group[0] and other in group[0] for other in by_fold))
        guards: dict[str, list[tuple[str, Keyed]]] = {}
        for group in folded:
            inside = [key for key, _ in free if key != group[0] and key in group[0]]
            if inside:
                guards.setdefault(max(inside, key=len), []).append(group)
        alone, gated = _gates(free)
        return cls(alone, gated, tuple((guard, tuple(entries)) for guard, entries in guards.items()))

    def held_in(self, text: str) -> Keyed:
        """The keywords a ``compact`` text holds: one C-level ``str.__contains__`` per gate and lone keyword, no Python frame per keyword."""
        held = _holding(self.alone, text)
        for gate, entries in self.gated:
            if gate in text:
                held += _holding(entries, text)
        if held and self.guarded:
            present = {key for key, _ in held}
            for guard, entries in self.guarded:
                if guard in present:
                    held += _holding(entries, text)
        return tuple(entry for _, entries in held for entry in entries)


@dataclass(frozen=True)
class Keywords:
    """Literal keyword -> the (signature index, pattern) that cannot match a line without it."""

    sensitive: KeySet
    insensitive: KeySet
    """Keywords in lower case, looked for in the lower-cased text."""
    fallback: KeySet

    def held_in(self, text: str, low: str) -> Held:
        """Only the keywords a ``compact`` text holds (``low`` is it lower-cased): a line of it holds no other.

        The hot loop of a long log.
        """
        return Held(self.sensitive.held_in(text), self.insensitive.held_in(low), self.fallback.held_in(text))


@dataclass(frozen=True)
class Held:
    """The keywords a block (or a joined record) holds, by kind."""

    sensitive: Keyed
    insensitive: Keyed
    fallback: Keyed


def _holding(keyed: _Folded, text: str) -> _Folded:
    return tuple(itertools.compress(keyed, map(text.__contains__, (key for key, _ in keyed))))


_Also = tuple[tuple[int, re.Pattern[str], tuple[tuple[str, bool], ...]], ...]


@functools.lru_cache(maxsize=8)
def keyword_index(
    signatures: tuple[Signature, ...],
) -> tuple[Keywords, tuple[tuple[int, re.Pattern[str]], ...], _Also]:
    """The keyword search of a signature base: built once per base, since every scanner of it searches the same way.

    Keyword -> the (signature index, pattern) that cannot match a line without it; the patterns no
    keyword gates; and the ``also`` patterns with their literals. ``tfgpu run`` and explain build
    one scanner per run, the benchmarks one per log.
    """
    sensitive: dict[str, list[tuple[int, re.Pattern[str]]]] = {}
    insensitive: dict[str, list[tuple[int, re.Pattern[str]]]] = {}
    fallback: dict[str, list[tuple[int, re.Pattern[str]]]] = {}
    unfiltered: list[tuple[int, re.Pattern[str]]] = []
    for index, sig in enumerate(signatures):
        for pattern, keys in zip(sig.patterns, pattern_keywords(sig), strict=True):
            for key, ci in keys:
                if sig.fallback:
                    fallback.setdefault(key, []).append((index, pattern))
                elif not key:
                    unfiltered.append((index, pattern))
                else:
                    (insensitive if ci else sensitive).setdefault(key, []).append((index, pattern))
    keywords = Keywords(
        KeySet.of(tuple(sensitive.items())),
        KeySet.of(tuple(insensitive.items())),
        KeySet.of(tuple(fallback.items())),
    )
    also = tuple(
        (id(p), p, tuple((fold_digits(key), ci) for key, ci in compile_pattern(p.pattern)[1]))
        for p in {id(p): p for s in signatures for p in s.also}.values()
    )
    return keywords, tuple(unfiltered), also


def pattern_keywords(signature: Signature) -> tuple[tuple[tuple[str, bool], ...], ...]:
    """Per pattern of ``signature``, its keywords (literal, case_insensitive); an empty one where none gates the pattern."""
    return signature.keywords or tuple((("", False),) for _ in signature.patterns)
