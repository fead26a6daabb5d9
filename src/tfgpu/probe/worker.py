"""The probe worker: runs in a child interpreter, by file path, with only the stdlib at module level.

    python worker.py TASK --output FILE [--gpu-checks] [--timeout-first-op S]

It never imports tfgpu, so any interpreter that has TensorFlow can run it (``--python``), and
importing it for tests costs nothing: each task takes the ``tf`` module as an argument.
Tasks:
  interpreter  the interpreter's version, prefix and sys.path (no TensorFlow)
  devices      import TF, list GPUs, check matmul/conv/reduction per GPU and dtype against the
               CPU, time the first op, compile a small function with XLA, read memory stats
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from typing import Any

SCHEMA_VERSION = 1  # must equal tfgpu.probe.protocol.SCHEMA_VERSION (a unit test checks)
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


def memory_info(tf: Any, device: str) -> dict[str, Any] | None:
    """Bytes TF's allocator holds on the device (current and peak)."""
    try:
        info = tf.config.experimental.get_memory_info(device.replace("/", "").replace("device:", ""))
    except Exception:  # noqa: BLE001 - not every build exposes it
        return None
    return {"current_bytes": int(info["current"]), "peak_bytes": int(info["peak"])}


def probe_devices(tf: Any, import_seconds: float, run_checks: bool = True) -> dict[str, Any]:
    """The ``devices`` task over an imported ``tf``."""
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
    return data


def _write(path: str, document: dict[str, Any]) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(document, fh)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    """Run one task and write its envelope; the exit status is 0 even when the task failed."""
    parser = argparse.ArgumentParser()
    parser.add_argument("task", choices=("interpreter", "devices"))
    parser.add_argument("--output", required=True)
    parser.add_argument("--no-checks", action="store_true")
    args = parser.parse_args(argv)
    envelope: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "task": args.task,
        "ok": False,
        "data": {},
        "error": None,
    }
    envelope["data"]["interpreter"] = describe_interpreter()
    if args.task == "interpreter":
        envelope["ok"] = True
        _write(args.output, envelope)
        return 0
    start = time.perf_counter()
    try:
        import tensorflow as tf
    except BaseException as exc:  # noqa: BLE001 - ImportError, OSError from a .so, SystemExit
        envelope["error"] = {"type": type(exc).__name__, "message": str(exc), "traceback": traceback.format_exc()}
        _write(args.output, envelope)
        return 0
    import_seconds = time.perf_counter() - start
    try:
        envelope["data"].update(probe_devices(tf, import_seconds, run_checks=not args.no_checks))
        envelope["ok"] = True
    except Exception as exc:  # noqa: BLE001
        envelope["error"] = {"type": type(exc).__name__, "message": str(exc), "traceback": traceback.format_exc()}
    _write(args.output, envelope)
    return 0


if __name__ == "__main__":
    sys.exit(main())
