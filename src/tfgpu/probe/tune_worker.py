"""The tune worker: measured training trials in a child interpreter, run by path.

    python tune_worker.py trial --serve --script USER.py     # requests on stdin, one per line

The user's script exposes ``build_model()`` (an uncompiled Keras model) and ``make_dataset()``
(``(x, y)`` NumPy arrays, or an unbatched, finite ``tf.data.Dataset`` of ``(features, label)``), and
optionally ``COMPILE`` (kwargs for ``model.compile``; default adam + sparse categorical
crossentropy). The config picks batch size, input pipeline, precision, jit_compile and
steps_per_execution; the result is samples/s after a warm-up and the loss after the warm-up
epoch (the same steps for every trial of a batch size: the numerical tolerance check; an epoch is
at most ``MAX_EPOCH_STEPS`` batches of the data), with the timed window on the system's
monotonic clock (the parent's GPU sampler uses the same clock, so utilization is read over
the timed steps only, not the warm-up). The window lasts at least ``MIN_WINDOW_SECONDS``: a
small model's epoch can take 0.1 s, and a rate timed over that is mostly the noise of epoch
boundaries; the per-epoch rates give the spread the parent reports. An out-of-memory error is a
result, not a crash.

One process serves many trials (the protocol is tfgpu.probe.runner.WorkerSession):
TensorFlow, the script and its data load once, each trial builds a new model, and the Keras
session is cleared between trials. Never imports tfgpu.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.util
import json
import math
import os
import statistics
import sys
import time
from typing import Any

if __package__:  # imported by name (tests, benchmarks)
    from tfgpu.probe import child_envelope as child
else:  # run by path: Python puts this file's directory first on sys.path (the runner unsets PYTHONSAFEPATH)
    import child_envelope as child  # type: ignore[no-redef,import-not-found]

MIN_TIMED_STEPS = 10
"""A large batch of a small dataset is a few steps per epoch: time enough epochs for this many."""
MIN_WINDOW_SECONDS = 2.0
MAX_TIMED_EPOCHS = 500
MAX_EPOCH_STEPS = 200
"""The batches a trial's epoch takes from the data at most (see make_input)."""


def load_script(path: str) -> Any:
    """Import the user's script as a module (by path, like the worker itself)."""
    spec = importlib.util.spec_from_file_location("tfgpu_user_script", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(module)
    for name in ("build_model", "make_dataset"):
        if not callable(getattr(module, name, None)):
            raise AttributeError(f"{path} must define {name}()")
    return module


def make_input(tf: Any, data: Any, config: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """fit() arguments for the input pipeline of the config, and the number of samples an epoch uses.

    An epoch is at most ``MAX_EPOCH_STEPS`` batches of the data (its first samples): a trial is a
    warm-up epoch and a timed window of whole epochs, and a real dataset's full epoch can take
    hours, which no budget holds. Whole epochs keep cache() meaningful (it fills on a full pass).
    """
    batch = int(config["batch_size"])
    limit = batch * MAX_EPOCH_STEPS
    pipeline = config.get("input", "numpy")
    if isinstance(data, tuple):
        x, y = data
        x, y = x[:limit], y[:limit]
        count = len(x)
        if pipeline == "numpy":
            return {"x": x, "y": y, "batch_size": batch}, count
        ds = tf.data.Dataset.from_tensor_slices((x, y))
    else:
        if int(data.cardinality()) == tf.data.INFINITE_CARDINALITY:
            raise ValueError("make_dataset() returned an endless dataset (repeat()): return one epoch")
        ds = data.take(limit)
        count = int(ds.cardinality())
        if count < 0:  # unknown (a filter, say): count the pass, in graph mode, so samples/s is right
            count = int(ds.reduce(tf.constant(0, tf.int64), lambda n, _: n + 1))
            ds = ds.apply(tf.data.experimental.assert_cardinality(count))
    if pipeline == "tf.data+cache":
        ds = ds.cache()
    if isinstance(data, tuple):  # fit(x, y) shuffles arrays every epoch: so does their pipeline, and pays for it
        ds = ds.shuffle(count, reshuffle_each_iteration=True)
    ds = ds.batch(batch)
    if pipeline == "tf.data+device":  # batches staged in GPU memory ahead of the step (last transformation)
        gpu = tf.config.list_logical_devices("GPU")
        ds = ds.apply(tf.data.experimental.prefetch_to_device(gpu[0].name if gpu else "/CPU:0"))
    elif pipeline in ("tf.data", "tf.data+cache"):
        ds = ds.prefetch(tf.data.AUTOTUNE)
    return {"x": ds}, count


class EpochClock:
    """Epoch durations on the monotonic clock (a Keras callback made on demand: keras loads lazily)."""

    def __init__(self, keras: Any) -> None:
        clock = self
        self.durations: list[float] = []

        class Callback(keras.callbacks.Callback):  # type: ignore[misc]
            def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
                clock.began = time.monotonic()

            def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
                clock.durations.append(time.monotonic() - clock.began)

        self.began = 0.0
        self.callback = Callback()


def spread(durations: list[float]) -> float | None:
    """The interquartile range of the epoch times over their median (four or more epochs): the figure's noise.

    Quartiles, not the extremes: one epoch that met a Python garbage collection or a tf.data
    refill would otherwise set the noise of them all.
    """
    if len(durations) < 4:
        return None
    q1, median, q3 = statistics.quantiles(durations, n=4)
    return (q3 - q1) / median if median > 0 else None


def run_trial(tf: Any, module: Any, config: dict[str, Any], data: Any = None) -> dict[str, Any]:
    """Build, compile, warm up, time at least ``MIN_WINDOW_SECONDS`` (and MIN_TIMED_STEPS steps), read the loss."""
    import keras

    fake_oom = os.environ.get("TFGPU_TUNE_FAKE_OOM_ABOVE")
    if fake_oom and int(config["batch_size"]) > int(fake_oom):
        raise tf.errors.ResourceExhaustedError(
            None, None, f"OOM when allocating tensor with shape[{config['batch_size']},...] (simulated)"
        )
    gpu = bool(tf.config.list_logical_devices("GPU"))
    if gpu:
        with contextlib.suppress(ValueError, KeyError, RuntimeError):
            tf.config.experimental.reset_memory_stats("GPU:0")  # the peak of this trial, not of the process
    keras.utils.set_random_seed(0)
    keras.mixed_precision.set_global_policy(config.get("precision", "float32"))
    try:
        model = module.build_model()
        # One moving mean per BatchNormalization layer, nested models included.
        batchnorm_layers = sum(1 for v in model.weights if "moving_mean" in getattr(v, "path", v.name))
        compile_kwargs = dict(
            getattr(module, "COMPILE", {"optimizer": "adam", "loss": "sparse_categorical_crossentropy"})
        )
        model.compile(
            **compile_kwargs,
            jit_compile=config.get("jit_compile", "auto"),
            steps_per_execution=int(config.get("steps_per_execution", 1)),
        )
        data = module.make_dataset() if data is None else data
        fit_args, count = make_input(tf, data, config)
        start = time.perf_counter()
        first = model.fit(**fit_args, epochs=1, verbose=0)  # warm-up: tracing, autotuning, XLA compilation
        warmup = time.perf_counter() - start
        steps_per_epoch = -(-count // int(config["batch_size"])) if count else MIN_TIMED_STEPS
        epochs = max(int(config.get("epochs", 1)), -(-MIN_TIMED_STEPS // steps_per_epoch))
        clock = EpochClock(keras)
        window_start = time.monotonic()
        model.fit(**fit_args, epochs=epochs, verbose=0, callbacks=[clock.callback])
        elapsed = time.monotonic() - window_start
        while elapsed < MIN_WINDOW_SECONDS and epochs < MAX_TIMED_EPOCHS:
            # Enough more epochs for the rest of the window at the rate so far (rounded up).
            more = min(MAX_TIMED_EPOCHS - epochs, math.ceil((MIN_WINDOW_SECONDS - elapsed) * epochs / elapsed))
            model.fit(**fit_args, epochs=more, verbose=0, callbacks=[clock.callback])
            epochs += more
            elapsed = time.monotonic() - window_start
        window_end = time.monotonic()
    finally:
        keras.mixed_precision.set_global_policy("float32")
    seconds = window_end - window_start
    peak = None
    if gpu:
        # Bytes TF's allocator had in use at most (not what it reserved); an allocator without
        # statistics leaves the trial to be judged without the headroom rule.
        with contextlib.suppress(ValueError, KeyError, RuntimeError):
            peak = int(tf.config.experimental.get_memory_info("GPU:0")["peak"])
    return {
        "samples_per_second": count * epochs / seconds,
        "seconds": seconds,
        "timed_window": [window_start, window_end],
        "timed_steps": epochs * steps_per_epoch,
        "spread": spread(clock.durations),
        "batchnorm_layers": batchnorm_layers,
        "data": "arrays" if isinstance(data, tuple) else "dataset",
        "warmup_seconds": warmup,
        "memory_peak_bytes": peak,
        "loss": float(first.history["loss"][-1]),  # after one epoch whatever the window: comparable
    }


class Trials:
    """TensorFlow, the user's script and its data, loaded on the first trial and kept for the next."""

    def __init__(self, script: str) -> None:
        self.script = script
        self.tf: Any = None
        self.module: Any = None
        self.data: Any = None

    def load(self) -> None:
        """TensorFlow, the process-wide settings of this child, then the script and its data."""
        import tensorflow as tf

        self.tf = tf
        child.use_fused_batchnorm_if_asked()
        self.module = load_script(self.script)
        self.data = self.module.make_dataset()

    def envelope(self, config_path: str) -> dict[str, Any]:
        """One trial's envelope: outcome ok or oom in ``data``, anything else in ``error``."""
        envelope = child.new_envelope("trial")
        try:
            with open(config_path, encoding="utf-8") as fh:
                config = json.load(fh)
            if self.module is None:
                self.load()
            try:
                envelope["data"] = {"outcome": "ok", **run_trial(self.tf, self.module, config, self.data)}
            except self.tf.errors.ResourceExhaustedError as exc:
                text = str(exc).strip()
                envelope["data"] = {"outcome": "oom", "message": text.splitlines()[0] if text else "OOM"}
            envelope["ok"] = True
        except BaseException as exc:  # noqa: BLE001 - the user's script may raise anything
            envelope["error"] = child.failure(exc)
        finally:
            if self.tf is not None:
                import keras

                keras.backend.clear_session()
                gc.collect()
        return envelope


def main(argv: list[str] | None = None) -> int:
    """Answer each request on stdin (one line of JSON: the config's path and the envelope's) until EOF."""
    parser = argparse.ArgumentParser()
    parser.add_argument("task", choices=("trial",))
    parser.add_argument("--serve", action="store_true", required=True)
    parser.add_argument("--script", required=True)
    args = parser.parse_args(argv)
    trials = Trials(args.script)
    for line in sys.stdin:
        request = json.loads(line)
        child.write_envelope(trials.envelope(request["spec"]), request["output"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
