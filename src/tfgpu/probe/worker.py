"""The probe worker: runs in a child interpreter, by file path, with only the stdlib at module level.

    python worker.py TASK --output FILE [--gpu-checks] [--timeout-first-op S]

It never imports tfgpu, so any interpreter that has TensorFlow can run it (``--python``), and
importing it for tests costs nothing: each task takes the ``tf`` module as an argument.
Tasks:
  interpreter  the interpreter's version, prefix and sys.path (no TensorFlow)
  devices      import TF, list GPUs, check matmul/conv/reduction per GPU and dtype against the
               CPU, time the first op, compile a small function with XLA, read memory stats, then
               train a tiny Keras CNN on the first GPU the way users' models run (``--no-training``
               skips it)
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from typing import Any

if __package__:  # imported by name (tests, benchmarks)
    from tfgpu.probe import child_envelope as child
else:  # run by path: Python puts this file's directory first on sys.path (the runner unsets PYTHONSAFEPATH)
    import child_envelope as child  # type: ignore[no-redef,import-not-found]

DTYPES = ("float32", "float16", "bfloat16")
# Relative error allowed against the float32 CPU result: float16/bfloat16 keep 10/7 mantissa bits.
TOLERANCE = {"float32": 1e-3, "float16": 1e-2, "bfloat16": 5e-2}


def describe_interpreter() -> dict[str, Any]:
    """Where this interpreter looks for packages."""
    return {
        "executable": sys.executable,
        "version": ".".join(str(p) for p in sys.version_info[:3]),
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "path": [p for p in sys.path if p],
        "externally_managed": sys.prefix == getattr(sys, "base_prefix", sys.prefix)
        and os.path.isfile(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")),
    }


def describe_build(tf: Any) -> dict[str, Any]:
    """Version and build facts as TF reports them."""
    info = dict(tf.sysconfig.get_build_info())
    return {
        "version": tf.__version__,
        "cuda_version": info.get("cuda_version"),
        "cudnn_version": info.get("cudnn_version"),
        "is_cuda_build": bool(info.get("is_cuda_build", False)),
        "compute_capabilities": list(info.get("cuda_compute_capabilities") or []),
    }


def describe_gpus(tf: Any) -> list[dict[str, Any]]:
    """The GPUs TF registered, with the details TF gives for each."""
    out = []
    for device in tf.config.list_physical_devices("GPU"):
        details = tf.config.experimental.get_device_details(device)
        cc = details.get("compute_capability")
        out.append(
            {
                "name": device.name,
                "device_name": details.get("device_name"),
                "compute_capability": f"{cc[0]}.{cc[1]}" if cc else None,
            }
        )
    return out


def _relative_error(tf: Any, got: Any, want: Any) -> float:
    got64 = tf.cast(got, tf.float64)
    want64 = tf.cast(want, tf.float64)
    num = tf.norm(tf.reshape(got64 - want64, [-1]))
    den = tf.norm(tf.reshape(want64, [-1])) + 1e-30
    return float(num / den)


def _ops(tf: Any) -> dict[str, Any]:
    def matmul(x: Any) -> Any:
        return tf.linalg.matmul(x, x)

    def conv(x: Any) -> Any:
        image = tf.reshape(x[:, :256], [4, 16, 16, 64])
        kernel = tf.reshape(x[:9, :64], [3, 3, 1, 64]) * tf.ones([1, 1, 64, 1], x.dtype)
        return tf.nn.conv2d(image, kernel, strides=1, padding="SAME")

    def reduction(x: Any) -> Any:
        return tf.reduce_sum(x, axis=0)

    return {"matmul": matmul, "conv": conv, "reduction": reduction}


def check_ops(tf: Any, device: str) -> list[dict[str, Any]]:
    """Each op in each dtype on ``device`` against the same op in float32 on the CPU."""
    results = []
    with tf.device("/CPU:0"):
        base = tf.random.stateless_uniform([256, 256], seed=[1, 2], minval=-1.0, maxval=1.0)
    for op_name, op in _ops(tf).items():
        with tf.device("/CPU:0"):
            want = op(base)
        for dtype in DTYPES:
            entry: dict[str, Any] = {"op": op_name, "dtype": dtype, "device": device}
            try:
                with tf.device(device):
                    got = op(tf.cast(base, dtype))
                error = _relative_error(tf, got, want)
                entry.update(relative_error=error, ok=error <= TOLERANCE[dtype])
            except Exception as exc:  # noqa: BLE001 - the child reports every failure as data
                entry.update(ok=False, error=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            results.append(entry)
    return results


def first_op_seconds(tf: Any, device: str) -> float:
    """Wall time of the first op on the device: includes context creation and any PTX JIT."""
    start = time.perf_counter()
    with tf.device(device):
        value = tf.reduce_sum(tf.ones([64, 64]))
    float(value)
    return time.perf_counter() - start


def check_xla(tf: Any, device: str) -> dict[str, Any]:
    """Compile and run a small function with ``jit_compile=True``."""

    @tf.function(jit_compile=True)  # type: ignore[untyped-decorator]
    def fn(x: Any) -> Any:
        return tf.reduce_sum(tf.nn.relu(tf.linalg.matmul(x, x)) * 2.0)

    start = time.perf_counter()
    try:
        with tf.device(device):
            x = tf.ones([128, 128])
            value = float(fn(x))
        return {"ok": abs(value - 2.0 * 128 * 128 * 128) < 1.0, "seconds": time.perf_counter() - start}
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "error": f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc) else ''}"}


TRAINING_SHAPE = (16, 16, 3)
TRAINING_SAMPLES = 256
TRAINING_BATCH = 32


def mixed_policy(compute_capability: str | None, table: str) -> str | None:
    """The mixed policy the parent's table gives this GPU, or None (float32 only).

    The table (``8.0=mixed_bfloat16,7.0=mixed_float16``: best first, each from its lowest compute
    capability) is the parent's decision; this child only knows which GPU TensorFlow calls GPU:0.

    Examples:
        >>> t = "8.0=mixed_bfloat16,7.0=mixed_float16"
        >>> [mixed_policy(cc, t) for cc in ("9.0", "7.5", "6.1", None)], mixed_policy("9.0", "")
        (['mixed_bfloat16', 'mixed_float16', None, None], None)
    """
    if not compute_capability:
        return None
    have = tuple(int(p) for p in compute_capability.split(".")[:2])
    for entry in filter(None, table.split(",")):
        lowest, _, policy = entry.partition("=")
        if have >= tuple(int(p) for p in lowest.split(".")[:2]):
            return policy
    return None


def _tiny_cnn(keras: Any) -> Any:
    """Conv2D + BatchNormalization + Dense: the layers of the tutorials, small enough to compile fast."""
    layers = keras.layers
    return keras.Sequential(
        [
            keras.Input(shape=TRAINING_SHAPE),
            layers.Conv2D(16, 3, padding="same", activation="relu"),
            layers.BatchNormalization(),
            layers.Conv2D(16, 3, activation="relu"),
            layers.MaxPooling2D(),
            layers.Flatten(),
            layers.Dense(10, dtype="float32"),
        ]
    )


def train_once(tf: Any, device: str, jit_compile: Any, policy: str) -> dict[str, Any]:
    """Two epochs of ``fit`` on random data: the first pays for tracing (and XLA's compilation).

    ``jit_compile="auto"`` is Keras's own default, so a failure here is what a user's
    ``model.fit`` meets. The loss must stay finite.
    """
    import numpy as np

    keras = tf.keras
    entry: dict[str, Any] = {"jit_compile": jit_compile, "policy": policy, "device": device}
    rng = np.random.default_rng(0)
    x = rng.standard_normal((TRAINING_SAMPLES, *TRAINING_SHAPE), dtype=np.float32)
    y = rng.integers(0, 10, TRAINING_SAMPLES)
    keras.mixed_precision.set_global_policy(policy)
    try:
        with tf.device(device):
            model = _tiny_cnn(keras)
            model.compile(
                optimizer="adam",
                loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                jit_compile=jit_compile,
            )
            start = time.perf_counter()
            first = model.fit(x, y, batch_size=TRAINING_BATCH, epochs=1, verbose=0)
            first_seconds = time.perf_counter() - start
            start = time.perf_counter()
            second = model.fit(x, y, batch_size=TRAINING_BATCH, epochs=1, verbose=0)
            warm_seconds = time.perf_counter() - start
        losses = [float(v) for v in first.history["loss"] + second.history["loss"]]
        resolved = getattr(model, "jit_compile", None)
        entry.update(
            ok=all(np.isfinite(losses)),
            jit_resolved=bool(resolved) if resolved is not None else None,
            first_epoch_seconds=first_seconds,
            warm_step_seconds=warm_seconds / -(-TRAINING_SAMPLES // TRAINING_BATCH),
            loss=losses[-1],
        )
        if not entry["ok"]:
            entry["error"] = f"the loss is not finite: {losses}"
    except Exception as exc:  # noqa: BLE001 - the child reports every failure as data
        entry.update(ok=False, error=f"{type(exc).__name__}: {_cause_line(str(exc))}")
    finally:
        keras.mixed_precision.set_global_policy("float32")
    return entry


def _cause_line(message: str) -> str:
    """The first line of a TF error that is not boilerplate (the full text is in the parent's log)."""
    noise = ("Graph execution error", "Detected at node", "File ", "Traceback", "[[", "Node:", "Hint:")
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return next((line for line in lines if not line.startswith(noise)), lines[0] if lines else "")[:2000]


XLA_BUDGET_SECONDS = 25.0
"""How long the probe waits for XLA to compile and train the tiny CNN, so that the whole doctor
fits in about a minute. On the H200 (2026-12-03) its first XLA epoch took 135 s in float32 with
libnvrtc present and 31 s without it, while the mixed_bfloat16 run without libnvrtc failed after
6.5 s: the mixed run goes first, so the fast failure is seen within the budget."""


def _bounded(fn: Callable[[], dict[str, Any]], seconds: float) -> dict[str, Any] | None:
    """``fn()`` in a daemon thread; None when it is still running after ``seconds`` (it is abandoned)."""
    result: list[dict[str, Any]] = []
    thread = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    thread.start()
    thread.join(seconds)
    return result[0] if result else None


def check_training(
    tf: Any, device: str, mixed: str | None, xla_budget: float = XLA_BUDGET_SECONDS
) -> list[dict[str, Any]]:
    """jit_compile=False, then Keras's default (XLA "auto"), in float32 and in ``mixed`` (the policy setup() picks).

    Under XLA the mixed run goes first. The XLA runs share ``xla_budget`` seconds; one still compiling then is reported as
    ``timed_out`` and the rest are skipped (the caller must exit without waiting for it).
    """
    policies = ("float32", mixed) if mixed else ("float32",)
    out = [train_once(tf, device, False, policy) for policy in policies]
    deadline = time.monotonic() + xla_budget
    for policy in reversed(policies):
        left = deadline - time.monotonic()
        result = _bounded(functools.partial(train_once, tf, device, "auto", policy), left) if left > 0 else None
        if result is None:
            out.append(
                {
                    "jit_compile": "auto",
                    "policy": policy,
                    "device": device,
                    "ok": False,
                    "timed_out": True,
                    "error": f"XLA was still compiling after {xla_budget:.0f} s",
                }
            )
            break
        out.append(result)
    return out


def memory_info(tf: Any, device: str) -> dict[str, Any] | None:
    """Bytes TF's allocator holds on the device (current and peak)."""
    try:
        info = tf.config.experimental.get_memory_info(device.replace("/", "").replace("device:", ""))
    except Exception:  # noqa: BLE001 - not every build exposes it
        return None
    return {"current_bytes": int(info["current"]), "peak_bytes": int(info["peak"])}


def probe_devices(
    tf: Any,
    import_seconds: float,
    run_checks: bool = True,
    training: bool = True,
    checkpoint: Callable[[dict[str, Any]], None] = lambda data: None,
    mixed_policies: str = "",
) -> dict[str, Any]:
    """The ``devices`` task over an imported ``tf``.

    ``checkpoint`` gets the data before the training check starts: a CUDA error there can
    abort the process, and what was learned before it must still reach the parent, with
    ``training`` saying the check was under way.
    """
    data: dict[str, Any] = {"import_seconds": import_seconds, "build": describe_build(tf)}
    gpus = describe_gpus(tf)
    data["gpus"] = gpus
    data["per_gpu"] = []
    for index, _gpu in enumerate(gpus):
        device = f"/GPU:{index}"
        entry: dict[str, Any] = {"device": device}
        try:
            entry["first_op_seconds"] = first_op_seconds(tf, device)
        except Exception as exc:  # noqa: BLE001
            entry["first_op_error"] = f"{type(exc).__name__}: {exc}"
            data["per_gpu"].append(entry)
            continue
        entry["memory_after_first_op"] = memory_info(tf, f"GPU:{index}")
        if run_checks:
            entry["ops"] = check_ops(tf, device)
            entry["xla"] = check_xla(tf, device)
        data["per_gpu"].append(entry)
    if run_checks and training and data["per_gpu"] and "first_op_seconds" in data["per_gpu"][0]:
        data["training"] = "started"
        checkpoint(data)
        data["training"] = check_training(tf, "/GPU:0", mixed_policy(gpus[0].get("compute_capability"), mixed_policies))
    return data


def main(argv: list[str] | None = None) -> int:
    """Run one task and write its envelope; the exit status is 0 even when the task failed."""
    parser = argparse.ArgumentParser()
    parser.add_argument("task", choices=("interpreter", "devices"))
    parser.add_argument("--output", required=True)
    parser.add_argument("--no-checks", action="store_true")
    parser.add_argument("--no-training", action="store_true")
    parser.add_argument("--mixed-policies", default="", help="the parent's table: 8.0=mixed_bfloat16,7.0=…")
    args = parser.parse_args(argv)
    envelope = child.new_envelope(args.task)
    envelope["data"]["interpreter"] = describe_interpreter()
    if args.task == "interpreter":
        envelope["ok"] = True
        child.write_envelope(envelope, args.output)
        return 0
    start = time.perf_counter()
    try:
        import tensorflow as tf
    except BaseException as exc:  # noqa: BLE001 - ImportError, OSError from a .so, SystemExit
        envelope["error"] = child.failure(exc)
        child.write_envelope(envelope, args.output)
        return 0
    import_seconds = time.perf_counter() - start

    def checkpoint(data: dict[str, Any]) -> None:
        child.write_envelope({**envelope, "ok": True, "data": {**envelope["data"], **data}}, args.output)

    try:
        envelope["data"].update(
            probe_devices(tf, import_seconds, not args.no_checks, not args.no_training, checkpoint, args.mixed_policies)
        )
        envelope["ok"] = True
    except Exception as exc:  # noqa: BLE001
        envelope["error"] = child.failure(exc)
    child.write_envelope(envelope, args.output)
    training = envelope["data"].get("training")
    if isinstance(training, list) and any(t.get("timed_out") for t in training):
        sys.stderr.flush()
        os._exit(0)  # an abandoned XLA compilation would hold the interpreter's shutdown
    return 0


if __name__ == "__main__":
    sys.exit(main())
