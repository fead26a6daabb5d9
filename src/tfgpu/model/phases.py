"""Where a training process's time went, phase by phase, as measured inside it (``tfgpu run``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Phase(str, Enum):
    """The phases of a Keras training script, in the order they happen."""

    STARTUP = "startup (interpreter, import tensorflow)"
    PREPARE = "before training (model build, data)"
    FIRST_STEP = "first training step (tracing, compilation)"
    TRAINING = "training steps"
    EVALUATION = "evaluation and prediction"
    AFTER = "after training"


@dataclass(frozen=True)
class PhaseTimes:
    """Seconds per phase (only the phases seen), the training window on the monotonic clock, the steps and epochs.

    ``training_window`` runs from the end of the first training step to the end of the last
    ``fit``: the GPU's statistics are judged over it, not over imports, model building or the
    compiler.
    """

    seconds: tuple[tuple[Phase, float], ...]
    training_window: tuple[float, float] | None
    steps: int
    epoch_seconds: tuple[float, ...] = ()
    """Each training epoch's seconds as Keras times it (its validation included), with any ``verbose``."""

    @property
    def epochs(self) -> int:
        """The training epochs that ended."""
        return len(self.epoch_seconds)

    @property
    def steps_per_second(self) -> float | None:
        """Training steps per second over the training window (the first step, the compile, left out)."""
        if not self.training_window or self.steps < 2:
            return None
        seconds = self.training_window[1] - self.training_window[0]
        return (self.steps - 1) / seconds if seconds > 0 else None

    def of(self, phase: Phase) -> float | None:
        """The seconds of one phase, None when it was not seen."""
        return next((s for p, s in self.seconds if p is phase), None)

    @property
    def total(self) -> float:
        """All the seconds accounted for."""
        return sum(s for _, s in self.seconds)
