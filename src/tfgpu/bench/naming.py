"""Workload names: what the table shows and the key ``--compare`` matches on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def entry_name(spec: Mapping[str, Any]) -> str:
    """A stable name for a workload, the key of ``--compare``.

    Examples:
        >>> entry_name({"kind": "matmul", "n": 8192, "dtype": "float32", "tf32": False})
        'matmul float32 (tf32 off) 8192'
        >>> entry_name({"kind": "conv", "batch": 64, "size": 56, "channels": 64, "env": {"TF_CUDNN_USE_AUTOTUNE": "0"}})
        'conv 3x3 float32 fwd b64 56x56x64 [TF_CUDNN_USE_AUTOTUNE=0]'
    """
    kind = spec["kind"]
    if kind == "matmul":
        # TF32 is a GPU mode: a spec without the key (the CPU suite) gets no label
        tf32 = (
            ""
            if spec["dtype"] != "float32" or "tf32" not in spec
            else (" (tf32 on)" if spec["tf32"] else " (tf32 off)")
        )
        xla = " xla" if spec.get("xla") else ""
        name = f"matmul {spec['dtype']}{tf32}{xla} {spec['n']}"
    elif kind == "copy":
        name = f"copy {spec['direction']} {spec['megabytes']} MiB"
    elif kind == "conv":
        name = f"conv 3x3 {spec.get('dtype', 'float32')} {'fwd+bwd' if spec.get('backward') else 'fwd'} b{spec['batch']} {spec['size']}x{spec['size']}x{spec['channels']}"
    else:
        options = [
            spec.get("precision", "float32"),
            *(["xla"] if spec.get("xla") else []),
            f"b{spec['batch']}",
            *([spec["input"]] if spec.get("input", "repeat") != "repeat" else []),
            *([f"spe{spec['steps_per_execution']}"] if spec.get("steps_per_execution", 1) != 1 else []),
            *(["layout-optimizer off"] if spec.get("layout_optimizer") is False else []),
            *(["fused-bn"] if spec.get("batchnorm") == "fused" else []),
            *([f"x{spec['replicas']} {spec.get('all_reduce', 'nccl')}"] if spec.get("replicas", 1) != 1 else []),
        ]
        name = f"{spec['model']} {' '.join(options)}"
    if spec.get("device") == "cpu":
        name += " on CPU"
    hidden = ("CUDA_VISIBLE_DEVICES", "TFGPU_BENCH_LOGICAL_DEVICES")  # said by "on CPU" and "xN"
    settings = {k: v for k, v in (spec.get("env") or {}).items() if k not in hidden}
    if settings:
        name += " [" + " ".join(f"{k}={v}" for k, v in sorted(settings.items())) + "]"
    return name
