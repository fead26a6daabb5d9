"""XLA that pays once: a model trained twice under ``tfgpu run`` with the same XLA cache.

    python benchmarks/xla_cache.py mnist [--runs 2] [--cache DIR] [--env K=V ...] [--verbose 0]
    python benchmarks/xla_cache.py resnet50 [--batchnorm fused] [--timeout 600] [--steps 30]
    ... [--run-option=--precision=mixed] [--run-option=--xla-cache=off]   (options of tfgpu run)

``mnist`` runs the seed guide's CNN (examples/first_cnn.py, Keras's defaults: XLA on a GPU) and
prints each run's first epoch, its warm epochs and the ratio the issue asks for: the second run's
first epoch against a warm epoch (target: at most 2x). Epochs and the first step are timed inside
the training process (``tfgpu run --json``'s phases), so ``--verbose 0`` times them too; the
progress bar's whole seconds are the fallback. ``resnet50`` trains Keras 3's ResNet-50
(b256, SGD, jit_compile=True, the batch resident on the GPU) twice and prints the first step of
each run and the steady rate. ``--env`` adds variables to both runs (XLA_FLAGS levers, TF_CPP_VMODULE
for XLA's phase timers). The cache directory is emptied first; the figures are the reference.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tfgpu.launch.output import OutputWatch  # noqa: E402

_CACHE_LINE = re.compile(r"^XLA cache: .*$", re.M)


def run_once(command: list[str], env: dict[str, str], timeout: float, log: str | None = None) -> dict[str, Any]:
    """One ``tfgpu run``: its wall time, epoch seconds, phases, verdicts, cache line and any JSON the child printed.

    ``command`` starts with ``tfgpu run``'s own arguments; ``--json`` is added to read the phases.
    """
    summary = Path(tempfile.mkdtemp(prefix="tfgpu-xla-run-")) / "summary.json"
    command = [*command[:4], "--json", str(summary), *command[4:]]
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    code: int | None
    try:
        out, err = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # tfgpu run and the training process under it
        out, err = proc.communicate()
        code = None
    seconds = time.perf_counter() - start
    if log:
        Path(log).write_text(err)
    watch = OutputWatch()
    for line in re.split(r"[\r\n]", out):
        watch.feed(line)
    cache = _CACHE_LINE.findall(err)
    child = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    doc = json.loads(summary.read_text()) if summary.is_file() else {}
    phases = doc.get("phases") or {}
    return {
        "exit": code,
        "wall_seconds": round(seconds, 1),
        "epoch_seconds": phases.get("epoch_seconds") or list(watch.finished_epochs()),
        "phases": phases,
        "verdicts": [f"{v.get('id')}: {v.get('summary')}" for v in doc.get("verdicts", [])],
        "cache_line": cache[-1] if cache else None,
        "child": child[-1] if child else None,
        "stderr_tail": err[-3000:],
    }


def _log(args: argparse.Namespace, number: int) -> str | None:
    return f"{args.stderr}-run{number + 1}.stderr" if args.stderr else None


def cached_files(cache: Path) -> tuple[int, int]:
    files = [p for p in cache.rglob("*.pb") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def mnist(args: argparse.Namespace, env: dict[str, str]) -> list[dict[str, Any]]:
    command = [sys.executable, "-m", "tfgpu", "run", *args.run_option, "--", sys.executable]
    command += [str(ROOT / "examples" / "first_cnn.py")] + (
        [] if args.verbose is None else ["--verbose", str(args.verbose)]
    )
    results = []
    for number in range(args.runs):
        result = run_once(command, env, args.timeout, _log(args, number))
        epochs = result["epoch_seconds"]
        warm = statistics.median(epochs[1:]) if len(epochs) > 1 else None
        result["first_epoch_seconds"] = epochs[0] if epochs else None
        result["warm_epoch_seconds"] = warm
        results.append(result)
        ratio = f"{epochs[0] / warm:.1f}x a warm epoch" if epochs and warm else "n/a"
        print(
            f"run {number + 1}: exit {result['exit']}, {result['wall_seconds']} s in all; epochs "
            f"{[round(e, 2) for e in epochs]} s; first epoch {ratio}\n  phases {result['phases'].get('seconds')}"
            f"\n  {result['cache_line']}\n  verdicts {result['verdicts']}",
            flush=True,
        )
    count, size = cached_files(Path(env["TFGPU_CACHE_DIR"]))
    print(f"cache: {count} programs, {size / 1e3:.0f} kB", flush=True)
    if len(results) > 1 and results[0]["warm_epoch_seconds"] and results[-1]["first_epoch_seconds"] is not None:
        warm = results[0]["warm_epoch_seconds"]
        print(
            f"second run's first epoch: {results[-1]['first_epoch_seconds']:.2f} s = "
            f"{results[-1]['first_epoch_seconds'] / warm:.2f}x a warm epoch ({warm:.2f} s; target <= 2x); "
            f"first run's first epoch {results[0]['first_epoch_seconds']:.1f} s; "
            f"whole run {results[0]['wall_seconds']} s -> {results[-1]['wall_seconds']} s",
            flush=True,
        )
    return results


def resnet50(args: argparse.Namespace, env: dict[str, str]) -> list[dict[str, Any]]:
    command = [sys.executable, "-m", "tfgpu", "run", "--batchnorm", args.batchnorm, *args.run_option, "--"]
    command += [sys.executable, __file__]
    command += ["resnet50-child", "--steps", str(args.steps), "--batch", str(args.batch), "--jit", args.jit]
    results = []
    for number in range(args.runs):
        result = run_once(command, env, args.timeout, _log(args, number))
        results.append(result)
        print(f"run {number + 1}: exit {result['exit']}, {result['wall_seconds']} s: {result['child']}", flush=True)
        print(f"  {result['cache_line']}\n  verdicts {result['verdicts']}", flush=True)
        if result["exit"] != 0:
            print(result["stderr_tail"][-1500:], flush=True)
            break
    return results


def resnet50_child(args: argparse.Namespace) -> None:
    """Inside ``tfgpu run``: Keras 3 ResNet-50 under XLA, the first step and the steady rate."""
    import keras
    import numpy as np
    import tensorflow as tf

    start = time.perf_counter()
    model = keras.applications.ResNet50(weights=None, input_shape=(224, 224, 3), classes=1000)
    model.compile(
        optimizer=keras.optimizers.SGD(0.01), loss="sparse_categorical_crossentropy", jit_compile=args.jit == "on"
    )
    built = time.perf_counter() - start
    x = tf.constant(np.random.default_rng(0).random((args.batch, 224, 224, 3), dtype=np.float32))
    y = tf.constant(np.arange(args.batch) % 1000)
    start = time.perf_counter()
    float(np.asarray(model.train_on_batch(x, y)).ravel()[0])
    first = time.perf_counter() - start
    for _ in range(3):
        model.train_on_batch(x, y)
    start = time.perf_counter()
    for _ in range(args.steps):
        loss = model.train_on_batch(x, y)
    float(np.asarray(loss).ravel()[0])
    seconds = time.perf_counter() - start
    print(
        json.dumps(
            {
                "build_seconds": round(built, 1),
                "first_step_seconds": round(first, 1),
                "images_per_second": round(args.batch * args.steps / seconds),
                "dtype_policy": keras.config.dtype_policy().name,
            }
        ),
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", choices=("mnist", "resnet50", "resnet50-child"))
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--cache", help="the TFGPU_CACHE_DIR to use (emptied first); default a temporary one")
    parser.add_argument("--env", action="append", default=[], metavar="K=V")
    parser.add_argument("--timeout", type=float, default=600.0, help="per run")
    parser.add_argument("--batchnorm", default="fused", choices=("fused", "keras"))
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--jit", default="on", choices=("on", "off"), help="resnet50: jit_compile=True or False")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--verbose", type=int, choices=(0, 1, 2), help="mnist: fit's verbose (default Keras's)")
    parser.add_argument(
        "--run-option",
        action="append",
        default=[],
        metavar="OPT",
        help="an option of tfgpu run, e.g. --precision=mixed",
    )
    parser.add_argument("--stderr", metavar="PREFIX", help="keep each run's whole stderr in PREFIX-runN.stderr")
    args = parser.parse_args()
    if args.model == "resnet50-child":
        resnet50_child(args)
        return
    cache = Path(args.cache or tempfile.mkdtemp(prefix="tfgpu-xla-cache-"))
    shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, TFGPU_CACHE_DIR=str(cache), PYTHONUNBUFFERED="1")
    env.update(item.split("=", 1) for item in args.env)
    results = mnist(args, env) if args.model == "mnist" else resnet50(args, env)
    if args.json:
        Path(args.json).write_text(json.dumps({"model": args.model, "env": args.env, "runs": results}, indent=1))


if __name__ == "__main__":
    main()
