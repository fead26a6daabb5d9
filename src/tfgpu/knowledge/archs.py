"""How a GPU's compute capability meets the CUDA architectures a TensorFlow build ships.

Rules (NVIDIA CUDA compatibility guide; TF pip.md "Hardware requirements"): a cubin for
sm_XY runs on any X.Z with Z >= Y of the same major; PTX for compute_XY is JIT-compiled by the
driver for any newer GPU; TF ignores a GPU below the lowest capability it was built for.
In TF's notation ``sm_XY`` is SASS only and ``compute_XY`` is SASS plus PTX (TF >= 2.3).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

ARCH_SOURCE = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/#binary-compatibility"


class KernelSupport(enum.Enum):
    """What TF can run on the GPU."""

    NATIVE = "native"
    PTX_JIT = "ptx_jit"
    BELOW_MINIMUM = "below_minimum"
    NO_KERNEL = "no_kernel"


@dataclass(frozen=True)
class BuildArchs:
    """The capabilities one TF build carries, split into SASS and PTX."""

    sass: tuple[tuple[int, int], ...]
    ptx: tuple[tuple[int, int], ...]

    @property
    def minimum(self) -> tuple[int, int] | None:
        """The lowest capability in the build: TF ignores GPUs below it."""
        every = self.sass + self.ptx
        return min(every) if every else None


def parse_cc(text: str) -> tuple[int, int]:
    """``"8.6"`` → ``(8, 6)``.

    Raises:
        ValueError: not a compute capability.
    """
    major, _, minor = text.strip().partition(".")
    return int(major), int(minor or 0)


def parse_build_capabilities(entries: tuple[str, ...] | list[str]) -> BuildArchs:
    """Split TF's ``cuda_compute_capabilities`` into SASS and PTX.

    Examples:
        >>> parse_build_capabilities(["sm_60", "sm_89", "compute_90"])
        BuildArchs(sass=((6, 0), (8, 9), (9, 0)), ptx=((9, 0),))
    """
    sass: list[tuple[int, int]] = []
    ptx: list[tuple[int, int]] = []
    for raw in entries:
        entry = raw.strip()
        if entry.startswith("sm_"):
            sass.append(_digits(entry[3:]))
        elif entry.startswith("compute_"):
            cc = _digits(entry[8:])
            sass.append(cc)
            ptx.append(cc)
        elif entry:
            # TF <= 2.2 plain "x.y": the wrapper emits SASS and PTX for each.
            cc = parse_cc(entry)
            sass.append(cc)
            ptx.append(cc)
    return BuildArchs(tuple(sorted(set(sass))), tuple(sorted(set(ptx))))


def _digits(text: str) -> tuple[int, int]:
    digits = "".join(ch for ch in text if ch.isdigit())
    return int(digits[:-1] or 0), int(digits[-1])


MIXED_POLICY_FROM = (((8, 0), "mixed_bfloat16"), ((7, 0), "mixed_float16"))
"""The lowest compute capability of each Keras mixed policy, best first: bfloat16 keeps float32's
range (no loss scaling) and is fast from Ampere (8.0) on; float16 needs the Tensor Cores of 7.x;
below, or without a GPU, float32 is faster. The doctor's probe gets this table (``--mixed-policies``)
and applies it to the GPU TensorFlow calls GPU:0, so both pick as ``setup(precision="auto")`` does."""


def mixed_policy(cc: tuple[int, int] | None) -> str | None:
    """The Keras mixed policy for a GPU, or None when mixed precision would not pay (MIXED_POLICY_FROM).

    Examples:
        >>> mixed_policy((9, 0)), mixed_policy((7, 5)), mixed_policy((6, 1)), mixed_policy(None)
        ('mixed_bfloat16', 'mixed_float16', None, None)
    """
    return next((policy for lowest, policy in MIXED_POLICY_FROM if cc is not None and cc >= lowest), None)


def mixed_policy_table() -> str:
    """MIXED_POLICY_FROM as the probe's ``--mixed-policies`` argument.

    Examples:
        >>> mixed_policy_table()
        '8.0=mixed_bfloat16,7.0=mixed_float16'
    """
    return ",".join(f"{major}.{minor}={policy}" for (major, minor), policy in MIXED_POLICY_FROM)


def mixed_policies(cc: tuple[int, int] | None) -> tuple[str, ...]:
    """The mixed policies worth measuring on a GPU, the default (``mixed_policy``) first.

    Examples:
        >>> mixed_policies((9, 0)), mixed_policies((7, 0)), mixed_policies(None)
        (('mixed_bfloat16', 'mixed_float16'), ('mixed_float16',), ())
    """
    first = mixed_policy(cc)
    if first is None:
        return ()
    return (first, "mixed_float16") if first != "mixed_float16" else (first,)


def classify(cc: tuple[int, int], archs: BuildArchs) -> KernelSupport:
    """How TF runs on a GPU of capability ``cc``.

    Examples:
        >>> archs = parse_build_capabilities(["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"])
        >>> [classify(c, archs).value for c in [(5, 2), (8, 6), (9, 0), (12, 0)]]
        ['below_minimum', 'native', 'native', 'ptx_jit']
    """
    minimum = archs.minimum
    if minimum is not None and cc < minimum:
        return KernelSupport.BELOW_MINIMUM
    if any(s[0] == cc[0] and s[1] <= cc[1] for s in archs.sass):
        return KernelSupport.NATIVE
    if any(p <= cc for p in archs.ptx):
        return KernelSupport.PTX_JIT
    return KernelSupport.NO_KERNEL
