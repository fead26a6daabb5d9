"""The comparisons of the versions a log states, which decide signatures' version conditions.

The CUDA a soname names, the CUDA and cuDNN a TF release was built with (TensorFlow's tested build
configurations), the CUDA and cuDNN installed, and the first CUDA that targets the log's GPU; the
fields a version condition prints are filled here too.
"""

from __future__ import annotations

import re

from tfgpu.knowledge.archs import KernelSupport, classify
from tfgpu.knowledge.compat import (
    TfRelease,
    cuda_majors_for_cudnn,
    first_cuda_targeting,
    library_sonames,
    release_archs,
    tf_release,
)
from tfgpu.knowledge.log_facts import cuda_version_of
from tfgpu.knowledge.signatures import Hit, ScanContext, Signature, version_tuple

_LIBRARY_STEM = re.compile(r"\b(?:lib)?([a-z]+)(?:\.so|64_)")
"""The library in the name TF asks for (libcusolver.so.11, cufft64_10.dll: cusolver, cufft), as cuda_sonames.csv names it."""


def other_cuda(want: str, installed: tuple[str, ...] | None, library: str = "") -> bool:
    """True when the versions installed are known and none provides ``want`` (of ``library``, as TF names it).

    A library of cuda_sonames.csv has its soname looked up in what each CUDA release ships (``library_sonames``: CUDA 10.2
    ships libcublas.so.10, 11.1 libcusolver.so.11 and libcufft.so.10). Otherwise, from CUDA 11 a soname
    carries CUDA's major only (libcudart.so.11.0 serves every 11.x); before, its minor too (libcudart.so.10.1).

    Examples:
        >>> other_cuda("11", ("11.0",), "libcusolver.so.11"), other_cuda("10", ("11.2",), "libcufft.so.10")
        (True, False)
        >>> other_cuda("10.1", ("10.2",), "libcudart.so.10.1"), other_cuda("11.0", ("11.4",), "libcudart.so.11.0")
        (True, False)
    """
    if not want or not installed:
        return False
    wanted = cuda_version_of(want)
    name = _LIBRARY_STEM.search(library)

    def provides(version: str) -> bool:
        sonames = library_sonames(name.group(1), version) if name else None  # None: not in the table (libcudart)
        if sonames is not None:
            return wanted in sonames
        have = version.split(".")
        major, *minor = wanted.split(".")
        if major != have[0]:
            return False
        return int(major) >= 11 or not minor or len(have) < 2 or minor[0] == have[1]

    return not any(provides(v) for v in installed)


def told_fields(signature: Signature) -> frozenset[str]:
    """The fields of a signature's texts that the machine's known versions fill, not its own match."""
    told: frozenset[str] = frozenset()
    if signature.when_tf_cuda_differs:
        told |= {"tf", "built", "installed"}
    if signature.when_want_not_tf_cuda or signature.when_want_not_tf_cudnn:
        told |= {"tf", "built"}
    if signature.when_other_cuda or signature.when_other_cudnn or signature.when_cudnn_not_for_cuda:
        told |= {"installed"}
    if signature.when_kernels:
        told |= {"tf", "cc"}
    if signature.when_built_cuda_below:
        told |= {"tf", "built"}
    if signature.when_cuda_predates_gpu:
        told |= {"cuda", "cc", "first"}
    if signature.when_build_predates_gpu:
        told |= {"tf", "built", "cc", "first"}
    if signature.when_cudnn_below_build:
        told |= {"tf", "built", "installed"}
    return told


def tell_versions(hit: Hit, ctx: ScanContext) -> None:
    """Fill a version comparison's fields (``told_fields``) from what is known of the machine.

    The log's own lines name only what TF asked for; the TF release, the CUDA it was built for and
    the CUDA or cuDNN installed come from the facts or the rest of the log.
    """
    signature = hit.signature
    if signature.when_tf_cuda_differs and ctx.tf_version and ctx.cuda_installed:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("built", built_cuda(ctx) or "?")
        hit.groups.setdefault("installed", ", ".join(ctx.cuda_installed))
    if signature.when_want_not_tf_cuda and ctx.tf_version:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("built", built_cuda(ctx) or "?")
    if signature.when_want_not_tf_cudnn and ctx.tf_version:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("built", built_cudnn(ctx) or "?")
    if (signature.when_other_cuda or signature.when_cudnn_not_for_cuda) and ctx.cuda_installed:
        hit.groups.setdefault("installed", ", ".join(ctx.cuda_installed))
    if signature.when_other_cudnn and ctx.cudnn_installed:
        hit.groups.setdefault("installed", ", ".join(ctx.cudnn_installed))
    if signature.when_kernels and ctx.gpu_cc and ctx.tf_version:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("cc", "{}.{}".format(*ctx.gpu_cc))
    if signature.when_built_cuda_below and ctx.tf_version:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("built", built_cuda(ctx) or "?")
    if signature.when_cuda_predates_gpu and ctx.gpu_cc:
        cuda = _ptxas_cuda(ctx)
        hit.groups.setdefault("cuda", ".".join(map(str, cuda)) if cuda else "?")
        _tell_gpu(hit, ctx.gpu_cc)
    if signature.when_build_predates_gpu and ctx.gpu_cc and ctx.tf_version:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("built", built_cuda(ctx) or "?")
        _tell_gpu(hit, ctx.gpu_cc)
    if signature.when_cudnn_below_build and ctx.tf_version and ctx.cudnn_installed:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("built", built_cudnn(ctx) or "?")
        hit.groups.setdefault("installed", ", ".join(ctx.cudnn_installed))


def _tell_gpu(hit: Hit, cc: tuple[int, int]) -> None:
    """The GPU's compute capability and the first CUDA that targets it, for a comparison of a CUDA with the GPU."""
    first = first_cuda_targeting(cc)
    hit.groups.setdefault("cc", "{}.{}".format(*cc))
    hit.groups.setdefault("first", "{}.{}".format(*first) if first else "?")


def other_major(want: str, installed: tuple[str, ...] | None) -> bool:
    """True when the versions installed are known and none has the major ``want`` names (cuDNN's sonames carry it alone)."""
    if not want or not installed:
        return False
    return not any(version.split(".")[0] == want for version in installed)


def cudnn_not_for_cuda(want: str, installed: tuple[str, ...] | None) -> bool:
    """True when the CUDA versions installed are known and NVIDIA built cuDNN ``want`` (a major) for none of their majors."""
    if not want.isdigit() or not installed:
        return False
    built_for = cuda_majors_for_cudnn(int(want))
    majors = {version.split(".")[0] for version in installed}
    return bool(built_for) and not any(major.isdigit() and int(major) in built_for for major in majors)


def _ptxas_cuda(ctx: ScanContext) -> tuple[int, ...] | None:
    """The CUDA whose ptxas XLA runs: the newest the log shows installed, else the one TF was built for (its wheels' own)."""
    installed = [v for v in (version_tuple(c) for c in ctx.cuda_installed or ()) if v]
    return max(installed) if installed else version_tuple(built_cuda(ctx))


def cuda_predates_gpu(ctx: ScanContext) -> bool:
    """Whether the log's GPU is newer than every architecture the ptxas in use can target (``first_cuda_targeting``)."""
    first = first_cuda_targeting(ctx.gpu_cc) if ctx.gpu_cc else None
    cuda = _ptxas_cuda(ctx)
    if first is None or cuda is None or (len(cuda) < 2 and cuda[0] == first[0]):
        return False  # a bare major ("CUDA 12") may be 12.0 or 12.9: no claim
    return cuda < first


_SHARED_MEMORY_SHORT_OF_FAMILY = frozenset({(7, 5)})
"""GPUs that cannot launch every kernel built for the first GPU of their major: Turing's 64 KB of shared memory is
less than Volta's kernels may ask for (NVIDIA's Turing compatibility guide, "Compatibility between Volta and Turing")."""


def build_predates_gpu(ctx: ScanContext) -> bool:
    """Whether the cuBLAS and cuDNN of the CUDA the log's TF release was built for hold no kernels this GPU runs.

    A TF build loads the libraries of its own CUDA. Machine code for one compute capability runs on
    the later minors of its major, so a library of a CUDA older than the GPU (CUDA 11.0 before
    compute capability 8.6) still serves it through its kernels for the first GPU of that major; a
    CUDA older than that whole major (CUDA 10.x before Ampere) does not, nor does CUDA 9's for Turing,
    whose shared memory is short of what Volta's kernels ask.

    Examples:
        >>> [build_predates_gpu(ScanContext(tf_version=v, gpu_cc=cc)) for v, cc in
        ...  (("1.10", (7, 5)), ("1.13", (7, 5)), ("2.3", (8, 6)), ("2.4", (8, 6)), ("1.15", (7, 0)))]
        [True, False, True, False, False]
    """
    if not ctx.gpu_cc:
        return False
    first, built = first_cuda_targeting(ctx.gpu_cc), version_tuple(built_cuda(ctx))
    if first is None or built is None or built >= first:
        return False
    family = first_cuda_targeting((ctx.gpu_cc[0], 0))
    return family is None or built < family or ctx.gpu_cc in _SHARED_MEMORY_SHORT_OF_FAMILY


def release_kernels(ctx: ScanContext) -> KernelSupport | None:
    """How the log's TF release runs on the log's GPU (tf_archs.csv, else the CUDA it was built with).

    For a release the architecture table predates, the CUDA it was built with decides: a build
    cannot carry SASS for an architecture newer than its CUDA (ptxas_targets.csv), so TF's builds
    of that time (SASS and PTX for each capability) leave such a GPU the driver's JIT of the
    newest PTX at best, and the CUDA libraries of that CUDA no kernels for it.
    """
    if not (ctx.gpu_cc and ctx.tf_version):
        return None
    archs = release_archs(ctx.tf_version)
    if archs:
        return classify(ctx.gpu_cc, archs)
    first, built = first_cuda_targeting(ctx.gpu_cc), version_tuple(built_cuda(ctx))
    return KernelSupport.PTX_JIT if first and built and built < first else None


def _tested_release(ctx: ScanContext) -> TfRelease | None:
    """The tested build configuration of the log's TF release, on the platform it runs on (Windows' own table before TF 2.11)."""
    if not ctx.tf_version:
        return None
    return tf_release(ctx.tf_version, "windows-gpu" if ctx.os == "windows" else "linux-gpu")


def built_cuda(ctx: ScanContext) -> str | None:
    """The CUDA the log's TF release was built for (tested build configurations, Windows' own before TF 2.11).

    Before CUDA 11 a soname carries major.minor, so the table's bare major ("9" for TF 1.5-1.12,
    "8" for 1.0-1.4) is read as the X.0 release those wheels were built against.
    """
    release = _tested_release(ctx)
    version = re.match(r"\d+(?:\.\d+)?", release.cuda) if release else None  # "10.1 (cudart64_101.dll)"
    if version and "." not in version.group() and int(version.group()) < 11:
        return version.group() + ".0"  # the table's "9" (TF 1.5-1.12) is the CUDA 9.0 the wheels link: libcudart.so.9.0
    return version.group() if version else None


def want_not_built(want: str, ctx: ScanContext, library: str = "") -> bool:
    """True when the log's TF release is known and the CUDA it was built for does not provide ``want`` of ``library``."""
    built = built_cuda(ctx)
    return built is not None and other_cuda(want, (built,), library)


def built_cudnn(ctx: ScanContext) -> str | None:
    """The cuDNN (major.minor) the log's TF release was built with (tested build configurations)."""
    release = _tested_release(ctx)
    version = re.match(r"\d+\.\d+", release.cudnn) if release else None
    return version.group() if version else None


def cudnn_want_not_built(want: str, ctx: ScanContext) -> bool:
    """True when the log's TF release is known and ``want`` is another minor of its pip build's cuDNN major.

    Another major (8.6 against a 9.3 build) is more likely a log of another TF release read beside this
    machine's facts than another library in the same process, so it keeps TF's own reading.

    Examples:
        >>> cudnn_want_not_built("9.12.0", ScanContext(tf_version="2.21"))
        True
        >>> cudnn_want_not_built("9.3.0", ScanContext(tf_version="2.21"))
        False
        >>> cudnn_want_not_built("8.6.0", ScanContext(tf_version="2.21"))
        False
        >>> cudnn_want_not_built("9.12.0", ScanContext())
        False
    """
    built, wanted = version_tuple(built_cudnn(ctx)), version_tuple(want)
    return built is not None and wanted is not None and wanted[0] == built[0] and wanted[:2] != built[:2]


def cudnn_below_build(ctx: ScanContext) -> bool:
    """Whether every cuDNN the log shows installed is older than the one its TF release was built with.

    cuDNN loads only at the major it was built with and the same or a later minor (TF's own check in
    cuda_dnn.cc), so 9.0 under a 9.3 build fails where 9.5 runs. A bare major ("cuDNN 9") says no minor: no claim.

    Examples:
        >>> cudnn_below_build(ScanContext(tf_version="2.18", cudnn_installed=("9.0",)))
        True
        >>> cudnn_below_build(ScanContext(tf_version="2.18", cudnn_installed=("9.5",)))
        False
        >>> cudnn_below_build(ScanContext(tf_version="2.18", cudnn_installed=("9",)))
        False
    """
    built = version_tuple(built_cudnn(ctx))
    installed = [v for v in (version_tuple(c) for c in ctx.cudnn_installed or ()) if v]
    if built is None or not installed:
        return False

    def older(version: tuple[int, ...]) -> bool:
        if version[0] != built[0]:
            return version[0] < built[0]
        return len(version) > 1 and version[:2] < built[:2]

    return all(older(v) for v in installed)
