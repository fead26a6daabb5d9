"""tfgpu: get TensorFlow onto NVIDIA GPUs and keep them busy.

Importing tfgpu loads neither TensorFlow nor NVML (rule R10); the CLI is ``tfgpu`` or
``python -m tfgpu``.
"""

from __future__ import annotations

from tfgpu._version import __version__
from tfgpu.model.errors import DiagnosticError, TfgpuError

__all__ = ["DiagnosticError", "TfgpuError", "__version__"]
