"""NVML error classes as data: what each means for the user and what to do about it.

Keyed by the ``pynvml.NVMLError_*`` class name so the table needs no binding import.
The hint texts follow what nvitop and gpustat print for the same failures.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NvmlErrorInfo:
    """The user-facing reading of one NVML error class."""

    reason: str
    hint: str


NVML_ERRORS: dict[str, NvmlErrorInfo] = {
    "NVMLError_LibraryNotFound": NvmlErrorInfo(
        "libnvidia-ml.so.1 not found: the NVIDIA driver is not installed (or not mounted into this container)",
        "Install the NVIDIA driver (e.g. `sudo ubuntu-drivers install` on Ubuntu); in Docker run with "
        "`--gpus all` and the NVIDIA Container Toolkit.",
    ),
    "NVMLError_DriverNotLoaded": NvmlErrorInfo(
        "the NVIDIA kernel module is not loaded",
        "Load it with `sudo modprobe nvidia` or reboot; after a driver upgrade a reboot is required. "
        "Check `dmesg | grep -i nvidia` for Secure Boot refusing the module.",
    ),
    "NVMLError_LibRmVersionMismatch": NvmlErrorInfo(
        "the NVIDIA driver library and the loaded kernel module are different versions",
        "Reboot so the kernel module matches the upgraded driver libraries (or reload the nvidia modules).",
    ),
    "NVMLError_NoPermission": NvmlErrorInfo(
        "no permission to access the GPU",
        "Check the permissions of /dev/nvidia* (the user needs read/write) or run inside the right group.",
    ),
    "NVMLError_NotSupported": NvmlErrorInfo("not supported on this GPU", ""),
    "NVMLError_FunctionNotFound": NvmlErrorInfo(
        "not provided by this driver's NVML", "A newer NVIDIA driver provides it."
    ),
    "NVMLError_GpuIsLost": NvmlErrorInfo(
        "the GPU has fallen off the bus",
        "The GPU stopped responding (Xid 79): check power, cooling and `dmesg`; a reboot is needed.",
    ),
    "NVMLError_Uninitialized": NvmlErrorInfo("NVML is not initialised", ""),
    "NVMLError_Unknown": NvmlErrorInfo("NVML reported an unknown error", "Check `dmesg` and `nvidia-smi`."),
    "NVMLError_InvalidArgument": NvmlErrorInfo("invalid argument (no such GPU index)", ""),
    "NVMLError_NotFound": NvmlErrorInfo("not found", ""),
    "NVMLError_Timeout": NvmlErrorInfo("the GPU did not answer in time", "Check `dmesg` for Xid errors."),
}


def describe(kind: str, fallback: str) -> NvmlErrorInfo:
    """The reading of an NVML error class, or a generic one with the binding's own text."""
    return NVML_ERRORS.get(kind, NvmlErrorInfo(fallback or kind, ""))
