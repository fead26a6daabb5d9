"""The tune worker: one measured training trial in a child interpreter, run by path.

    python tune_worker.py trial --script USER.py --config CONFIG.json --output FILE

The user's script exposes ``build_model()`` (an uncompiled Keras model) and ``make_dataset()``
(``(x, y)`` NumPy arrays, or an unbatched, finite ``tf.data.Dataset`` of ``(features, label)``), and
optionally ``COMPILE`` (kwargs for ``model.compile``; default adam + sparse categorical
crossentropy). The config picks batch size, input pipeline, precision, jit_compile and
steps_per_execution; the result is samples/s after a warm-up and the loss after the same
number of steps (for the numerical tolerance check), with the timed window on the system's
monotonic clock (the parent's GPU sampler uses the same clock, so utilization is read over
the timed steps only, not the warm-up). An out-of-memory error is a result, not a crash.
Never imports tfgpu.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import sys
import time
import traceback
from typing import Any

SCHEMA_VERSION = 1
MIN_TIMED_STEPS = 10
"""A large batch of a small dataset is a few steps per epoch: time enough epochs for this many."""


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
    """fit() arguments for the input pipeline of the config, and the number of samples."""
    batch = int(config["batch_size"])
    pipeline = config.get("input", "numpy")
    if isinstance(data, tuple):
        x, y = data
        count = len(x)
        if pipeline == "numpy":
            return {"x": x, "y": y, "batch_size": batch}, count
        ds = tf.data.Dataset.from_tensor_slices((x, y))
    else:
        ds, count = data, int(data.cardinality())
        if count == tf.data.INFINITE_CARDINALITY:
            raise ValueError("make_dataset() returned an endless dataset (repeat()): return one epoch")
        if count < 0:  # unknown (a filter, say): count one pass, in graph mode, so samples/s is right
            count = int(ds.reduce(tf.constant(0, tf.int64), lambda n, _: n + 1))
            ds = ds.apply(tf.data.experimental.assert_cardinality(count))
    if pipeline == "tf.data+cache":
        ds = ds.cache()
    ds = ds.batch(batch)
    if pipeline == "tf.data+device":  # batches staged in GPU memory ahead of the step (last transformation)
        gpu = tf.config.list_logical_devices("GPU")
        ds = ds.apply(tf.data.experimental.prefetch_to_device(gpu[0].name if gpu else "/CPU:0"))
    elif pipeline in ("tf.data", "tf.data+cache"):
        ds = ds.prefetch(tf.data.AUTOTUNE)
    return {"x": ds}, count


def run_trial(tf: Any, module: Any, config: dict[str, Any]) -> dict[str, Any]:
    """Build, compile, warm up, time at least an epoch (and MIN_TIMED_STEPS steps), and read the loss."""
    import keras

    fake_oom = os.environ.get("TFGPU_TUNE_FAKE_OOM_ABOVE")
    if fake_oom and int(config["batch_size"]) > int(fake_oom):
        raise tf.errors.ResourceExhaustedError(
            None, None, f"OOM when allocating tensor with shape[{config['batch_size']},...] (simulated)"
        )
    keras.utils.set_random_seed(0)
    keras.mixed_precision.set_global_policy(config.get("precision", "float32"))
    model = module.build_model()
    compile_kwargs = dict(getattr(module, "COMPILE", {"optimizer": "adam", "loss": "sparse_categorical_crossentropy"}))
    jit = config.get("jit_compile", "auto")
    model.compile(**compile_kwargs, jit_compile=jit, steps_per_execution=int(config.get("steps_per_execution", 1)))
    data = module.make_dataset()
    fit_args, count = make_input(tf, data, config)
    start = time.perf_counter()
    model.fit(**fit_args, epochs=1, verbose=0)  # warm-up: tracing, autotuning, XLA compilation
    warmup = time.perf_counter() - start
    steps_per_epoch = -(-count // int(config["batch_size"])) if count else MIN_TIMED_STEPS
    epochs = max(int(config.get("epochs", 1)), -(-MIN_TIMED_STEPS // steps_per_epoch))
    window_start = time.monotonic()
    history = model.fit(**fit_args, epochs=epochs, verbose=0)
    window_end = time.monotonic()
    seconds = window_end - window_start
    keras.mixed_precision.set_global_policy("float32")
    peak = None
    if tf.config.list_logical_devices("GPU"):
        # Bytes TF's allocator had in use at most (not what it reserved); an allocator without
        # statistics leaves the trial to be judged without the headroom rule.
        with contextlib.suppress(ValueError, KeyError, RuntimeError):
            peak = int(tf.config.experimental.get_memory_info("GPU:0")["peak"])
    return {
        "samples_per_second": count * epochs / seconds,
        "seconds": seconds,
        "timed_window": [window_start, window_end],
        "timed_steps": epochs * steps_per_epoch,
        "data": "arrays" if isinstance(data, tuple) else "dataset",
        "warmup_seconds": warmup,
        "memory_peak_bytes": peak,
        "loss": float(history.history["loss"][-1]),
    }


def main(argv: list[str] | None = None) -> int:
    """Run one trial and write its envelope (outcome ok, oom or error)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("task", choices=("trial",))
    parser.add_argument("--script", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args(argv)
    envelope: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "task": "trial",
        "ok": False,
        "data": {},
        "error": None,
    }
    try:
        with open(args.config, encoding="utf-8") as fh:
            config = json.load(fh)
        import tensorflow as tf

        module = load_script(args.script)
        try:
            envelope["data"] = {"outcome": "ok", **run_trial(tf, module, config)}
        except tf.errors.ResourceExhaustedError as exc:
            envelope["data"] = {
                "outcome": "oom",
                "message": str(exc).strip().splitlines()[0] if str(exc).strip() else "OOM",
            }
        envelope["ok"] = True
    except BaseException as exc:  # noqa: BLE001 - the user's script may raise anything
        envelope["error"] = {"type": type(exc).__name__, "message": str(exc), "traceback": traceback.format_exc()}
    tmp = f"{args.output}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(envelope, fh)
    os.replace(tmp, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
