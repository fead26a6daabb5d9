"""Tuning trials and their result."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True)
class TrialConfig:
    """One training configuration."""

    batch_size: int
    input: str = "numpy"
    """numpy (fit on arrays), tf.data (batch + prefetch), tf.data+cache, tf.data+device (batch +
    prefetch_to_device: the host→device copy overlaps the step)."""
    precision: str = "float32"
    """A Keras dtype policy: float32, mixed_float16, mixed_bfloat16."""
    jit_compile: bool | str = "auto"
    steps_per_execution: int = 1
    allocator: str = "default"
    """default (BFC) or cuda_malloc_async."""
    batchnorm: str = "keras"
    """keras, or fused: Keras 3's BatchNormalization through cuDNN's fused kernel (tfgpu.setup(batchnorm=...))."""

    @property
    def xla(self) -> bool:
        """Whether it compiles with XLA: Keras's "auto" is XLA on (TensorFlow backend, a GPU), as True is."""
        return self.jit_compile is True or self.jit_compile == "auto"


class TrialOutcome(str, Enum):
    """How a trial ended: measured (ok), failed (oom, timeout, error) or measured and set aside (the rest)."""

    PENDING = "pending"
    OK = "ok"
    OOM = "oom"
    MEMORY_HEADROOM = "memory-headroom"
    TIMEOUT = "timeout"
    ERROR = "error"
    SLOWER = "slower"
    NO_GAIN = "no-gain"
    NUMERICALLY_OFF = "numerically-off"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Trial:
    """One measured trial and how it ended."""

    step: str
    config: TrialConfig
    outcome: TrialOutcome
    samples_per_second: float | None = None
    loss: float | None = None
    utilization_percent: float | None = None
    """Mean GPU utilization over the timed steps (over the whole child when it gave no window)."""
    reason: str = ""
    warmup_seconds: float | None = None
    """The first, untimed epoch: tracing, autotuning and XLA compilation (what each new run pays)."""
    memory_peak_fraction: float | None = None
    """Peak of TF's allocator over the GPU's memory (None without a GPU)."""
    data: str | None = None
    """What the script's make_dataset() gave: "arrays" or "dataset" (None when the trial failed)."""
    spread: float | None = None
    """Interquartile range / median of the timed window's epoch times: how much to trust a small difference."""
    batchnorm_layers: int | None = None
    """BatchNormalization layers in the model (None when the trial failed): the fused lever needs some."""


NOISE_FLOOR = 0.02
"""The least gain a change must show to be recommended (the search's own rule for a trial)."""


@dataclass(frozen=True)
class TuneResult:
    """The search: every trial, the baseline and the winner."""

    trials: tuple[Trial, ...]
    baseline: Trial
    """The start as measured (without XLA, which is judged last on the winner)."""
    best: Trial
    seconds: float
    requested: TrialConfig | None = None
    """The user's starting configuration, which the code change starts from (None: ``baseline``'s)."""
    confirmation: Trial | None = None
    """The winner measured again in a fresh TensorFlow process (None: not run; skipped: no budget)."""

    @property
    def process_noise(self) -> float | None:
        """|confirmation - winner| / winner: how far one configuration moved between two processes."""
        if self.confirmation is None:
            return None
        again, first = self.confirmation.samples_per_second, self.best.samples_per_second
        return abs(again - first) / first if again and first else None

    @property
    def noise(self) -> float:
        """The relative gain a winner must beat, the largest of what was measured.

        That is the process-to-process change (when the winner was confirmed), the epochs' spread
        (half the interquartile range) of the start and of the winner, and NOISE_FLOOR.
        """
        spreads = [t.spread / 2 for t in (self.baseline, self.best) if t.spread is not None]
        measured = [self.process_noise] if self.process_noise is not None else []
        return max([NOISE_FLOOR, *spreads, *measured])

    @property
    def lead(self) -> float | None:
        """The winner over the start by the lower of its figures (the trial and its fresh-process confirmation)."""
        start, best = self.baseline.samples_per_second, self.best.samples_per_second
        if not start or not best:
            return None
        again = self.confirmation.samples_per_second if self.confirmation is not None else None
        return min(best, again) / start if again else best / start

    @property
    def beats_noise(self) -> bool:
        """Whether a change from the start is a winner (faster by more than the noise, or the start gave no figure).

        Issue 23 saw a 1.05x "winner" declared while the same start measured 1,370-2,477 samples/s
        across runs; such a gain is no reason to change a training script.
        """
        if self.best.config == self.baseline.config or not self.best.samples_per_second:
            return False
        lead = self.lead
        return lead is None or lead - 1 > self.noise  # a start that gave no figure loses to any that did

    @property
    def start_config(self) -> TrialConfig:
        """What the user runs today."""
        return self.requested or self.baseline.config

    @property
    def speedup(self) -> float | None:
        """Winner over the user's starting configuration."""
        if self.best.samples_per_second and self.baseline.samples_per_second:
            return self.best.samples_per_second / self.baseline.samples_per_second
        return None


@dataclass(frozen=True)
class TuneReport:
    """What ``tfgpu tune`` prints and ``tfgpu.tune()`` returns: the search, the change to make and its notes.

    ``code_change`` is empty when nothing beat the noise (keep the configuration); each note is None
    when it does not apply.
    """

    result: TuneResult
    processes: int
    """TensorFlow processes the search started (one per change of settings, one per restart)."""
    code_change: str
    batch_caveat: str | None = None
    xla_note: str | None = None
    precision_note: str | None = None
    batchnorm_note: str | None = None

    @property
    def notes(self) -> tuple[str, ...]:
        """The notes that apply, in the order they are printed."""
        return tuple(n for n in (self.batchnorm_note, self.batch_caveat, self.xla_note, self.precision_note) if n)

    @property
    def baseline(self) -> Trial:
        """The start as measured."""
        return self.result.baseline

    @property
    def best(self) -> Trial:
        """The fastest trial."""
        return self.result.best

    @property
    def trials(self) -> tuple[Trial, ...]:
        """Every trial, in order."""
        return self.result.trials
