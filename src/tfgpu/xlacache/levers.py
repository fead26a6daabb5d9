"""XLA flags that shorten the first compile without costing the steady state, where that was measured.

XLA's cudnn-fused-convolution-rewriter turns conv + bias + activation into one cuDNN call; on a
Hopper GPU cuDNN 9.3 answers such a call with runtime-compiled engines, and XLA's conv autotuner
builds every candidate through NVRTC, one after another on one core. On the H200 (TF 2.21,
cuDNN 9.3.0, 2026-12-03) Keras 3's ResNet-50 (b256, fused batch norm, jit_compile=True) was still
compiling after 1,000 s, 75 of the 77 readable stack samples in libnvrtc under
CudnnSupport::GetFusedConvolveRunners, 44-103 s per fused convolution; with the pass disabled its
first step took 40.8 s and it trained at 3,658 img/s (1,847 without XLA, PyTorch TF32 3,105 in the
same lease; docs/performance.md §8). XLA fuses the bias and activation into its own kernels then.
Set by tfgpu itself on 2026-12-04: the seeds' MNIST CNN's first epoch went from 56 s to 13.2 s (its
Conv2D layers with relu are fused convolutions too), ResNet-50 with Keras's own batch norm compiled
in 41.5-43.2 s and trained at 3,619 img/s. It is set only for the GPUs it was measured on (sm_90
and newer).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

XLA_FLAGS = "XLA_FLAGS"
DISABLED_PASSES_FLAG = "xla_disable_hlo_passes"
FUSED_CONV_REWRITER = "cudnn-fused-convolution-rewriter"
MEASURED_FROM_SM = 90
_SM = re.compile(r"\bsm_(\d+)")


def compile_levers(gpus: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    """The flags to add for the GPUs (each "name sm_XY"), per variable; none where nothing was measured.

    Examples:
        >>> compile_levers(["NVIDIA H200 sm_90"])
        {'XLA_FLAGS': [('xla_disable_hlo_passes', 'cudnn-fused-convolution-rewriter')]}
        >>> compile_levers(["NVIDIA A100-SXM4-80GB sm_80"])
        {}
    """
    if not any(int(m.group(1)) >= MEASURED_FROM_SM for gpu in gpus if (m := _SM.search(gpu))):
        return {}
    return {XLA_FLAGS: [(DISABLED_PASSES_FLAG, FUSED_CONV_REWRITER)]}


LEVER_NOTE = (
    "XLA: cuDNN's fused conv+bias+activation rewrite is off for this GPU (--xla_disable_hlo_passes="
    f"{FUSED_CONV_REWRITER}): on an H200 it made ResNet-50's first XLA step take more than 16 minutes of "
    "NVRTC compilation; without it 38-43 s, and 3,600-3,800 img/s once compiled"
)
