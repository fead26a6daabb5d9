"""Counted nouns for the human reports: a user reads "1 warning", not "1 warning(s)"."""

from __future__ import annotations


def counted(number: int, noun: str) -> str:
    """The number with its noun, plural unless one.

    Examples:
        >>> counted(1, "line"), counted(0, "error"), counted(4, "GPU")
        ('1 line', '0 errors', '4 GPUs')
    """
    return f"{number} {noun}{'' if number == 1 else 's'}"


def byte_size(size_bytes: float) -> str:
    """A size in the largest binary unit it reaches, one decimal.

    Examples:
        >>> byte_size(976 * 2**10), byte_size(6.4 * 2**30), byte_size(12)
        ('976.0 KiB', '6.4 GiB', '12 B')
    """
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size_bytes >= scale:
            return f"{size_bytes / scale:.1f} {unit}"
    return f"{size_bytes:.0f} B"
