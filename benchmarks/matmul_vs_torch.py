"""TensorFlow's matmul rate against PyTorch's on the same GPU, in the same run (issue 7's lead:
TF bf16 283 TFLOP/s vs torch 779 on the H200, measured 2026-12-02 by another session).

    python benchmarks/matmul_vs_torch.py [--n 8192] [--dtypes bfloat16,float16,float32]

TF runs in tfgpu's benchmark worker (a child), once per variant: tf.function, jit_compile=True,
and with XLA_FLAGS asking for cuBLASLt; PyTorch runs here (chained products, CUDA events
not needed: the same host-sync timing as the worker, median of repeats). Prints TFLOP/s of
each and the TF/torch ratio (issue target: >= 0.9 for tfgpu's recommended setting).
Needs an NVIDIA GPU, TensorFlow and PyTorch.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from tfgpu.bench.run import bench_runner, run_benchmark

CHAIN = 8


def torch_rate(n: int, dtype: str, repeats: int = 5) -> float:
    import torch

    torch.backends.cuda.matmul.allow_tf32 = dtype == "float32"
    dt = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}[dtype]
    a = (torch.randn(n, n, device="cuda") / n**0.5).to(dt)
    b = (torch.randn(n, n, device="cuda") / n**0.5 * 2**0.5).to(dt)

    def run() -> None:
        x = a
        for _ in range(CHAIN):
            x = x @ b
        float(x[0, 0])

    for _ in range(2):
        run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return 2.0 * n**3 * CHAIN / statistics.median(times) / 1e12


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=8192)
    parser.add_argument("--dtypes", default="bfloat16,float16,float32")
    args = parser.parse_args()
    dtypes = args.dtypes.split(",")
    variants = {
        "tf.function": ({}, False),
        "jit_compile=True": ({}, True),
        "XLA + cuBLASLt": ({"XLA_FLAGS": "--xla_gpu_enable_cublaslt=true"}, True),
    }
    for label, (extra_env, xla) in variants.items():
        specs = [{"kind": "matmul", "n": args.n, "dtype": d, "tf32": True, "xla": xla} for d in dtypes]
        # Growth: the torch process beside the TF child keeps its own memory cached.
        env = {**os.environ, "TF_FORCE_GPU_ALLOW_GROWTH": "true", **extra_env}
        result = run_benchmark("matmul", specs, bench_runner(), gpu_name=None, environ=env)
        for entry in result.entries:
            dtype = entry.name.split()[1]
            torch_tflops = torch_rate(args.n, dtype)
            tf_text = f"{entry.value:.0f}" if entry.ok and entry.value else f"failed ({entry.error})"
            ratio = f"{entry.value / torch_tflops:.2f}" if entry.ok and entry.value else "-"
            print(
                f"{label:18s} {dtype:9s} n={args.n}: TF {tf_text} TFLOP/s, torch {torch_tflops:.0f} TFLOP/s, TF/torch {ratio}"
            )


if __name__ == "__main__":
    main()
