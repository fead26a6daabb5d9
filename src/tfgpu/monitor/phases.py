"""Turn the phase recorder's times into seconds per phase (pure; the record is read as untrusted data)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tfgpu.model.phases import Phase, PhaseTimes
from tfgpu.model.untrusted import finite_number

MAX_RECORD_BYTES = 4 << 20


def _calls(record: Mapping[str, Any], kind: str) -> list[tuple[float, float | None, float]]:
    """(begin, first batch end, end) of each call that ended; anything malformed is left out."""
    out = []
    raw = record.get(kind)
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, list) and len(item) == 3:
            begin, first, end = (finite_number(v) for v in item)
            if begin is not None and end is not None and end >= begin:
                out.append((begin, first if first is not None and begin <= first <= end else None, end))
    return out


def parse_record(data: bytes) -> dict[str, Any] | None:
    """The recorder's JSON object, None when it is not one."""
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def phase_times(record: Mapping[str, Any], started: float) -> PhaseTimes | None:
    """Seconds per phase from ``started`` (when ``tfgpu run`` started the command) to the process's exit.

    None without a ``fit`` that ended: a custom loop or a script that crashed before training has
    no phases this can name, and the verdict says so instead of guessing.

    Examples:
        >>> r = {"tensorflow": 12.0, "exit": 100.0, "train": [[20.0, 80.0, 98.0]], "test": [], "steps": 300}
        >>> [(p.name, s) for p, s in phase_times(r, 0.0).seconds]
        [('STARTUP', 12.0), ('PREPARE', 8.0), ('FIRST_STEP', 60.0), ('TRAINING', 18.0), ('AFTER', 2.0)]
    """
    train = _calls(record, "train")
    if not train:
        return None
    evaluation = _calls(record, "test") + _calls(record, "predict")
    imported, ended = finite_number(record.get("tensorflow")), finite_number(record.get("exit"))
    begin, first, _ = train[0]
    last_end = max(end for _, _, end in train + evaluation)
    first_step = (first - begin) if first is not None else None
    inside = sum(e - b for b, _, e in evaluation if any(tb <= b and e <= te for tb, _, te in train))
    training = sum(e - b for b, _, e in train) - inside - (first_step or 0.0)
    seconds: list[tuple[Phase, float]] = []
    if imported is not None and started <= imported <= begin:
        seconds += [(Phase.STARTUP, imported - started), (Phase.PREPARE, begin - imported)]
    elif started <= begin:
        seconds.append((Phase.PREPARE, begin - started))
    if first_step is not None:
        seconds.append((Phase.FIRST_STEP, first_step))
    seconds.append((Phase.TRAINING, max(training, 0.0)))
    if evaluation:
        seconds.append((Phase.EVALUATION, sum(e - b for b, _, e in evaluation)))
    if ended is not None and ended >= last_end:
        seconds.append((Phase.AFTER, ended - last_end))
    window = (first, train[-1][2]) if first is not None else None
    return PhaseTimes(tuple(seconds), window, _count(record.get("steps")), _epoch_seconds(record, train))


def _epoch_seconds(record: Mapping[str, Any], train: list[tuple[float, float | None, float]]) -> tuple[float, ...]:
    """Each epoch's seconds: from its ``fit``'s begin or the epoch before in the same ``fit``, to its end.

    Examples:
        >>> _epoch_seconds({"epoch_ends": [70.0, 72.0, 74.5]}, [(10.0, 60.0, 75.0)])
        (60.0, 2.0, 2.5)
    """
    raw = record.get("epoch_ends")
    ends = sorted(e for e in (finite_number(v) for v in (raw if isinstance(raw, list) else [])) if e is not None)
    out: list[float] = []
    for begin, _, end in train:
        previous = begin
        for epoch_end in (e for e in ends if begin <= e <= end):
            out.append(epoch_end - previous)
            previous = epoch_end
    return tuple(out)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def tracing_seconds(record: Mapping[str, Any]) -> float | None:
    """The seconds tf.function spent tracing in the whole process (TensorFlow's own counter), if recorded."""
    value = finite_number(record.get("tracing_seconds"))
    return value if value is not None and value >= 0 else None
