"""Why a small Keras model is slow on a big GPU, and why mixed precision may give nothing: measured.

    python benchmarks/training_causes.py [--json FILE] [--only mnist|resnet50]

Issue 9's leads (H200, 2026-12-02, another session): the MNIST CNN fit on NumPy arrays at
batch 64 ran at 857 samples/s, with jit_compile=True at 687-801; ResNet-50 ran at ~760-850
img/s with no gain from mixed precision. Each row here changes one thing, so the causes
separate: the input (NumPy, tf.data, one batch repeated: no input work, only its copy), the
batch, steps_per_execution, XLA (and what its first epoch costs: tracing + compiling), the
precision, and Grappler's layout optimizer (which rewrites NHWC convolutions to NCHW unless
they are float16). All rows run in one benchmark child; samples/s is a second, warm epoch.
`--only xla-compile` (not yet run on a GPU): XLA's first epoch with its autotuning or Triton
GEMMs off. `--only resnet50-input`: ResNet-50 with its batch kept on the GPU (the model's own
step, per precision) against the host batch, prefetched to the GPU, or sent as uint8. Needs TensorFlow; without a GPU the rows run on the
CPU (slowly).
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from tfgpu.bench.naming import entry_name
from tfgpu.bench.run import run_benchmark
from tfgpu.probe.runner import worker_runner


def mnist_rows() -> list[dict[str, Any]]:
    """The seeds' configuration first, then one change at a time."""
    base = {"kind": "model", "model": "mnist_cnn"}
    rows = [
        {"batch": 64, "steps": 200, "input": "numpy", "xla": True},  # Keras's default jit_compile="auto" on a GPU
        {"batch": 64, "steps": 200, "input": "numpy"},
        {"batch": 64, "steps": 200, "input": "tf.data"},
        {"batch": 64, "steps": 200},
        {"batch": 64, "steps": 256, "steps_per_execution": 32},
        {"batch": 1024, "steps": 50, "input": "numpy"},
        {"batch": 1024, "steps": 50, "input": "tf.data"},
        {"batch": 1024, "steps": 50, "input": "tf.data", "xla": True},
        {"batch": 1024, "steps": 50},
        {"batch": 1024, "steps": 50, "xla": True},
    ]
    return [{**base, **r} for r in rows]


def resnet_rows() -> list[dict[str, Any]]:
    """ResNet-50 on one repeated synthetic batch: what precision does with and without the layout rewrite.

    float32 and mixed_bfloat16 with the rewrite on are `tfgpu bench --suite models` rows.
    """
    base = {"kind": "model", "model": "resnet50", "batch": 256, "steps": 20}
    rows = [
        {"precision": "mixed_float16"},
        {"precision": "mixed_bfloat16", "layout_optimizer": False},
        {"precision": "float32", "layout_optimizer": False},
    ]
    return [{**base, **r} for r in rows]


def xla_compile_rows() -> list[dict[str, Any]]:
    """Why XLA's first epoch takes a minute (next lease): the seed row with autotuning or Triton GEMMs off."""
    base = {"kind": "model", "model": "mnist_cnn", "batch": 64, "steps": 200, "input": "numpy", "xla": True}
    flags = ("--xla_gpu_autotune_level=0", "--xla_gpu_enable_triton_gemm=false")
    return [base] + [{**base, "env": {"XLA_FLAGS": f}} for f in flags]


def resnet_input_rows() -> list[dict[str, Any]]:
    """Is ResNet-50's step the model or the batch's trip to the GPU? The batch kept on the GPU, per precision,
    against the repeated host batch, and the trip overlapped (prefetch_to_device) or shrunk (uint8)."""
    base = {"kind": "model", "model": "resnet50", "batch": 256, "steps": 12}
    rows = [
        {"precision": "float32"},
        {"precision": "float32", "input": "resident"},
        {"precision": "mixed_bfloat16", "input": "resident"},
        {"precision": "mixed_float16", "input": "resident"},
        {"precision": "mixed_bfloat16", "input": "prefetch_to_device"},
        {"precision": "mixed_bfloat16", "input": "uint8"},
    ]
    return [{**base, **r} for r in rows]


GROUPS = {
    "mnist": mnist_rows,
    "resnet50": resnet_rows,
    "xla-compile": xla_compile_rows,
    "resnet50-input": resnet_input_rows,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument(
        "--only", choices=tuple(GROUPS), help="one group; default: mnist and resnet50 (the recorded run)"
    )
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    specs = GROUPS[args.only]() if args.only else mnist_rows() + resnet_rows()
    result = run_benchmark(
        "training-causes",
        specs,
        worker_runner("bench"),
        gpu_name=None,
        environ=os.environ,
        timeout_seconds=args.timeout,
    )
    rows = []
    for spec, entry in zip(specs, result.entries, strict=True):
        step_ms = 1000.0 * spec["batch"] / entry.value if entry.ok and entry.value else None
        rows.append(
            {
                "name": entry_name(spec),
                "samples_per_second": entry.value,
                "ms_per_step": step_ms,
                "first_epoch_seconds": entry.first_epoch_seconds,
                "error": entry.error,
            }
        )
        if entry.ok and entry.value and step_ms is not None:
            first = entry.first_epoch_seconds or 0.0
            print(
                f"{entry.name:55s} {entry.value:10,.0f} samples/s  {step_ms:7.2f} ms/step  first epoch {first:6.1f} s  {entry.device}"
            )
        else:
            print(f"{entry.name:55s} failed: {entry.error}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
