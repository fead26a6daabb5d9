"""Resolve a GPU selection (indices, UUIDs, "auto:N") against NVML."""

from __future__ import annotations

from collections.abc import Sequence

from tfgpu.model.errors import DiagnosticError, NvmlUnavailable
from tfgpu.nvml.client import NvmlClient


def resolve_gpus(
    selection: Sequence[str] | None, nvml: NvmlClient | None, warnings: list[str] | None = None
) -> list[str] | None:
    """The CUDA_VISIBLE_DEVICES entries for a selection; None keeps every GPU.

    "auto:N" picks the N GPUs with no processes and the most free memory (NVML). Where NVML
    sees no GPU (no driver, a CPU-only laptop), nothing is hidden and the reason is added to
    ``warnings``: the README's own ``setup(gpus="auto:1", ...)`` must run there, on the CPU.

    Raises:
        DiagnosticError: more GPUs asked for than exist, or an index beyond them.
    """
    notes = warnings if warnings is not None else []
    if selection is None:
        return None
    count, reason = _count(nvml)
    if not selection[0].startswith("auto:"):
        if count == 0:
            notes.append(
                f"gpus={','.join(selection)}: no NVIDIA GPU is visible ({reason}); TensorFlow will use the CPU"
            )
        elif count is not None:
            beyond = [s for s in selection if s.isdigit() and int(s) >= count]
            if beyond:
                raise DiagnosticError(
                    "setup-gpu-index-out-of-range",
                    f"GPU {', '.join(beyond)} does not exist: this machine has {count}",
                    hint=f"use indices 0..{count - 1} (nvidia-smi -L lists them)",
                )
        return list(selection)
    wanted = int(selection[0][5:])
    if nvml is None or not count:
        notes.append(f"gpus='auto:{wanted}': no NVIDIA GPU is visible ({reason}); TensorFlow will use the CPU")
        return None
    try:
        ranked = []
        for index in range(count):
            busy = len(nvml.processes(index)) if _has_processes(nvml) else 0
            free = nvml.memory_info(index).free_bytes
            ranked.append((busy > 0, -free, index))
    except NvmlUnavailable as exc:
        notes.append(f"gpus='auto:{wanted}': NVML could not rank the GPUs ({exc.reason}); all of them stay visible")
        return None
    if wanted > count:
        raise DiagnosticError(
            "setup-not-enough-gpus",
            f"gpus='auto:{wanted}' but this machine has {count} GPU(s)",
            hint=f"ask for at most auto:{count}",
        )
    return [str(index) for _, _, index in sorted(ranked)[:wanted]]


def _count(nvml: NvmlClient | None) -> tuple[int | None, str]:
    """How many GPUs NVML sees (None: it cannot say), and why none when it sees none."""
    if nvml is None:
        return None, "NVML was not given"
    try:
        count = nvml.device_count()
    except NvmlUnavailable as exc:
        return 0, exc.reason
    return count, "NVML lists none"


def _has_processes(nvml: NvmlClient) -> bool:
    return hasattr(nvml, "processes")
