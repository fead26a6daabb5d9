"""Absence as data: a fact that could not be collected keeps the reason why."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Unavailable:
    """A fact that could not be collected, with the reason and where it was looked for.

    Renderers print it as ``n/a (reason)``; checks read ``reason`` to explain themselves.

    Examples:
        >>> Unavailable("not supported on this GPU", "nvml:nvmlDeviceGetPowerUsage")
        Unavailable(reason='not supported on this GPU', source='nvml:nvmlDeviceGetPowerUsage')
    """

    reason: str
    source: str

    def __str__(self) -> str:
        return f"n/a ({self.reason})"
