"""tfgpu: get TensorFlow onto NVIDIA GPUs and keep them busy.

Importing tfgpu loads neither TensorFlow nor NVML (rule R10); the CLI is ``tfgpu`` or
``python -m tfgpu``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from tfgpu.model.errors import DiagnosticError, TfgpuError

try:
    __version__ = version("tfgpu")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["DiagnosticError", "TfgpuError", "__version__"]
