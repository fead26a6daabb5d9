"""tfgpu: get TensorFlow onto NVIDIA GPUs and keep them busy.

Importing tfgpu loads neither TensorFlow nor NVML (rule R10); the CLI is ``tfgpu`` or
``python -m tfgpu``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfgpu._version import __version__
from tfgpu.model.errors import DiagnosticError, TfgpuError

if TYPE_CHECKING:
    from tfgpu.configure.apply import Setup
    from tfgpu.model.tune import TuneReport


def setup(
    gpus: Any = None,
    memory: Any = None,
    precision: str | None = None,
    xla: bool | str | None = None,
    tf32: bool | None = None,
    deterministic: bool | None = None,
    log_placement: bool = False,
    strategy: str | None = "auto",
    split: int | None = None,
    batchnorm: str | None = None,
    xla_cache: bool | str | None = None,
    *,
    verbose: bool = True,
) -> Setup:
    """Configure TensorFlow's GPUs in one call, before any model code.

    Args:
        gpus: "all", an index, a list of indices or UUIDs, or "auto:N" (the N freest GPUs).
        memory: "growth", "async" (cuda_malloc_async), a limit ("6GiB") or a share ("80%").
        precision: "float32", "mixed" or "auto" (mixed_bfloat16 from compute capability 8.0,
            mixed_float16 on 7.x, float32 below or without a GPU).
        xla: True, False or "auto" (auto-clustering); False also makes Keras 3's default
            jit_compile="auto" mean no XLA (it picks XLA on any GPU otherwise).
        tf32: TensorFloat-32 for float32 matmuls on/off.
        deterministic: op determinism on (and random seed 0 when none is set: TF refuses unseeded
            random ops under determinism, and every Keras initializer is one).
        log_placement: log the device of every op.
        strategy: "auto", "default", "one", "mirrored" or "multiworker".
        split: split GPU 0 (or the CPU) into N logical devices, to test multi-GPU code.
        batchnorm: "fused" runs Keras 3's BatchNormalization through cuDNN's fused kernel
            (same results and variables; 1.9x for ResNet-50 on an H200); "keras" or None leaves it.
        xla_cache: keep XLA's compiled programs for the next run of this script (True / "on",
            False / "off", "read-only" for a shared cache; None: $TFGPU_XLA_CACHE, else on). The
            seeds' MNIST CNN on an H200: first epoch 13.2 s when compiling, 3.8 s when loading,
            2.5 s warm (56 s compiling before the cache plan's XLA lever).
        verbose: print the summary.

    Returns:
        A Setup with the strategy, ``scope()``, ``global_batch_size(per_replica)``, ``summary()``.

    Raises:
        DiagnosticError: an invalid option, or TF already initialized (with the line to move).
    """
    from tfgpu.configure.apply import apply_options
    from tfgpu.configure.options import make_options
    from tfgpu.nvml.client import PynvmlClient
    from tfgpu.system.runner import SubprocessRunner

    options = make_options(
        gpus, memory, precision, xla, tf32, deterministic, log_placement, strategy, split, batchnorm, xla_cache
    )
    result = apply_options(options, nvml=PynvmlClient(), runner=SubprocessRunner())
    if verbose:
        print(result.summary())
    return result


def tune(
    build_model: Any,
    data: Any,
    *,
    budget_seconds: float = 600.0,
    compile_kwargs: dict[str, Any] | None = None,
    batch_size: int = 64,
) -> TuneReport:
    """Find the fastest configuration to train ``build_model()`` on ``data``.

    ``data`` is (x, y) arrays or an unbatched ``tf.data.Dataset`` of (features, label);
    ``compile_kwargs`` must be literals (``optimizer="adam"``). Each trial runs in a fresh TensorFlow process, so ``build_model`` must be importable (defined
    in a module, not in ``__main__`` or a notebook cell). Returns what ``tfgpu tune`` prints: the
    trials, the baseline (``batch_size``, NumPy input, float32) and the winner in ``.result``, the
    ``.code_change`` to make and the ``.notes``; see ``tfgpu tune --help`` for the search.

    Raises:
        DiagnosticError: ``build_model`` cannot be imported by the trial processes, or
            ``compile_kwargs`` holds objects.
    """
    from tfgpu.nvml.client import PynvmlClient
    from tfgpu.tuning.api import tune as run_tune

    return run_tune(
        build_model,
        data,
        budget_seconds=budget_seconds,
        compile_kwargs=compile_kwargs,
        batch_size=batch_size,
        nvml=PynvmlClient(),
    )


__all__ = ["DiagnosticError", "TfgpuError", "__version__", "setup", "tune"]
