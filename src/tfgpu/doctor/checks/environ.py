"""Environment variables that hide GPUs or change how TF allocates and logs.

Sources: CUDA C Programming Guide "CUDA Environment Variables" (CUDA_VISIBLE_DEVICES parsing);
TF GPU guide (TF_FORCE_GPU_ALLOW_GROWTH, TF_GPU_ALLOCATOR=cuda_malloc_async); XLA flags guide.
"""

from __future__ import annotations

import re

from tfgpu.knowledge.fixes import export_var
from tfgpu.model.facts import Facts
from tfgpu.model.findings import Finding, Section, Severity
from tfgpu.model.unavailable import Unavailable
from tfgpu.system.environ import parse_visible_devices

E = Section.ENVIRONMENT
CUDA_ENV_DOCS = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables"
TF_GPU_GUIDE = "https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth"


def check_environ(facts: Facts) -> list[Finding]:
    """Variables that hide GPUs or break TF's GPU start-up.

    Finding ids: ``cuda-visible-devices-hides-all``, ``cuda-visible-devices-invalid``,
    ``cuda-visible-devices-out-of-range``, ``tf-gpu-allocator-invalid``, ``tf-allow-growth-invalid``,
    ``tf-logging-suppressed``, ``xla-cuda-data-dir-missing``, ``nvidia-visible-devices-none``.
    """
    if isinstance(facts.environ, Unavailable):
        return []
    out: list[Finding] = []
    out.extend(_visible_devices(facts))
    allocator = facts.env("TF_GPU_ALLOCATOR")
    if allocator not in (None, "", "cuda_malloc_async"):
        out.append(
            Finding(
                "tf-gpu-allocator-invalid",
                Severity.WARNING,
                E,
                f"TF_GPU_ALLOCATOR={allocator} is not a known allocator",
                detail=(
                    "The only accepted value is cuda_malloc_async; older TF releases stop at GPU start-up on anything "
                    "else ('Invalid allocator type'), TF 2.21 ignores it without a line and keeps its default allocator."
                ),
                hint="export TF_GPU_ALLOCATOR=cuda_malloc_async   (or: unset TF_GPU_ALLOCATOR)",
                link=TF_GPU_GUIDE,
            )
        )
    growth = facts.env("TF_FORCE_GPU_ALLOW_GROWTH")
    if growth is not None and growth.lower() not in ("true", "false"):
        out.append(
            Finding(
                "tf-allow-growth-invalid",
                Severity.WARNING,
                E,
                f"TF_FORCE_GPU_ALLOW_GROWTH={growth} is ignored",
                detail="TF reads only 'true' or 'false' and logs an error for anything else.",
                hint="export TF_FORCE_GPU_ALLOW_GROWTH=true",
                link=TF_GPU_GUIDE,
            )
        )
    level = facts.env("TF_CPP_MIN_LOG_LEVEL")
    if level and level.strip() in ("2", "3"):
        out.append(
            Finding(
                "tf-logging-suppressed",
                Severity.INFO,
                E,
                f"TF_CPP_MIN_LOG_LEVEL={level} hides TF's warnings",
                detail="The 'Could not load dynamic library' lines that explain a missing GPU are warnings; they are hidden now.",
                hint="unset TF_CPP_MIN_LOG_LEVEL while debugging GPU problems",
            )
        )
    out.extend(_xla_flags(facts))
    nvd = facts.env("NVIDIA_VISIBLE_DEVICES")
    if nvd is not None and nvd.strip().lower() in ("void", "none", ""):
        out.append(
            Finding(
                "nvidia-visible-devices-none",
                Severity.WARNING,
                E,
                f"NVIDIA_VISIBLE_DEVICES={nvd or '(empty)'} gives this container no GPU",
                hint="Start the container with --gpus all (or NVIDIA_VISIBLE_DEVICES=all).",
            )
        )
    return out


def _visible_devices(facts: Facts) -> list[Finding]:
    value = facts.env("CUDA_VISIBLE_DEVICES")
    if value is None:
        return []
    honoured, invalid = parse_visible_devices(value)
    if not honoured:
        shown = value if value.strip() else '""'
        return [
            Finding(
                "cuda-visible-devices-hides-all",
                Severity.ERROR,
                E,
                f"CUDA_VISIBLE_DEVICES={shown} hides every GPU",
                detail="CUDA exposes no device when the list is empty or starts with an invalid entry such as -1.",
                hint="unset CUDA_VISIBLE_DEVICES   (or list the GPUs to use, e.g. export CUDA_VISIBLE_DEVICES=0)",
                link=CUDA_ENV_DOCS,
            )
        ]
    out = []
    if invalid is not None:
        out.append(
            Finding(
                "cuda-visible-devices-invalid",
                Severity.WARNING,
                E,
                f"CUDA_VISIBLE_DEVICES={value}: entries from {invalid!r} on are ignored",
                detail=f"CUDA stops at the first invalid entry, so only {','.join(honoured)} are visible.",
                hint=export_var("CUDA_VISIBLE_DEVICES", ",".join(honoured)),
                link=CUDA_ENV_DOCS,
            )
        )
    count = None if isinstance(facts.gpus, Unavailable) else len(facts.gpus)
    if count is not None:
        beyond = [e for e in honoured if e.isdigit() and int(e) >= count]
        if beyond:
            out.append(
                Finding(
                    "cuda-visible-devices-out-of-range",
                    Severity.WARNING,
                    E,
                    f"CUDA_VISIBLE_DEVICES names GPU {','.join(beyond)} but this machine has {count}",
                    detail="CUDA stops at the first index that does not exist; the GPUs after it are hidden.",
                    hint=export_var("CUDA_VISIBLE_DEVICES", ",".join(str(i) for i in range(count))),
                    link=CUDA_ENV_DOCS,
                )
            )
    return out


def _xla_flags(facts: Facts) -> list[Finding]:
    flags = facts.env("XLA_FLAGS") or ""
    match = re.search(r"--xla_gpu_cuda_data_dir=(\S+)", flags)
    libs = facts.libraries
    if not match:
        return []
    directory = match.group(1)
    found = False
    if libs is not None and not isinstance(libs, Unavailable):
        found = any(c.origin == "xla_flags" for lib in libs.libraries for c in lib.copies)
    if found:
        return []
    return [
        Finding(
            "xla-cuda-data-dir-missing",
            Severity.ERROR,
            E,
            f"XLA_FLAGS points XLA at {directory}, which has no ptxas or libdevice",
            detail="XLA looks there first for bin/ptxas and nvvm/libdevice/libdevice.10.bc.",
            hint="Point it at a CUDA root that has them (e.g. /usr/local/cuda) or drop the flag when the nvidia-cuda-nvcc wheel is installed.",
        )
    ]
