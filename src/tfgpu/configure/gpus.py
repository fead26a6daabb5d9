"""Resolve a GPU selection (indices, UUIDs, "auto:N") against NVML."""

from __future__ import annotations

from collections.abc import Sequence

from tfgpu.model.errors import DiagnosticError
from tfgpu.nvml.client import NvmlClient
from tfgpu.nvml.errors import NvmlUnavailable


def resolve_gpus(selection: Sequence[str] | None, nvml: NvmlClient | None) -> list[str] | None:
    """The CUDA_VISIBLE_DEVICES entries for a selection; None keeps every GPU.

    "auto:N" picks the N GPUs with no processes and the most free memory (NVML).

    Raises:
        DiagnosticError: auto:N without NVML, more GPUs asked for than exist, or an index beyond them.
    """
    if selection is None:
        return None
    if not selection[0].startswith("auto:"):
        if nvml is not None:
            try:
                count = nvml.device_count()
            except NvmlUnavailable:
                return list(selection)
            beyond = [s for s in selection if s.isdigit() and int(s) >= count]
            if beyond:
                raise DiagnosticError(
                    "setup-gpu-index-out-of-range",
                    f"GPU {', '.join(beyond)} does not exist: this machine has {count}",
                    hint=f"use indices 0..{count - 1} (nvidia-smi -L lists them)",
                )
        return list(selection)
    wanted = int(selection[0][5:])
    if nvml is None:
        raise DiagnosticError(
            "setup-auto-needs-nvml",
            "gpus='auto:N' needs NVML to see which GPUs are free",
            hint="pip install nvidia-ml-py, or name the GPUs",
        )
    try:
        count = nvml.device_count()
        ranked = []
        for index in range(count):
            busy = len(nvml.processes(index)) if _has_processes(nvml) else 0
            free = nvml.memory_info(index).free_bytes
            ranked.append((busy > 0, -free, index))
    except NvmlUnavailable as exc:
        raise DiagnosticError(
            "setup-auto-needs-nvml",
            f"gpus='auto:{wanted}': NVML cannot be used ({exc.reason})",
            hint="name the GPUs instead",
        ) from None
    if wanted > count:
        raise DiagnosticError(
            "setup-not-enough-gpus",
            f"gpus='auto:{wanted}' but this machine has {count} GPU(s)",
            hint=f"ask for at most auto:{count}",
        )
    return [str(index) for _, _, index in sorted(ranked)[:wanted]]


def _has_processes(nvml: NvmlClient) -> bool:
    return hasattr(nvml, "processes")
