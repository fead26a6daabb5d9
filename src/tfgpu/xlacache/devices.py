"""The driver and GPUs a key names, from NVML (a machine without either gets "none")."""

from __future__ import annotations

from tfgpu.model.errors import NvmlUnavailable
from tfgpu.nvml.client import NvmlClient


def gpu_identity(nvml: NvmlClient | None) -> tuple[str | None, list[str]]:
    """(driver version, "name sm_XY" of every GPU); XLA builds its GPU programs for the model and architecture."""
    if nvml is None:
        return None, []
    try:
        driver = nvml.driver_version()
        gpus = []
        for index in range(nvml.device_count()):
            major, minor = nvml.compute_capability(index)
            gpus.append(f"{nvml.name(index)} sm_{major}{minor}")
    except NvmlUnavailable:
        return None, []
    return driver, gpus
