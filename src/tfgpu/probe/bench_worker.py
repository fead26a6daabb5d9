"""The benchmark worker: runs in a child interpreter, by file path, with only the stdlib at module level.

    python bench_worker.py bench --spec SPEC.json --output FILE

Each spec is {"kind": "matmul" | "copy" | "conv" | "model", ...}. Timing rules: warm-up calls
first, every timed call ends with a host read of a scalar (so the GPU work is finished), the
median of the repeats is reported, and inputs are chained through the products so no two calls
compute the same thing (graph-level CSE and caches cannot skip work). Like worker.py it never
imports tfgpu; each function takes the ``tf`` module as an argument.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

if __package__:  # imported by name (tests, benchmarks)
    from tfgpu.probe import child_envelope as child
else:  # run by path: Python puts this file's directory first on sys.path (the runner unsets PYTHONSAFEPATH)
    import child_envelope as child  # type: ignore[no-redef,import-not-found]

CHAIN = 8


def device(tf: Any, where: str = "auto") -> str:
    """The device to run on: the first GPU unless the spec asks for the CPU."""
    if where == "cpu" or not tf.config.list_physical_devices("GPU"):
        return "/CPU:0"
    return "/GPU:0"


def timed(fn: Any, repeats: int, warmup: int) -> list[float]:
    """Wall times of ``fn()``; ``fn`` must end with a host sync."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def bench_matmul(tf: Any, np: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """TFLOP/s of chained n×n products in one dtype, and the error against float64."""
    n, dtype = int(spec["n"]), spec["dtype"]
    if dtype == "float32":
        tf.config.experimental.enable_tensor_float_32_execution(bool(spec.get("tf32", True)))
    dev = device(tf, spec.get("device", "auto"))
    with tf.device(dev):
        # Entries ~N(0, 1/n) keep the chained products' magnitude ~1 in every dtype.
        a = tf.cast(tf.random.stateless_normal([n, n], seed=[1, 2]) / n**0.5, dtype)
        b = tf.cast(tf.random.stateless_normal([n, n], seed=[3, 4]) / n**0.5 * 2**0.5, dtype)

        @tf.function(jit_compile=bool(spec.get("xla", False)))  # type: ignore[untyped-decorator]
        def chained(x: Any) -> Any:
            for _ in range(CHAIN):
                x = tf.linalg.matmul(x, b)
            return tf.reduce_sum(tf.cast(x[:1, :1], tf.float32))

        def run() -> None:
            float(chained(a))

        times = timed(run, int(spec.get("repeats", 5)), int(spec.get("warmup", 2)))
        k = min(n, 256)
        small = tf.linalg.matmul(a[:k, :k], b[:k, :k])
    ref = np.asarray(tf.cast(a[:k, :k], tf.float64)) @ np.asarray(tf.cast(b[:k, :k], tf.float64))
    got = np.asarray(tf.cast(small, tf.float64))
    error = float(np.linalg.norm(got - ref) / (np.linalg.norm(ref) + 1e-30))
    seconds = statistics.median(times)
    return {
        "value": 2.0 * n**3 * CHAIN / seconds / 1e12,
        "unit": "TFLOP/s",
        "seconds": seconds,
        "relative_error": error,
        "device": dev,
    }


def bench_copy(tf: Any, np: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """GB/s of host→device, device→host and device→device (read + write) copies."""
    nbytes = int(spec["megabytes"]) * 2**20
    host = np.ones(nbytes // 4, dtype=np.float32)
    dev = device(tf)
    repeats, warmup = int(spec.get("repeats", 5)), int(spec.get("warmup", 1))
    direction = spec["direction"]
    with tf.device(dev):
        resident = tf.identity(tf.constant(host))
        if direction == "h2d":

            def run() -> None:
                x = tf.identity(tf.constant(host))
                float(x[0])

            moved = nbytes
        elif direction == "d2h":

            def run() -> None:
                resident.numpy()

            moved = nbytes
        else:

            def run() -> None:
                float((resident * 1.0)[0])

            moved = 2 * nbytes  # read and write
        seconds = statistics.median(timed(run, repeats, warmup))
    return {"value": moved / seconds / 1e9, "unit": "GB/s", "seconds": seconds, "device": dev}


def bench_conv(tf: Any, np: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """TFLOP/s of a 3×3 NHWC convolution, forward or forward+backward."""
    batch, size, channels = int(spec["batch"]), int(spec["size"]), int(spec["channels"])
    dtype, backward = spec.get("dtype", "float32"), bool(spec.get("backward", False))
    dev = device(tf)
    with tf.device(dev):
        x = tf.cast(tf.random.stateless_normal([batch, size, size, channels], seed=[5, 6]), dtype)
        w = tf.Variable(tf.cast(tf.random.stateless_normal([3, 3, channels, channels], seed=[7, 8]) * 0.05, dtype))

        @tf.function  # type: ignore[untyped-decorator]
        def step(inp: Any) -> Any:
            if not backward:
                return tf.reduce_sum(tf.cast(tf.nn.conv2d(inp, w, 1, "SAME")[:1, :1, :1, :1], tf.float32))
            with tf.GradientTape() as tape:
                tape.watch(inp)
                out = tf.nn.conv2d(inp, w, 1, "SAME")
                loss = tf.reduce_sum(tf.cast(out, tf.float32))
            gx, gw = tape.gradient(loss, [inp, w])
            return tf.reduce_sum(tf.cast(gx[:1, :1, :1, :1], tf.float32)) + tf.reduce_sum(
                tf.cast(gw[:1, :1, :1, :1], tf.float32)
            )

        def run() -> None:
            float(step(x))

        seconds = statistics.median(timed(run, int(spec.get("repeats", 5)), int(spec.get("warmup", 2))))
    flops = 2.0 * batch * size * size * 9 * channels * channels * (3 if backward else 1)
    return {"value": flops / seconds / 1e12, "unit": "TFLOP/s", "seconds": seconds, "device": dev}


def _model(keras: Any, name: str) -> tuple[Any, tuple[int, ...], int]:
    if name == "mnist_cnn":
        layers = keras.layers
        model = keras.Sequential(
            [
                keras.Input(shape=(28, 28, 1)),
                layers.Conv2D(32, 3, activation="relu"),
                layers.MaxPooling2D(),
                layers.Conv2D(64, 3, activation="relu"),
                layers.MaxPooling2D(),
                layers.Flatten(),
                layers.Dropout(0.5),
                layers.Dense(10),
                layers.Activation("softmax", dtype="float32"),
            ]
        )
        return model, (28, 28, 1), 10
    if name == "resnet50":
        return keras.applications.ResNet50(weights=None, input_shape=(224, 224, 3), classes=1000), (224, 224, 3), 1000
    raise ValueError(f"unknown model {name!r}")


def _model_input(tf: Any, np: Any, spec: dict[str, Any], shape: tuple[int, ...], classes: int) -> dict[str, Any]:
    """fit() arguments for the spec's ``input``.

    ``resident`` (handled by bench_model): the batch stays on the GPU, no copy at all.
    ``repeat`` (default): one synthetic batch repeated by tf.data, so there is no input work,
    but tf.data lives on the host, so each step still copies the batch to the GPU.
    ``numpy``: arrays to fit(); ``tf.data``: from_tensor_slices + prefetch; ``prefetch_to_device``:
    the copy staged ahead of the step; ``uint8``: images as stored, a quarter of the bytes.
    """
    batch, steps, source = int(spec["batch"]), int(spec.get("steps", 20)), spec.get("input", "repeat")
    if source == "repeat":
        x = tf.random.stateless_uniform([batch, *shape], seed=[1, 1])
        y = tf.random.stateless_uniform([batch], seed=[2, 2], maxval=classes, dtype=tf.int32)
        return {"x": tf.data.Dataset.from_tensors((x, y)).repeat(steps).prefetch(tf.data.AUTOTUNE)}
    rng = np.random.default_rng(0)
    if source == "uint8":  # images as stored: 4x fewer bytes to the GPU, the model casts them there
        x = rng.integers(0, 256, size=(batch * steps, *shape), dtype=np.uint8)
    else:
        x = rng.random((batch * steps, *shape), dtype=np.float32)
    y = rng.integers(0, classes, size=(batch * steps,))
    if source == "numpy":
        return {"x": x, "y": y, "batch_size": batch}
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(batch)
    if source == "prefetch_to_device":  # the copy overlaps the step (it must be the last transformation)
        return {
            "x": ds.apply(
                tf.data.experimental.prefetch_to_device("/GPU:0" if tf.config.list_logical_devices("GPU") else "/CPU:0")
            )
        }
    return {"x": ds.prefetch(tf.data.AUTOTUNE)}


ALL_REDUCE = {
    "nccl": "NcclAllReduce",
    "hierarchical": "HierarchicalCopyAllReduce",
    "reduce_to_one": "ReductionToOneDevice",
}


def _strategy(tf: Any, spec: dict[str, Any]) -> Any:
    """MirroredStrategy over the first ``replicas`` GPUs (logical CPUs without a GPU), or the default."""
    replicas = int(spec.get("replicas", 1))
    if replicas == 1:
        return tf.distribute.get_strategy()
    kind = "GPU" if tf.config.list_logical_devices("GPU") else "CPU"
    devices = [d.name for d in tf.config.list_logical_devices(kind)][:replicas]
    if len(devices) < replicas:
        raise ValueError(f"{replicas} replicas asked for, {len(devices)} {kind} device(s) present")
    ops = getattr(tf.distribute, ALL_REDUCE[spec.get("all_reduce", "nccl")])()
    return tf.distribute.MirroredStrategy(devices=devices, cross_device_ops=ops)


def bench_model(tf: Any, np: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """Training samples/s of a reference model, and how long the first (tracing, compiling) epoch took.

    Options: ``input`` (see _model_input), ``precision``, ``xla``, ``steps_per_execution``,
    ``batchnorm`` ("fused": the parent runs the spec in a child with TFGPU_FUSED_BATCHNORM set),
    ``layout_optimizer`` (False keeps Grappler from rewriting NHWC convolutions to NCHW), and
    ``replicas`` with ``all_reduce`` (MirroredStrategy; ``batch`` is per replica, as when a
    global batch is scaled with the replicas).
    """
    import keras

    if spec.get("batchnorm") == "fused" and not getattr(keras.layers.BatchNormalization.call, "_tfgpu_fused", False):
        raise RuntimeError("batchnorm='fused' asked for, but this child was started without TFGPU_FUSED_BATCHNORM")
    if spec.get("layout_optimizer") is False:
        tf.config.optimizer.set_experimental_options({"layout_optimizer": False})
    keras.mixed_precision.set_global_policy(spec.get("precision", "float32"))
    strategy = _strategy(tf, spec)
    batch, steps = int(spec["batch"]) * strategy.num_replicas_in_sync, int(spec.get("steps", 20))
    with strategy.scope():
        model, shape, classes = _model(keras, spec["model"])
        model.compile(
            optimizer="sgd",
            loss="sparse_categorical_crossentropy",
            jit_compile=bool(spec.get("xla", False)),
            steps_per_execution=int(spec.get("steps_per_execution", 1)),
        )
    if spec.get("input") == "resident":
        # The batch made where the model runs and kept there: no tf.data, no copy per step, so
        # the figure is the model's own step. train_on_batch passes the tensors straight in.
        with tf.device(device(tf, spec.get("device", "auto"))):
            x = tf.random.stateless_uniform([batch, *shape], seed=[1, 1])
            y = tf.random.stateless_uniform([batch], seed=[2, 2], maxval=classes, dtype=tf.int32)

        def epoch() -> None:
            for _ in range(steps):
                model.train_on_batch(x, y)  # returns the loss as a Python float: a host sync per step

    else:
        fit = _model_input(tf, np, {**spec, "batch": batch}, shape, classes)

        def epoch() -> None:
            model.fit(**fit, epochs=1, verbose=0)

    start = time.perf_counter()
    epoch()
    first = time.perf_counter() - start
    start = time.perf_counter()
    epoch()
    seconds = time.perf_counter() - start
    keras.mixed_precision.set_global_policy("float32")
    tf.config.optimizer.set_experimental_options({"layout_optimizer": True})
    return {
        "value": batch * steps / seconds,
        "unit": "samples/s",
        "seconds": seconds,
        "first_epoch_seconds": first,
        "device": device(tf, spec.get("device", "auto")),
    }


def burn(tf: Any, np: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """gpu-burn's method: the same product again and again, each compared bit for bit with the first.

    Writes one JSON line per interval to ``spec["progress"]`` (TFLOP/s and mismatches so far) and
    stops early when the file ``spec["stop"]`` appears (the parent's temperature limit, Ctrl-C).
    """
    n, dtype, seconds = int(spec["n"]), spec.get("dtype", "bfloat16"), float(spec["seconds"])
    interval = float(spec.get("interval_seconds", 1.0))
    dev = device(tf)
    with tf.device(dev):
        # Variables, and one eager call per product: nothing lets a graph optimiser fold the
        # product into a constant or merge repeated products into one.
        a = tf.Variable(tf.cast(tf.random.stateless_normal([n, n], seed=[9, 9]) / n**0.5, dtype))
        b = tf.Variable(tf.cast(tf.random.stateless_normal([n, n], seed=[8, 8]) / n**0.5, dtype))

        @tf.function  # type: ignore[untyped-decorator]
        def product_differs(ref: Any) -> Any:
            return tf.cast(tf.reduce_any(tf.not_equal(tf.linalg.matmul(a, b), ref)), tf.int64)

        reference = tf.linalg.matmul(a, b)

        def check(batch: int) -> Any:
            bad = tf.constant(0, tf.int64)
            for _ in range(batch):
                bad += product_differs(reference)
            return bad

        batch = int(spec.get("batch", 10))
        start = time.perf_counter()
        last = start
        iterations = mismatches = 0
        done_in_interval = 0
        with open(spec["progress"], "a", encoding="utf-8") as progress:
            while time.perf_counter() - start < seconds and not os.path.exists(spec["stop"]):
                mismatches += int(check(batch))
                iterations += batch
                done_in_interval += batch
                now = time.perf_counter()
                if now - last >= interval:
                    rate = 2.0 * n**3 * done_in_interval / (now - last) / 1e12
                    progress.write(
                        json.dumps(
                            {"t": now - start, "tflops": rate, "iterations": iterations, "mismatches": mismatches}
                        )
                        + "\n"
                    )
                    progress.flush()
                    last, done_in_interval = now, 0
    elapsed = time.perf_counter() - start
    return {
        "value": 2.0 * n**3 * iterations / elapsed / 1e12,
        "unit": "TFLOP/s",
        "seconds": elapsed,
        "iterations": iterations,
        "mismatches": mismatches,
        "stopped_early": os.path.exists(spec["stop"]),
        "device": dev,
    }


KINDS = {"matmul": bench_matmul, "copy": bench_copy, "conv": bench_conv, "model": bench_model, "burn": burn}


def run_specs(tf: Any, np: Any, specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every spec, each failure (an OOM, an unsupported dtype) kept as data."""
    out = []
    for spec in specs:
        try:
            result = KINDS[spec["kind"]](tf, np, spec)
            out.append({"spec": spec, "ok": True, **result})
        except Exception as exc:  # noqa: BLE001 - one failing workload must not end the others
            out.append(
                {
                    "spec": spec,
                    "ok": False,
                    "error": f"{type(exc).__name__}: {str(exc).strip()[:4000]}",  # the parent summarizes
                }
            )
    return out


def split_first_device(tf: Any, count: int) -> None:
    """Make ``count`` logical devices of the first GPU (of the CPU without one): replicas to test with."""
    gpus = tf.config.list_physical_devices("GPU")
    target = gpus[0] if gpus else tf.config.list_physical_devices("CPU")[0]
    config = (
        [tf.config.LogicalDeviceConfiguration(memory_limit=4096)] * count
        if gpus
        else [tf.config.LogicalDeviceConfiguration()] * count
    )
    tf.config.set_logical_device_configuration(target, config)


def main(argv: list[str] | None = None) -> int:
    """Run the specs and write the envelope.

    ``TFGPU_BENCH_LOGICAL_DEVICES=N`` splits the first device into N logical ones before
    TensorFlow initialises (the only moment it can), so replica code runs on one device.
    """
    parser = argparse.ArgumentParser()
    parser.add_argument("task", choices=("bench",))
    parser.add_argument("--spec", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args(argv)
    envelope = child.new_envelope("bench")
    try:
        with open(args.spec, encoding="utf-8") as fh:
            specs = json.load(fh)
        import numpy as np
        import tensorflow as tf

        if os.environ.get("TFGPU_BENCH_LOGICAL_DEVICES"):
            split_first_device(tf, int(os.environ["TFGPU_BENCH_LOGICAL_DEVICES"]))
        child.use_fused_batchnorm_if_asked()
        envelope["data"] = {
            "results": run_specs(tf, np, specs),
            "gpus": [d.name for d in tf.config.list_physical_devices("GPU")],
        }
        envelope["ok"] = True
    except BaseException as exc:  # noqa: BLE001
        envelope["error"] = child.failure(exc)
    child.write_envelope(envelope, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
