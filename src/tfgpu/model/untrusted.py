"""Typed values out of data tfgpu does not trust: a child's JSON answer, a saved document, a recorder's file.

A field of the wrong type is None here, never an exception later (a string where a number belongs
once reached a comparison as a TypeError, "a tfgpu bug").
"""

from __future__ import annotations

import math
from typing import Any


def finite_number(value: Any) -> float | None:
    """``value`` as a float when it is a finite int or float (not a bool), else None.

    Examples:
        >>> finite_number(3), finite_number(float("inf")), finite_number(True), finite_number("9")
        (3.0, None, None, None)
    """
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def text(value: Any) -> str | None:
    """``value`` when it is a string, else None."""
    return value if isinstance(value, str) else None
