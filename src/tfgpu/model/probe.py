"""What the TensorFlow probe child found: the live half of the doctor's facts."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

PROBE_TIMEOUT_SECONDS = 180.0
"""How long the doctor's TensorFlow probe may take by default (``--probe-timeout``): an import, a
first op, the checks and a tiny Keras fit take 15-60 s on a healthy machine."""


@dataclass(frozen=True)
class LogEvent:
    """One TensorFlow log line that matters, parsed (``probe/tf_logs.py``)."""

    kind: str
    line_number: int
    text: str
    library: str | None = None
    detail: str | None = None


@dataclass(frozen=True)
class OpCheck:
    """One op in one dtype on one GPU, compared with float32 on the CPU."""

    op: str
    dtype: str
    device: str
    ok: bool
    relative_error: float | None = None
    error: str | None = None


@dataclass(frozen=True)
class ProbeGpu:
    """One GPU as TF registered it, and what running on it showed."""

    device: str
    name: str | None
    compute_capability: str | None
    first_op_seconds: float | None = None
    first_op_error: str | None = None
    memory_current_bytes: int | None = None
    ops: tuple[OpCheck, ...] = ()
    xla_ok: bool | None = None
    xla_seconds: float | None = None
    xla_error: str | None = None


@dataclass(frozen=True)
class TrainingCheck:
    """A tiny Keras CNN (Conv2D, BatchNormalization, Dense) fit for two epochs on the first GPU.

    ``jit_compile`` is ``auto`` (Keras's default: XLA on a GPU, with cuDNN's fused convolutions
    chosen by XLA's autotuner) or ``off``; ``policy`` is ``float32`` or the mixed policy
    ``tfgpu.setup(precision="auto")`` would pick. The first epoch pays for tracing and compiling.
    """

    jit_compile: str
    policy: str
    ok: bool
    jit_resolved: bool | None = None
    first_epoch_seconds: float | None = None
    warm_step_seconds: float | None = None
    error: str | None = None
    timed_out: bool = False
    """XLA was still compiling when the probe's XLA budget ran out (not a failure)."""


class ProbeOutcome(str, Enum):
    """How starting TensorFlow in the doctor's child ended."""

    OK = "ok"
    IMPORT_FAILED = "import_failed"
    TENSORFLOW_MISSING = "tensorflow_missing"
    FAILED = "failed"
    TIMED_OUT = "timed_out"
    CRASHED = "crashed"
    PROTOCOL_ERROR = "protocol_error"


class TrainingState(str, Enum):
    """How far the probe's Keras training got."""

    DONE = "done"
    NOT_RUN = "not_run"
    """No GPU, ``--quick``, or an older worker that does not train."""
    DIED = "died"
    """The child ended while training: its earlier results were kept."""


@dataclass(frozen=True)
class ProbeFacts:
    """The outcome of starting TensorFlow in a child process.

    ``outcome``: ``ok``, ``import_failed`` (TF raised at import), ``tensorflow_missing``,
    ``failed`` (the task raised), ``timed_out``, ``crashed`` (killed by a signal or a non-zero
    exit without output) or ``protocol_error`` (missing or garbled output).
    ``training_state``: how far the Keras training got (TrainingState).
    """

    outcome: ProbeOutcome
    python: str
    seconds: float
    timeout_seconds: float
    returncode: int | None = None
    signal: int | None = None
    tf_version: str | None = None
    import_seconds: float | None = None
    gpus: tuple[ProbeGpu, ...] = ()
    error_type: str | None = None
    error_message: str | None = None
    log_events: tuple[LogEvent, ...] = ()
    stderr_tail: str = ""
    training: tuple[TrainingCheck, ...] = ()
    training_state: TrainingState = TrainingState.NOT_RUN
