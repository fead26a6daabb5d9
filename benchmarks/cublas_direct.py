"""The cuBLAS that TensorFlow's wheels ship, called directly (ctypes), without TensorFlow.

    python benchmarks/cublas_direct.py [--n 8192]

Separates "the library is slow" from "TensorFlow calls it slowly": cublasGemmEx on
device buffers of random values, the same n×n products as tfgpu's matmul benchmark, with
cuBLAS's default workspace and with an explicit 32 MiB one (NVIDIA's figure for Hopper).
Loads libcublasLt/libcublas/libcudart from the nvidia-*-cu12 wheels beside TensorFlow, so
run it without PyTorch in the process. Prints TFLOP/s per dtype and the cuBLAS version.
"""

from __future__ import annotations

import argparse
import ctypes
import os

import numpy as np
from tf_vs_torch import CHAIN, median_seconds  # the same timing as the TF/torch comparison

CUDA_R = {"float16": 2, "bfloat16": 14, "float32": 0}
COMPUTE_32F, COMPUTE_32F_FAST_TF32 = 68, 77
GEMM_DEFAULT = -1


def wheel_library(package: str, name: str) -> ctypes.CDLL:
    """Load ``name`` from ``nvidia/<package>/lib`` globally, so later libraries bind to it."""
    import nvidia

    for root in nvidia.__path__:
        path = os.path.join(root, package, "lib", name)
        if os.path.exists(path):
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    raise FileNotFoundError(f"{name} not found under nvidia/{package}/lib")


def check(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"{what} returned {status}")


def gemm_rate(cublas: ctypes.CDLL, cudart: ctypes.CDLL, args: tuple[object, ...], n: int) -> float:
    """TFLOP/s of CHAIN cublasGemmEx calls and a device sync: two warm-ups, median of five."""

    def run() -> None:
        for _ in range(CHAIN):
            check(cublas.cublasGemmEx(*args), "cublasGemmEx")
        check(cudart.cudaDeviceSynchronize(), "cudaDeviceSynchronize")

    return 2.0 * n**3 * CHAIN / median_seconds(run) / 1e12


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=8192)
    args = parser.parse_args()
    n = args.n
    cudart = wheel_library("cuda_runtime", "libcudart.so.12")
    wheel_library("cublas", "libcublasLt.so.12")
    cublas = wheel_library("cublas", "libcublas.so.12")
    handle = ctypes.c_void_p()
    check(cublas.cublasCreate_v2(ctypes.byref(handle)), "cublasCreate")
    version = ctypes.c_int()
    check(cublas.cublasGetVersion_v2(handle, ctypes.byref(version)), "cublasGetVersion")
    print(f"cuBLAS {version.value} from the TensorFlow wheels, n={n}")

    def device_buffer(nbytes: int, host: np.ndarray | None = None) -> ctypes.c_void_p:
        ptr = ctypes.c_void_p()
        check(cudart.cudaMalloc(ctypes.byref(ptr), ctypes.c_size_t(nbytes)), "cudaMalloc")
        if host is not None:
            check(cudart.cudaMemcpy(ptr, host.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(nbytes), 1), "memcpy")
        return ptr

    rng = np.random.default_rng(0)
    workspace = device_buffer(32 * 2**20)
    for dtype in ("bfloat16", "float16", "float32"):
        values = (rng.standard_normal(n * n, dtype=np.float32) / n**0.5).astype(np.float32)
        if dtype == "bfloat16":
            host = (values.view(np.uint32) >> 16).astype(np.uint16)
        elif dtype == "float16":
            host = values.astype(np.float16)
        else:
            host = values
        a, b = device_buffer(host.nbytes, host), device_buffer(host.nbytes, host)
        c = device_buffer(host.nbytes)
        alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
        compute = COMPUTE_32F_FAST_TF32 if dtype == "float32" else COMPUTE_32F
        t = CUDA_R[dtype]
        for label, ws in (("default workspace", None), ("32 MiB workspace", workspace)):
            if ws is not None:
                check(cublas.cublasSetWorkspace_v2(handle, ws, ctypes.c_size_t(32 * 2**20)), "cublasSetWorkspace")

            gemm_args = (handle, 0, 0, n, n, n, ctypes.byref(alpha), a, t, n, b, t, n, ctypes.byref(beta), c, t, n)
            rate = gemm_rate(cublas, cudart, (*gemm_args, compute, GEMM_DEFAULT), n)
            print(f"cublasGemmEx {dtype:9s} {label:18s} {rate:7.1f} TFLOP/s")
        for ptr in (a, b, c):
            cudart.cudaFree(ptr)


if __name__ == "__main__":
    main()
