"""Options → environment variables (pure): what can be set before TensorFlow starts.

Backs ``tfgpu run`` (an unmodified script gets these) and the first half of ``setup()``.
"""

from __future__ import annotations

from collections.abc import Sequence

from tfgpu.configure.options import GpuOptions


def environment_for(options: GpuOptions, visible: Sequence[str] | None) -> dict[str, str]:
    """The variables that carry ``options`` into a TF process that has not started yet.

    ``visible`` is the resolved GPU list (indices or UUIDs) for CUDA_VISIBLE_DEVICES.

    Examples:
        >>> environment_for(GpuOptions(memory="growth", deterministic=True), ["1"])
        {'CUDA_VISIBLE_DEVICES': '1', 'TF_FORCE_GPU_ALLOW_GROWTH': 'true', 'TF_DETERMINISTIC_OPS': '1'}
    """
    env: dict[str, str] = {}
    if visible is not None:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(visible)
    if options.memory == "growth":
        env["TF_FORCE_GPU_ALLOW_GROWTH"] = "true"
    elif options.memory == "async":
        env["TF_GPU_ALLOCATOR"] = "cuda_malloc_async"
    if options.xla is True:
        env["TF_XLA_FLAGS"] = "--tf_xla_auto_jit=2"
    if options.deterministic:
        env["TF_DETERMINISTIC_OPS"] = "1"
    return env


def needs_code(options: GpuOptions) -> bool:
    """Whether some option can only be applied by calling TF (the launcher's bootstrap then runs setup)."""
    return bool(
        options.precision not in (None, "float32")
        or options.tf32 is not None
        or options.xla is not None  # TF's flag does not reach Keras 3's jit_compile="auto" (keras_jit.py)
        or options.log_placement
        or options.split
        or options.batchnorm == "fused"
        or options.memory_limit_bytes
        or options.memory_limit_fraction
        or options.deterministic  # TF refuses unseeded random ops then: the setup seeds them (apply.py)
    )
