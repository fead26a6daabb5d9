"""argparse types for the numbers and lists users type: a bad value is a usage error (exit 2) at parse time.

``float("nan")`` and ``float("inf")`` parse, and ``--gpus a`` used to reach the command as an
"internal error": each type here refuses what the option cannot mean, with the reason.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable


def _finite(text: str, unit: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of {unit}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r}: give a finite number of {unit}")
    return value


def positive(unit: str) -> Callable[[str], float]:
    """The type of an option that takes a finite number of ``unit`` above zero.

    Examples:
        >>> positive("seconds")("300")
        300.0
    """

    def parse(text: str) -> float:
        value = _finite(text, unit)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r}: give a finite number of {unit} above 0")
        return value

    parse.__name__ = f"positive {unit}"
    return parse


positive_seconds = positive("seconds")
positive_minutes = positive("minutes")


def between(low: float, high: float, unit: str) -> Callable[[str], float]:
    """The type of an option that takes a finite number of ``unit`` from ``low`` to ``high``.

    ``burn --temp-limit nan`` once switched the thermal stop off (no temperature is above nan).

    Examples:
        >>> between(20, 100, "°C")("85")
        85.0
    """

    def parse(text: str) -> float:
        value = _finite(text, unit)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r}: give a number of {unit} from {low:g} to {high:g}")
        return value

    parse.__name__ = f"{unit} from {low:g} to {high:g}"
    return parse


def whole(low: int, high: int, what: str) -> Callable[[str], int]:
    """The type of an option that takes a whole number from ``low`` to ``high`` (ASCII digits only).

    Examples:
        >>> whole(1, 64, "workers")("4")
        4
    """

    def parse(text: str) -> int:
        digits = text.strip()
        if not (digits.isascii() and digits.isdigit()) or not low <= int(digits) <= high:
            raise argparse.ArgumentTypeError(f"{text!r}: give a whole number of {what} from {low} to {high}")
        return int(digits)

    parse.__name__ = f"{what} from {low} to {high}"
    return parse


TEMPERATURE_LIMIT = between(20.0, 100.0, "°C")
"""Above 100 °C an H100/H200 has shut down before the stop could act (its slowdown is near 90 °C)."""
PID_MAX = 4_194_304
"""Linux's largest pid_max (kernel/pid.c: PID_MAX_LIMIT on 64-bit)."""


def gpu_indices(text: str) -> list[int]:
    """Comma-separated GPU indices such as ``0,1``.

    Examples:
        >>> gpu_indices("0, 2")
        [0, 2]
    """
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"{text!r}: give GPU indices such as 0 or 0,1 (nvidia-smi -L lists them)")
    return [int(p) for p in parts]


_INTERPRETERS_IN_ENVIRONMENT = ("bin/python3", "bin/python", "Scripts/python.exe", "python.exe")
"""Where a venv or conda environment keeps its interpreter (POSIX, then Windows; conda's root on Windows last)."""


def python_interpreter(text: str) -> str:
    """The type of ``--python``: an executable file, or a venv or conda directory holding one.

    Examples:
        >>> import sys
        >>> python_interpreter(sys.executable) == sys.executable
        True
    """
    if os.path.isdir(text):
        found = next(
            (os.path.join(text, p) for p in _INTERPRETERS_IN_ENVIRONMENT if os.path.isfile(os.path.join(text, p))),
            None,
        )
        if found is None:
            raise argparse.ArgumentTypeError(
                f"{text!r}: a directory with no bin/python in it (not a venv or conda env)"
            )
        text = found
    if not (os.path.isfile(text) and os.access(text, os.X_OK)):
        raise argparse.ArgumentTypeError(f"{text!r}: not an executable file, a venv or a conda environment")
    return text
