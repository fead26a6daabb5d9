"""Words and terms of a log line: what names a message whatever the sentence around it.

The signature base reads a short paste or an unknown error line by these (a message's content words,
an identifier, a pair of naming words), and the resemblance tier compares a paste with public reports by them.
"""

from __future__ import annotations

import itertools
import re

_WORD = re.compile(r"[a-z][a-z0-9_]+")


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_STOP_WORDS = _word_set("a an and are as at be been by for from in is it its no not of on or the this to was were with")
COMMON_LOG_WORDS = _word_set(
    "tensorflow tf gpu gpus cuda device devices version library libraries error errors failed fail could "
    "cannot found find load loaded loading dynamic file so dll lib python module import importerror "
    "internal status unknown warning"
)
"""Words nearly every TensorFlow GPU log holds: a bag of them alone would match any log."""


def content_words(text: str) -> frozenset[str]:
    """The words of ``text`` that carry its meaning: lower case, without articles and particles.

    Examples:
        >>> sorted(content_words("No kernel image is available for execution on the device"))
        ['available', 'device', 'execution', 'image', 'kernel']
    """
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _STOP_WORDS)


_IDENTIFIER = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]+|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]+")
"""A name only code prints: snake_case and UPPER_CASE (after lower-casing), camelCase, CamelCase. A library's
name is not one: every problem of that library prints it."""
FUNCTION_WORDS = _word_set(
    "also aren been both cannot could didn does doesn each from have into isn just many more most much must "
    "only other over same should some such than that their them then there these they this those under very "
    "wasn were what when where which while will with would your"
)
"""Words a pair of words is never made of: next to them, "available" in "are available" and "aren't available" reads the same."""
_SETUP_WORDS = COMMON_LOG_WORDS | _word_set(
    "driver runtime toolkit environment variable path directory install installed memory process system machine"
)
"""What any setup's log or nvidia-smi table says ("Driver Version", "CUDA runtime"): a pair with one of them names no problem."""
_CLAUSE = re.compile(r"[^a-z0-9_\s]+")
"""Punctuation ends a clause: a pair of words is read inside one."""


def terms(text: str) -> frozenset[str]:
    """What names a message whatever the sentence around it: identifiers, and adjacent pairs of content words.

    Examples:
        >>> sorted(terms("CUDNN_STATUS_NOT_INITIALIZED in cudnnRNNForwardTraining: illegal instruction"))
        ['cudnn_status_not_initialized', 'cudnnrnnforwardtraining', 'illegal instruction']
    """
    found = {m.group().lower() for m in _IDENTIFIER.finditer(text)}
    found |= {m.group() for m in _IDENTIFIER.finditer(text.lower())}
    for clause in _CLAUSE.split(text.lower()):
        found |= {f"{a} {b}" for a, b in itertools.pairwise(clause.split()) if _pairable(a) and _pairable(b)}
    return frozenset(found)


def _pairable(word: str) -> bool:
    """A word that names something in a pair: not a particle, a negation's stem, or a word of every setup's log."""
    return word.isalpha() and len(word) > 3 and word not in FUNCTION_WORDS and word not in _SETUP_WORDS
