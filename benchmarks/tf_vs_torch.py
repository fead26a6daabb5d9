"""TensorFlow's matmul and copy rates against PyTorch's on the same GPU, in the same run.

    python benchmarks/tf_vs_torch.py [--n 8192] [--json FILE]

Issue 7's lead: TF bf16 283 TFLOP/s vs torch 779 on the H200 (2026-12-02, another session).
TF runs in tfgpu's benchmark worker, one child per setting TensorFlow reads at start:
the default (tf.function), TF_USE_CUBLASLT=1 (TF's cuBLASLt GEMM path, off by default),
jit_compile=True with XLA's default GEMM choice, with Triton GEMMs off, and with cuBLASLt on.
PyTorch runs here with the same method (chained products, host sync, median of repeats), plus
pageable and pinned host copies, which TF's Python API cannot allocate (its own figures are
pageable). Prints each figure and the TF/torch ratio; the issue's target is >= 0.9.
Needs an NVIDIA GPU, TensorFlow and PyTorch.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from typing import Any

from tfgpu.bench.run import run_benchmark
from tfgpu.probe.bench_worker import CHAIN, timed  # PyTorch is timed exactly as TF's matmul is
from tfgpu.probe.runner import worker_runner

DTYPES = ("bfloat16", "float16", "float32")
SETTINGS: dict[str, tuple[dict[str, str], bool]] = {
    "tf.function": ({}, False),
    "TF_USE_CUBLASLT=1": ({"TF_USE_CUBLASLT": "1"}, False),
    "jit_compile=True": ({}, True),
    "XLA, Triton GEMM off": ({"XLA_FLAGS": "--xla_gpu_enable_triton_gemm=false"}, True),
    "XLA + cuBLASLt": ({"XLA_FLAGS": "--xla_gpu_enable_cublaslt=true"}, True),
}


def median_seconds(run: Any, repeats: int = 5, warmup: int = 2) -> float:
    """Median wall time of ``run()``, which ends with a host sync."""
    return statistics.median(timed(run, repeats, warmup))


def torch_matmul(n: int, dtype: str) -> float:
    """TFLOP/s of chained n×n products in PyTorch (TF32 on for float32, as TF's default)."""
    import torch

    torch.backends.cuda.matmul.allow_tf32 = dtype == "float32"
    dt = getattr(torch, dtype)
    a = (torch.randn(n, n, device="cuda") / n**0.5).to(dt)
    b = (torch.randn(n, n, device="cuda") / n**0.5 * 2**0.5).to(dt)

    def run() -> None:
        x = a
        for _ in range(CHAIN):
            x = x @ b
        float(x[0, 0])

    return 2.0 * n**3 * CHAIN / median_seconds(run) / 1e12


def torch_copies(megabytes: int) -> dict[str, float]:
    """GB/s host→device and device→host, from pageable and from pinned host memory."""
    import torch

    count = megabytes * 2**20 // 4
    out = {}
    for pinned in (False, True):
        host = torch.ones(count, dtype=torch.float32).pin_memory() if pinned else torch.ones(count)
        dev = torch.empty(count, device="cuda")
        kind = "pinned" if pinned else "pageable"
        out[f"h2d {kind}"] = count * 4 / median_seconds(lambda d=dev, h=host, p=pinned: _copy(d, h, p)) / 1e9
        out[f"d2h {kind}"] = count * 4 / median_seconds(lambda d=dev, h=host, p=pinned: _copy(h, d, p)) / 1e9
    return out


def _copy(dst: Any, src: Any, non_blocking: bool) -> None:
    import torch

    dst.copy_(src, non_blocking=non_blocking)
    torch.cuda.synchronize()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=8192)
    parser.add_argument("--megabytes", type=int, default=1024)
    parser.add_argument("--json", metavar="FILE", help="also write every figure here")
    args = parser.parse_args()
    specs: list[dict[str, Any]] = []
    for label, (env, xla) in SETTINGS.items():
        sizes = (args.n, 2 * args.n) if label == "tf.function" else (args.n,)
        for n in sizes:
            for dtype in DTYPES if n == args.n else ("bfloat16",):
                spec = {"kind": "matmul", "n": n, "dtype": dtype, "xla": xla, "label": label}
                specs.append({**spec, "env": env} if env else spec)
    specs += [{"kind": "copy", "megabytes": args.megabytes, "direction": d, "label": "tf"} for d in ("h2d", "d2h")]
    # Growth: this process's torch keeps its own cached memory beside the TF children.
    env = {**os.environ, "TF_FORCE_GPU_ALLOW_GROWTH": "true"}
    result = run_benchmark("tf-vs-torch", specs, worker_runner("bench"), gpu_name=None, environ=env)
    torch_rates = {(n, d): torch_matmul(n, d) for n, d in {(s["n"], s["dtype"]) for s in specs if "n" in s}}
    copies = torch_copies(args.megabytes)
    rows = []
    for spec, entry in zip(specs, result.entries, strict=True):
        if spec["kind"] == "matmul":
            torch_value = torch_rates[(spec["n"], spec["dtype"])]
            what = f"{spec['label']:22s} {spec['dtype']:9s} n={spec['n']}"
        else:
            torch_value = copies[f"{spec['direction']} pageable"]
            what = f"copy {spec['direction']} {args.megabytes} MiB pageable"
        tf_value = entry.value if entry.ok else None
        ratio = tf_value / torch_value if tf_value else None
        rows.append({"what": what, "tf": tf_value, "torch": torch_value, "ratio": ratio, "error": entry.error})
        tf_text = f"{tf_value:8.1f}" if tf_value else f"failed ({entry.error})"
        print(
            f"{what:48s} TF {tf_text}  torch {torch_value:8.1f}  TF/torch {ratio:.2f}"
            if ratio
            else f"{what:48s} TF {tf_text}"
        )
    for kind, value in copies.items():
        print(f"torch copy {kind:14s} {value:8.1f} GB/s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"rows": rows, "torch_copies": copies}, fh, indent=2)


if __name__ == "__main__":
    main()
