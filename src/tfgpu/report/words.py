"""Counted nouns for the human reports: a user reads "1 warning", not "1 warning(s)"."""

from __future__ import annotations


def counted(number: int, noun: str) -> str:
    """The number with its noun, plural unless one.

    Examples:
        >>> counted(1, "line"), counted(0, "error"), counted(4, "GPU")
        ('1 line', '0 errors', '4 GPUs')
    """
    return f"{number} {noun}{'' if number == 1 else 's'}"
