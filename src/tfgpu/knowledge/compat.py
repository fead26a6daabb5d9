"""Queries over the packaged compatibility tables (copies of shared/data/compat, ptxas_targets.csv and cuda_sonames.csv).

Sources, per row in the CSVs: TensorFlow's "Tested build configurations" (tensorflow/docs
site/en/install/source.md), ``setup.py`` of each release for the ``and-cuda`` pins, the CUDA
Toolkit release notes (Tables 2 and 3) for drivers, NVIDIA's CUDA GPUs page, LLVM's record of the CUDA release
that first targets each architecture (clang/lib/Basic/Cuda.cpp) for ptxas, cuDNN's support matrices for the
CUDA each cuDNN was built for, and for the math libraries' sonames TF's cuda_configure.bzl (CUDA 10), the CUDA
release notes' component versions (CUDA 11) and the ranges of TF's CUDA 12 wheels.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tfgpu.knowledge.archs import BuildArchs, parse_build_capabilities, parse_cc
from tfgpu.knowledge.tables import csv_rows

if TYPE_CHECKING:
    from packaging.requirements import Requirement

_DRIVER = re.compile(r"(\d+(?:\.\d+){0,2})")


def version_key(text: str) -> tuple[int, ...]:
    """Numeric sort key of a dotted version; non-digits end it.

    Examples:
        >>> version_key("580.159.04") > version_key("555.42.06")
        True
    """
    parts = []
    for piece in text.split("."):
        digits = re.match(r"\d+", piece)
        if not digits:
            break
        parts.append(int(digits.group()))
    return tuple(parts)


def major_minor(text: str) -> str:
    """``"2.21.0rc1"`` → ``"2.21"``."""
    key = version_key(text)
    return ".".join(str(p) for p in key[:2])


@dataclass(frozen=True)
class TfRelease:
    """One TensorFlow release on one platform (a tf_builds.csv row)."""

    version: str
    platform: str
    gpu_supported: bool
    python_min: str
    python_max: str
    cuda: str
    cudnn: str
    cuda_pip_extra: str
    nvidia_pins_text: str
    source_url: str

    @property
    def nvidia_pins(self) -> tuple[Requirement, ...]:
        """The ``Requires-Dist`` entries behind the and-cuda extra, parsed on demand."""
        return _pins(self.nvidia_pins_text)

    def supports_python(self, python_version: str) -> bool:
        """Whether the release's tested range includes this Python major.minor."""
        py = version_key(python_version)[:2]
        return version_key(self.python_min)[:2] <= py <= version_key(self.python_max)[:2]


def _python_range(text: str) -> tuple[str, str]:
    """The 3.x range of a "python_versions" cell such as ``2.7, 3.3-3.6`` or ``3.10-3.13``."""
    py3 = [p.strip() for p in text.split(",") if p.strip().startswith("3")]
    if not py3:
        return "0", "0"
    low, _, high = py3[-1].partition("-")
    return low, high or low


@functools.cache
def _pins(text: str) -> tuple[Requirement, ...]:
    from packaging.requirements import InvalidRequirement, Requirement  # 15 ms: only when pins are asked for

    out = []
    for raw in text.split(";"):
        try:
            out.append(Requirement(raw.strip()))
        except InvalidRequirement:
            continue
    return tuple(out)


@functools.cache
def tf_releases(platform: str = "linux-gpu") -> tuple[TfRelease, ...]:
    """Every release of one platform, newest first."""
    out = []
    for row in csv_rows("tf_builds.csv"):
        if row["platform"] != platform:
            continue
        low, high = _python_range(row["python_versions"])
        out.append(
            TfRelease(
                version=row["tf_version"],
                platform=platform,
                gpu_supported=row["gpu_supported"] == "yes",
                python_min=low,
                python_max=high,
                cuda=row["wheel_build_cuda"] or row["cuda"],
                cudnn=row["cudnn"],
                cuda_pip_extra=row["cuda_pip_extra"],
                nvidia_pins_text=row["nvidia_wheel_pins"],
                source_url=row["source_url"],
            )
        )
    return tuple(sorted(out, key=lambda r: version_key(r.version), reverse=True))


def tf_release(tf_version: str, platform: str = "linux-gpu") -> TfRelease | None:
    """The row of this release's major.minor, or None when the table does not know it."""
    wanted = major_minor(tf_version)
    return next((r for r in tf_releases(platform) if major_minor(r.version) == wanted), None)


def releases_built_for_cuda(cuda_major: int, platform: str = "linux-gpu") -> tuple[TfRelease, ...]:
    """The GPU releases built for one CUDA major: what a log tells of its TF when it names only the CUDA runtime it loads.

    Examples:
        >>> sorted({r.cudnn.split(".")[0] for r in releases_built_for_cuda(11)})  # TF 2.4 to 2.14
        ['8']
    """
    return tuple(r for r in tf_releases(platform) if r.gpu_supported and version_key(r.cuda)[:1] == (cuda_major,))


def libtensorflow_of_tfjs(tfjs_node_version: str) -> str | None:
    """The TensorFlow C library a tfjs-node(-gpu) release downloads (tfjs_node.csv), or None before the table.

    tfjs-node-gpu runs TensorFlow's own C library, so it needs the CUDA that release of TF was built
    for; the table follows each release's install script.

    Examples:
        >>> [libtensorflow_of_tfjs(v) for v in ("2.0.1", "4.22.0", "1.2.1", "0.1.2")]
        ['1.15.0', '2.9.1', '1.13.1', None]
    """
    key = version_key(tfjs_node_version)
    rows = [r for r in csv_rows("tfjs_node.csv") if version_key(r["tfjs_node_from"]) <= key]
    return max(rows, key=lambda r: version_key(r["tfjs_node_from"]))["libtensorflow"] if rows else None


def newest_release_for_python(python_version: str, platform: str = "linux-gpu") -> TfRelease | None:
    """The newest GPU-capable release whose tested Python range includes this one."""
    return next((r for r in tf_releases(platform) if r.gpu_supported and r.supports_python(python_version)), None)


def newest_release(platform: str = "linux-gpu") -> TfRelease:
    """The newest release the table knows."""
    return tf_releases(platform)[0]


@dataclass(frozen=True)
class DriverRequirement:
    """The drivers a CUDA runtime needs (cuda_driver.csv)."""

    cuda_version: str
    linux_min_driver: str | None
    windows_min_driver: str | None
    minor_compat_min_driver: str | None
    minor_compat_max_driver: str | None
    source_url: str


def _driver_number(text: str) -> str | None:
    match = _DRIVER.search(text or "")
    return match.group(1) if match and "N/A" not in text else None


def driver_requirement(cuda_version: str) -> DriverRequirement | None:
    """The row for this CUDA version: an exact match, else the newest of that major.minor."""
    rows = csv_rows("cuda_driver.csv")
    exact = [r for r in rows if r["cuda_version"] == cuda_version]
    same_minor = [r for r in rows if major_minor(r["cuda_version"]) == major_minor(cuda_version)]
    # With only major.minor known, the x.y.0 release is the lenient, correct minimum.
    candidates = exact or sorted(same_minor, key=lambda r: version_key(r["cuda_version"]))
    if not candidates:
        return None
    row = candidates[0]
    upper = row["minor_compat_max_driver"]
    return DriverRequirement(
        cuda_version=row["cuda_version"],
        linux_min_driver=_driver_number(row["linux_x86_64_min_driver"]),
        windows_min_driver=_driver_number(row["windows_x86_64_min_driver"]),
        minor_compat_min_driver=_driver_number(row["minor_compat_min_driver"].split("(")[0]),
        minor_compat_max_driver=_driver_number(upper) if upper.startswith("<") else None,
        source_url=row["source_url"],
    )


@dataclass(frozen=True)
class GpuModel:
    """A GPU model's compute capability (gpu_cc.csv)."""

    name: str
    compute_capability: str
    architecture: str
    source_url: str


_RUN_TOGETHER = re.compile(r"\b(rtx|gtx|mx)(?=\d)|(?<=\d)(ti|super)\b")
"""Where people run a series and its number, or a number and its suffix, together: "RTX2080ti" is "RTX 2080 Ti"."""


def _normalise_gpu(name: str) -> str:
    """A GPU name without case, punctuation or the maker's and GeForce's brand words: "RTX 3080 Ti" as people write it.

    Examples:
        >>> _normalise_gpu("NVIDIA GeForce RTX 2080 Ti"), _normalise_gpu("RTX2080ti 11G"), _normalise_gpu("GTX1660SUPER")
        ('rtx 2080 ti', 'rtx 2080 ti 11g', 'gtx 1660 super')
    """
    spaced = _RUN_TOGETHER.sub(r" \1\2 ", name.lower().replace("nvidia", "").replace("geforce", ""))
    return re.sub(r"[^a-z0-9]+", " ", spaced).strip()


def gpu_model(name: str) -> GpuModel | None:
    """The table row whose model name best matches an NVML/nvidia-smi product name."""
    wanted = _normalise_gpu(name)
    best: tuple[int, GpuModel] | None = None
    for row in csv_rows("gpu_cc.csv"):
        model = _normalise_gpu(row["gpu_model"])
        if model == wanted or (model and f" {model} " in f" {wanted} "):
            score = len(model)
            if best is None or score > best[0]:
                best = (
                    score,
                    GpuModel(row["gpu_model"], row["compute_capability"], row["architecture"], row["source_url"]),
                )
    return best[1] if best else None


def pinned_version_ok(pin: Requirement, installed: str) -> bool:
    """Whether an installed version satisfies a pin of TF's ``and-cuda`` extra."""
    from packaging.version import InvalidVersion, Version

    try:
        return Version(installed) in pin.specifier
    except InvalidVersion:
        return True


def arch_row(tf_version: str) -> dict[str, str] | None:
    """The tf_archs.csv row for this release, or the newest older Linux row."""
    rows = [r for r in csv_rows("tf_archs.csv") if r["platform"] == "linux-x86_64"]
    key = version_key(major_minor(tf_version))
    older = [r for r in rows if version_key(major_minor(r["tf_version"])) <= key]
    return max(older, key=lambda r: version_key(r["tf_version"])) if older else None


def release_archs(tf_version: str) -> BuildArchs | None:
    """The architectures a TF release's published GPU build carries (tf_archs.csv), or None when unknown."""
    row = arch_row(tf_version)
    return parse_build_capabilities(row["cuda_compute_capabilities"].split(",")) if row else None


def first_cuda_targeting(cc: tuple[int, int]) -> tuple[int, int] | None:
    """The first CUDA release whose ptxas compiles for compute capability ``cc`` (ptxas_targets.csv), or None.

    A ptxas of an older CUDA rejects the GPU's sm_XY, so XLA's kernels for it fail to assemble;
    the table is LLVM's record of when each architecture entered the CUDA toolkit.

    Examples:
        >>> first_cuda_targeting((8, 6)), first_cuda_targeting((12, 0)), first_cuda_targeting((4, 0))
        ((11, 1), (12, 8), None)
    """
    for row in csv_rows("ptxas_targets.csv"):
        if parse_cc(row["compute_capability"]) == cc:
            return parse_cc(row["first_cuda"])
    return None


_CUDA_MAJOR = re.compile(r"(?<![\w.])(\d{1,2})\.\d")


@functools.cache
def cuda_majors_for_cudnn(major: int) -> frozenset[int]:
    """The CUDA majors NVIDIA built some cuDNN ``major`` release for (cuDNN's support matrices, cudnn_cuda.csv).

    cuDNN's soname carries its major (libcudnn.so.7), and each cuDNN major exists for a few CUDA majors only:
    no cuDNN 7 was built for CUDA 11, so a TF asking for libcudnn.so.7 on a CUDA 11 machine wants another CUDA.

    Examples:
        >>> sorted(cuda_majors_for_cudnn(7)), sorted(cuda_majors_for_cudnn(9)), cuda_majors_for_cudnn(3)
        ([8, 9, 10], [11, 12, 13], frozenset())
    """
    majors: set[int] = set()
    for row in csv_rows("cudnn_cuda.csv"):
        if row["cudnn_version"].split(".")[0] == str(major):
            majors.update(int(found) for found in _CUDA_MAJOR.findall(row["cuda_versions"]))
    return frozenset(majors)


@functools.cache
def library_sonames(library: str, cuda: str) -> frozenset[str] | None:
    """The soname numbers a CUDA math library has in the releases ``cuda`` may name (cuda_sonames.csv), or None.

    Up to CUDA 10.0 the soname is CUDA's major.minor (libcublas.so.10.0); CUDA 10.1 and 10.2 drop the minor
    (libcublas.so.10), and from CUDA 11 a math library's soname carries its own major, not CUDA's (TF's
    cuda_configure.bzl reads each from its header): CUDA 11.0 ships libcusolver.so.10 and 11.1 to 11.8
    libcusolver.so.11, so a TF 2.5 asking for libcusolver.so.11 wants a CUDA newer than 11.0, while a libcufft.so.10
    is CUDA 11's own. A bare major ("11") names every minor of it. None where the table has no row (CUDA 9 and
    older, whose sonames are CUDA's own version; the runtime, libcudart, whose soname is CUDA's).

    Examples:
        >>> sorted(library_sonames("cusolver", "11.0")), sorted(library_sonames("cusolver", "11"))
        (['10'], ['10', '11'])
        >>> sorted(library_sonames("cusolver", "11.8.89")), sorted(library_sonames("cublas", "10")), library_sonames("cufft", "9.0")
        (['11'], ['10', '10.0'], None)
    """
    key = version_key(cuda)[:2]  # a patch release ships its minor's libraries: 11.8.89 is 11.8
    if not key:
        return None
    found = {
        row["soname"]
        for row in csv_rows("cuda_sonames.csv")
        if row["library"] == library
        and version_key(row["cuda_from"])[: len(key)] <= key <= version_key(row["cuda_to"])[: len(key)]
    }
    return frozenset(found) or None
