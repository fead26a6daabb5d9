"""Named suites: which workloads at which sizes.

GPU sizes fill a data-center GPU; "tiny" sizes let the same suites run on a CPU (tests,
machines without a GPU).
"""

from __future__ import annotations

from typing import Any

from tfgpu.bench.naming import entry_name

SUITE_NAMES = ("quick", "full", "matmul", "memory", "conv", "models", "scaling")


def _matmul(n: int, cpu: bool) -> list[dict[str, Any]]:
    float32: list[dict[str, Any]] = (
        [{"kind": "matmul", "n": n, "dtype": "float32"}]  # no TF32 on a CPU: one float32 product, no mode label
        if cpu
        else [
            {"kind": "matmul", "n": n, "dtype": "float32", "tf32": False},
            {"kind": "matmul", "n": n, "dtype": "float32", "tf32": True},
        ]
    )
    specs = [*float32, {"kind": "matmul", "n": n, "dtype": "float16"}, {"kind": "matmul", "n": n, "dtype": "bfloat16"}]
    if not cpu:  # the same float32 product on the CPU (smaller: its rate is flat from ~2048), for the speedup
        specs.append(
            {
                "kind": "matmul",
                "n": min(n, 2048),
                "dtype": "float32",
                "tf32": False,
                "device": "cpu",
                "repeats": 2,
                "warmup": 1,
                "speedup_of": entry_name(specs[0]),
            }
        )
    return specs


def _memory(megabytes: int) -> list[dict[str, Any]]:
    return [{"kind": "copy", "megabytes": megabytes, "direction": d} for d in ("h2d", "d2h", "d2d")]


def _conv(batch: int, size: int, dtypes: tuple[str, ...], autotune_off: bool) -> list[dict[str, Any]]:
    # ResNet-50's conv2 block: 56x56, 64 channels, 3x3, NHWC. cuDNN autotuning is read once per
    # process, so the "off" runs get a child of their own (the env key).
    specs: list[dict[str, Any]] = [
        {"kind": "conv", "batch": batch, "size": size, "channels": 64, "dtype": d, "backward": b}
        for d in dtypes
        for b in (False, True)
    ]
    if autotune_off:
        specs += [{**s, "env": {"TF_CUDNN_USE_AUTOTUNE": "0"}} for s in specs if s["backward"]]
    return specs


def _models(tiny: bool) -> list[dict[str, Any]]:
    if tiny:
        return [{"kind": "model", "model": "mnist_cnn", "batch": 64, "steps": 8}]
    # 200 steps (~0.7 s on an H200): with 50 the same workload measured 211,724 and 325,043
    # samples/s in two children of one lease (docs/performance.md).
    specs: list[dict[str, Any]] = [
        {"kind": "model", "model": "mnist_cnn", "batch": 1024, "steps": 200, "precision": p, "xla": x}
        for p in ("float32", "mixed_bfloat16")
        for x in (False, True)
    ]
    # ResNet-50 as Keras 3 builds it, then with cuDNN's fused batch norm (tfgpu.setup(batchnorm="fused"):
    # 1.9x on the H200, docs/performance.md §5b); the report puts both against PyTorch on this GPU.
    specs += [
        {"kind": "model", "model": "resnet50", "batch": 256, "steps": 20, "precision": p, "xla": False, **fused}
        for fused in ({}, {"batchnorm": "fused"})
        for p in ("float32", "mixed_bfloat16")
    ]
    # And under XLA (Keras's default on a GPU), with tfgpu's XLA cache and its lever: on the H200 1.16x
    # PyTorch's TF32 rate in float32 and 1.24x its bf16 rate (docs/performance.md §9).
    specs += [
        {"kind": "model", "model": "resnet50", "batch": 256, "steps": 20, "precision": p, "xla": True}
        for p in ("float32", "mixed_bfloat16")
    ]
    # The same MNIST step on the CPU only (a child that sees no GPU), for the speedup figure.
    specs.append(
        {
            **specs[0],
            "steps": 10,
            "device": "cpu",
            "env": {"CUDA_VISIBLE_DEVICES": ""},
            "speedup_of": entry_name(specs[0]),
        }
    )
    return specs


def _scaling(tiny: bool, gpus: int) -> list[dict[str, Any]]:
    """Each model on 1, 2, 4… replicas (up to the GPU count) with both GPU all-reduces.

    The batch per replica is fixed, so the global batch grows with the replicas (the seeds'
    "1.8x on two GPUs" is measured that way). Without a GPU: two logical CPUs, so the code runs.
    """
    if tiny:
        base: dict[str, Any] = {"kind": "model", "model": "mnist_cnn", "batch": 32, "steps": 4}
        env = {"TFGPU_BENCH_LOGICAL_DEVICES": "2"}
        one = {**base, "env": env}
        return [one, {**one, "replicas": 2, "all_reduce": "reduce_to_one", "scaling_of": entry_name(one)}]
    counts = [r for r in (2, 4, 8) if r <= gpus]
    specs: list[dict[str, Any]] = []
    for model, batch, steps in (("mnist_cnn", 1024, 100), ("resnet50", 256, 20)):
        one = {"kind": "model", "model": model, "batch": batch, "steps": steps}
        specs.append(one)
        specs += [
            {**one, "replicas": r, "all_reduce": a, "scaling_of": entry_name(one)}
            for r in counts
            for a in ("nccl", "hierarchical")
        ]
    return specs


def suite(name: str, *, tiny: bool, gpus: int = 1) -> list[dict[str, Any]]:
    """The workload specs of a suite (``gpus``: how many the machine has, for ``scaling``).

    Raises:
        ValueError: an unknown suite name.
    """
    n, mb, conv_batch = (256, 16, 2) if tiny else (8192, 1024, 64)
    parts = {
        "matmul": _matmul(n, tiny),
        "memory": _memory(mb),
        "conv": _conv(conv_batch, 16 if tiny else 56, ("float32",) if tiny else ("float32", "bfloat16"), not tiny),
        "models": _models(tiny),
        "scaling": _scaling(tiny, gpus),
    }
    if name in parts:
        return parts[name]
    if name == "quick":
        matmul = parts["matmul"]
        float32 = next(s for s in matmul if s["dtype"] == "float32" and s.get("tf32", True))  # TF's default mode
        bf16 = next(s for s in matmul if s["dtype"] == "bfloat16")
        return [float32, bf16, parts["memory"][2], parts["conv"][0]]
    if name == "full":
        return parts["matmul"] + parts["memory"] + parts["conv"] + parts["models"]
    raise ValueError(f"unknown suite {name!r}: choose from {', '.join(SUITE_NAMES)}")
