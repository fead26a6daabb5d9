"""Record, inside the training process, when its phases begin and end (loaded by ``tfgpu run``'s bootstrap).

A thread watches ``sys.modules`` for TensorFlow, Keras 3 and tf_keras; once a Keras is imported,
each ``CallbackList`` it builds (one per ``fit``/``evaluate``/``predict`` call given a plain list)
gets one more callback that notes the time of ``on_train_begin``, the first
``on_train_batch_end``, ``on_train_end`` and the test and predict begin/end. At exit the times go
to ``TFGPU_PHASES_FILE`` as JSON, for ``tfgpu run`` to read.

Nothing the script sees changes: no import hook, no wrapper in the training call's path (a
traceback from ``fit`` has no tfgpu frame), the callback declares itself async-safe for Keras 3
and takes TF logs as they are in tf_keras (no added synchronisation), and only the process that
was started gets the variable (it leaves ``os.environ`` here, so workers the script spawns do
not overwrite the record). Only the standard library is imported at start-up (``system.files``,
stdlib-only, at exit); Keras is used once the script has imported it.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

VARIABLE = "TFGPU_PHASES_FILE"
POLL_SECONDS = 0.05
MAX_CALLS = 10_000
"""Begin/end pairs kept per kind, and epoch ends: a script that calls predict() in a loop stays bounded."""

_CALLBACK_LISTS = (
    ("keras.src.callbacks.callback_list", "keras.src.callbacks.callback", False),
    ("tf_keras.src.callbacks", "tf_keras.src.callbacks", True),
)


def _ready(name: str) -> Any:
    """The module once its import has finished, else None."""
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    if module is None or getattr(spec, "_initializing", False):
        return None
    return module


class PhaseRecorder:
    """The times, on the monotonic clock that ``tfgpu run`` samples the GPUs with."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.pid = os.getpid()
        self.times: dict[str, Any] = {"start": time.monotonic(), "tensorflow": None, "exit": None}
        self.calls: dict[str, list[list[float | None]]] = {"train": [], "test": [], "predict": []}
        self.steps = 0
        self.epoch_ends: list[float] = []
        self._lock = threading.Lock()
        self._patched: set[str] = set()

    def begin(self, kind: str) -> None:
        """A fit, evaluate or predict call begins (``kind``: train, test, predict)."""
        with self._lock:
            if len(self.calls[kind]) < MAX_CALLS:
                self.calls[kind].append([time.monotonic(), None, None])  # begin, first batch end, end

    def batch_end(self) -> None:
        """A training batch ended: the first one of a fit ends its tracing and compilation."""
        with self._lock:
            self.steps += 1
            if self.calls["train"] and self.calls["train"][-1][1] is None:
                self.calls["train"][-1][1] = time.monotonic()

    def epoch_end(self) -> None:
        """A training epoch ended (after its validation, as Keras times an epoch)."""
        with self._lock:
            if len(self.epoch_ends) < MAX_CALLS:
                self.epoch_ends.append(time.monotonic())

    def end(self, kind: str) -> None:
        """The call of that kind ends."""
        with self._lock:
            if self.calls[kind] and self.calls[kind][-1][2] is None:
                self.calls[kind][-1][2] = time.monotonic()

    def watch(self) -> None:
        """Until every Keras is patched: note TensorFlow's import and patch each Keras that appears."""
        while len(self._patched) < len(_CALLBACK_LISTS):
            if self.times["tensorflow"] is None and _ready("tensorflow") is not None:
                self.times["tensorflow"] = time.monotonic()
            for list_module, callback_module, legacy in _CALLBACK_LISTS:
                if list_module not in self._patched:
                    lists, callbacks = _ready(list_module), _ready(callback_module)
                    if lists is not None and callbacks is not None and hasattr(lists, "CallbackList"):
                        self._patch(lists.CallbackList, callbacks.Callback, legacy)
                        self._patched.add(list_module)
            time.sleep(POLL_SECONDS if self.times["tensorflow"] is None else 4 * POLL_SECONDS)

    def _patch(self, callback_list: Any, base: type, legacy: bool) -> None:
        recorder = self
        callback = _recorder_callback(base, recorder)
        original = callback_list.__init__

        def init_and_record(self: Any, *args: Any, **kwargs: Any) -> None:
            original(self, *args, **kwargs)
            self.callbacks.append(callback())
            if legacy:  # tf_keras decided at __init__ whether to call batch hooks at all
                self._should_call_train_batch_hooks = True

        callback_list.__init__ = init_and_record

    def write(self) -> None:
        """At exit: the record, replaced whole (a reader never sees half of it); a forked child writes nothing."""
        if os.getpid() != self.pid:
            return
        self.times["exit"] = time.monotonic()
        with self._lock:
            record = {**self.times, **self.calls, "steps": self.steps, "epoch_ends": self.epoch_ends}
        record["tracing_seconds"] = _tracing_seconds()
        from tfgpu.system.files import write_atomically  # at exit, not at the interpreter's start

        with contextlib.suppress(OSError):  # the run goes on; tfgpu run says no phase is known
            write_atomically(Path(self.path), json.dumps(record))


_TRACING_MODULES = (
    "tensorflow.python.eager.polymorphic_function.tracing_compilation",  # TF 2.16 and later
    "tensorflow.python.eager.polymorphic_function.tracing_compiler",
    "tensorflow.python.eager.function",
)
"""Where TensorFlow keeps its "/tensorflow/core/tf_function/graph_building_time_usecs" counter, newest first."""


def _tracing_seconds() -> float | None:
    """All the time tf.function spent building graphs in this process, from TensorFlow's own counter.

    Read once, at exit, from the module that owns the counter (nothing is patched): it covers a custom
    loop's functions as well as Keras's. None when TensorFlow was not used or keeps it elsewhere.
    """
    for name in _TRACING_MODULES:
        counter = getattr(sys.modules.get(name), "_graph_building_time_counter", None)
        if counter is not None:
            try:
                return float(counter.get_cell().value()) / 1e6
            except Exception:  # noqa: BLE001 - at exit, a TF that keeps it otherwise leaves it unknown
                return None
    return None


def _recorder_callback(base: type, recorder: PhaseRecorder) -> type:
    class PhaseCallback(base):  # type: ignore[misc]
        async_safe = True  # Keras 3: no reason to run the hooks inline
        _supports_tf_logs = True  # tf_keras: no conversion of the logs to NumPy for this callback

        def on_train_begin(self, logs: Any = None) -> None:
            recorder.begin("train")

        def on_train_batch_end(self, batch: Any, logs: Any = None) -> None:
            recorder.batch_end()

        def on_epoch_end(self, epoch: Any, logs: Any = None) -> None:
            recorder.epoch_end()

        def on_train_end(self, logs: Any = None) -> None:
            recorder.end("train")

        def on_test_begin(self, logs: Any = None) -> None:
            recorder.begin("test")

        def on_test_end(self, logs: Any = None) -> None:
            recorder.end("test")

        def on_predict_begin(self, logs: Any = None) -> None:
            recorder.begin("predict")

        def on_predict_end(self, logs: Any = None) -> None:
            recorder.end("predict")

    return PhaseCallback


def start() -> None:
    """Begin recording when ``tfgpu run`` asked for it (its variable is taken out of this process's environment)."""
    path = os.environ.pop(VARIABLE, None)
    if not path:
        return
    recorder = PhaseRecorder(path)
    atexit.register(recorder.write)
    threading.Thread(target=recorder.watch, name="tfgpu-phases", daemon=True).start()
