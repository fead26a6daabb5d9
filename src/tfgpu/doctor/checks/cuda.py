"""The CUDA libraries: can TF's loader find each one, and is it the version TF was built for.

Rules: glibc dlopen search order (ld.so(8)); TF requires the cuDNN major it was built for and
an equal or newer minor ("Loaded runtime CuDNN library: X but source was compiled with: Y",
tensorflow/tensorflow#61474 class); the ``and-cuda`` pins of each release
(knowledge/data/tf_builds.csv, setup.py at the release tag).
"""

from __future__ import annotations

import os
import shlex

from tfgpu.doctor.checks.driver import no_nvidia_gpu
from tfgpu.knowledge.compat import driver_requirement, major_minor, pinned_version_ok, tf_release, version_key
from tfgpu.knowledge.fixes import (
    export_line,
    install_dependencies,
    install_tf_with_cuda,
    loader_name,
    pip,
    unreachable_dirs,
    upgrade_dependency,
)
from tfgpu.knowledge.libraries import CUDNN_RUNTIME_DEPENDENCIES, DSO_LOADER_SOURCE
from tfgpu.model.facts import (
    ContainerImage,
    CudaLibrary,
    DriverFacts,
    Facts,
    HostFacts,
    LibraryCopy,
    LibraryFacts,
    PackageManager,
    TensorFlowFacts,
)
from tfgpu.model.findings import Finding, Section, Severity
from tfgpu.model.unavailable import Unavailable

C = Section.CUDA
XLA_GPU_DOCS = "https://openxla.org/xla/flags_guidance"


def check_cuda_libraries(facts: Facts) -> list[Finding]:
    """Every library a CUDA build of TF dlopens must be on its search path.

    Finding ids: ``cuda-libraries`` (ok), ``cuda-library-not-on-search-path``,
    ``cuda-library-missing``, ``cudnn-older-than-build``, ``cuda-library-version-mismatch``,
    ``ld-library-path-shadows-wheel``, ``ld-library-path-other-cuda``, ``nccl-missing``,
    ``xla-ptxas-missing``, ``xla-libdevice-missing``, ``cuda-dependency-not-on-search-path``,
    ``cuda-dependency-missing`` (a library TF's libraries load in turn: cuDNN's libnvrtc),
    ``xla-ptxas-older-than-build``, ``xla-ptxas-newer-than-driver``, ``container-official-image-cudnn8``.
    """
    libs, tf = facts.libraries, facts.tensorflow
    if not isinstance(libs, LibraryFacts) or not isinstance(tf, TensorFlowFacts) or no_nvidia_gpu(facts):
        return []  # without an NVIDIA GPU no CUDA library is ever loaded: nothing to fix here
    out: list[Finding] = []
    required = [lib for lib in libs.libraries if lib.required and lib.loaded_by is None]
    unreachable = [lib for lib in required if lib.loaded is None and lib.elsewhere]
    missing = [lib for lib in required if not lib.copies]
    if unreachable:
        names = ", ".join(lib.soname for lib in unreachable)
        where = "; ".join(f"{lib.soname} in {os.path.dirname(lib.elsewhere[0].path)}" for lib in unreachable)
        out.append(
            Finding(
                "cuda-library-not-on-search-path",
                Severity.ERROR,
                C,
                f"Installed but invisible to TensorFlow: {names}",
                detail=(
                    f"TF's loader searches LD_LIBRARY_PATH, libtensorflow_framework's RUNPATH and the ld.so cache; "
                    f"these copies are outside all of them ({where}). TF logs 'Cannot dlopen some GPU libraries' "
                    "and registers no GPU."
                ),
                hint=export_line(unreachable_dirs(libs)) + '   (or `eval "$(tfgpu env)"`)',
                link=DSO_LOADER_SOURCE,
            )
        )
    if missing:
        out.append(
            Finding(
                "cuda-library-missing",
                Severity.ERROR,
                C,
                f"Not installed: {', '.join(lib.soname for lib in missing)}",
                detail=f"TF {tf.version} was built for CUDA {libs.cuda_major}.x and needs these libraries to use a GPU.",
                hint=install_tf_with_cuda(facts),
                link="https://www.tensorflow.org/install/pip",
            )
        )
    out.extend(_dependencies(facts, libs))
    out.extend(_versions(facts, tf, libs))
    out.extend(_official_image_cudnn(facts, tf, libs))
    out.extend(_shadowing(libs))
    out.extend(_optional(facts, libs))
    out.extend(_old_ptxas(facts, tf, libs))
    out.extend(_ptxas_newer_than_driver(facts, libs))
    if not unreachable and not missing and all(lib.unbindable is None for lib in libs.libraries):
        versions = ", ".join(
            f"{lib.name} {lib.loaded.version}" for lib in required if lib.loaded and isinstance(lib.loaded.version, str)
        )
        out.append(
            Finding(
                "cuda-libraries",
                Severity.OK,
                C,
                f"All {len(required)} CUDA libraries TF needs are reachable",
                detail=versions,
            )
        )
    return out


def _dependencies(facts: Facts, libs: LibraryFacts) -> list[Finding]:
    """Libraries TF's libraries load in turn, each searched from its loader's RUNPATH."""
    out = []
    for lib in libs.libraries:
        if lib.loaded_by is not None and (copy := lib.unbindable) is not None:
            if copy.origin != "ld_library_path":  # there the shadowing finding says it, with its own fix
                out.append(_unusable_dependency(facts, lib, copy, libs.cuda_major))
            continue
        if lib.loaded_by is None or lib.loaded is not None:
            continue
        loader = os.path.basename(lib.loaded_by)
        if lib.elsewhere:
            where = os.path.dirname(lib.elsewhere[0].path)
            out.append(
                Finding(
                    "cuda-dependency-not-on-search-path",
                    Severity.ERROR,
                    C,
                    f"Installed but invisible to {loader}: {lib.soname}",
                    detail=(
                        f"{loader} loads {lib.soname} itself, searching LD_LIBRARY_PATH, its own RUNPATH "
                        f"({', '.join(lib.loader_runpath) or 'none'}) and the ld.so cache; the copy in {where} "
                        f"is outside all of them. Without it: {lib.needed_for}."
                    ),
                    hint=export_line(unreachable_dirs(libs)) + '   (or `eval "$(tfgpu env)"`)',
                    link=CUDNN_RUNTIME_DEPENDENCIES if lib.name == "nvrtc" else DSO_LOADER_SOURCE,
                )
            )
        else:
            out.append(
                Finding(
                    "cuda-dependency-missing",
                    Severity.ERROR,
                    C,
                    f"Not installed: {lib.soname}, which {loader} loads",
                    detail=f"Without it: {lib.needed_for}.",
                    hint=install_dependencies(facts, [lib.soname], libs.cuda_major),
                    link=CUDNN_RUNTIME_DEPENDENCIES if lib.name == "nvrtc" else DSO_LOADER_SOURCE,
                )
            )
    return out


def _lacks_detail(lib: CudaLibrary, copy: LibraryCopy) -> str:
    """Which symbols the loader binds that ``copy`` lacks, and what fails: said alike wherever the copy was found."""
    more = f" and {len(copy.lacks) - 2} more" if len(copy.lacks) > 2 else ""
    return (
        f"{loader_name(lib)} binds {', '.join(copy.lacks[:2])}{more} from {lib.soname}; {copy.path} does not define "
        f"them, so the loader fails ('undefined symbol'): {lib.needed_for}."
    )


UNUSABLE_DEPENDENCY_SOURCE = "https://github.com/NVIDIA/cuvs/pull/1794"


def _unusable_dependency(facts: Facts, lib: CudaLibrary, copy: LibraryCopy, cuda_major: str) -> Finding:
    """A dependency found where its loader looks that lacks symbols the loader binds: the loader cannot load.

    pip can resolve an older nvidia-nvjitlink-cu12 than nvidia-cusparse-cu12 needs ("undefined symbol:
    __nvJitLinkGetErrorLogSize_12_9", NVIDIA/cuvs#1794); upgrading the dependency's wheel restores the pair.
    """
    return Finding(
        "cuda-dependency-lacks-symbols",
        Severity.ERROR,
        C,
        f"{loader_name(lib)} cannot load: its {lib.soname} lacks symbols it binds",
        detail=_lacks_detail(lib, copy),
        hint=upgrade_dependency(facts, lib.soname, cuda_major),
        link=UNUSABLE_DEPENDENCY_SOURCE,
    )


OFFICIAL_IMAGE_CUDNN = "https://github.com/tensorflow/build/issues/221"


def _official_image_cudnn(facts: Facts, tf: TensorFlowFacts, libs: LibraryFacts) -> list[Finding]:
    """TensorFlow's own GPU images carry cuDNN 8 (libcudnn8 8.9) while TF 2.18 and later load cuDNN 9.

    Reported in tensorflow/build#221 and tensorflow/tensorflow#62412 for 2.18, 2.19 and latest-gpu:
    "Cannot dlopen some GPU libraries" inside the image TensorFlow publishes for GPUs. Installing
    the release's ``and-cuda`` extra inside the container puts cuDNN 9 beside TF (found through its
    RUNPATH), as the threads report working.
    """
    release = tf_release(tf.version)
    cudnn = libs.get("cudnn")
    image = facts.host.image if isinstance(facts.host, HostFacts) else None
    if image is not ContainerImage.OFFICIAL_TENSORFLOW or release is None or cudnn is None:
        return []
    built = version_key(release.cudnn)[0]
    loaded = cudnn.loaded
    if built < 9 or (loaded is not None and isinstance(loaded.version, str) and version_key(loaded.version)[0] >= 9):
        return []
    have = ", ".join(sorted({str(c.version) for c in cudnn.copies if isinstance(c.version, str)})) or "none"
    return [
        Finding(
            "container-official-image-cudnn8",
            Severity.ERROR,
            C,
            f"This is TensorFlow's official GPU image, which carries cuDNN 8; TF {tf.version} needs cuDNN {release.cudnn}",
            detail=f"cuDNN found here: {have}. The tensorflow/tensorflow GPU images from 2.18 on install the libcudnn8 "
            "package while TF loads libcudnn.so.9, so TF logs 'Cannot dlopen some GPU libraries' and registers no "
            "GPU (tensorflow/build#221, tensorflow/tensorflow#62412). Inside the container, the release's and-cuda "
            "extra adds cuDNN 9 beside TF; or use NVIDIA's NGC TensorFlow image (nvcr.io/nvidia/tensorflow).",
            hint=pip(facts, "install", f"tensorflow[and-cuda]=={tf.version}"),
            link=OFFICIAL_IMAGE_CUDNN,
        )
    ]


def _installed_by(copy: LibraryCopy) -> str:
    return f" (installed by {copy.owner})" if copy.owner else ""


def older_cudnn(facts: Facts) -> tuple[LibraryCopy, str] | None:
    """(the copy TF loads, the cuDNN TF was built with) when TF will refuse that copy as too old.

    TF's cuda_dnn.cc accepts the major it was built for with an equal or newer minor; the probe's
    symptoms of this one cause (convolutions, XLA, Keras training failing) point to its fix.
    """
    libs, tf = facts.libraries, facts.tensorflow
    if not isinstance(libs, LibraryFacts) or not isinstance(tf, TensorFlowFacts):
        return None
    release = tf_release(tf.version)
    cudnn = libs.get("cudnn")
    loaded = cudnn.loaded if cudnn else None
    if (
        loaded is None
        or release is None
        or not isinstance(loaded.version, str)
        or version_key(loaded.version)[:2] >= version_key(release.cudnn)[:2]
    ):
        return None
    return loaded, release.cudnn


def cudnn_fix(facts: Facts, loaded: LibraryCopy | None, built: str) -> str:
    """A newer cuDNN from the package manager that owns the copy TF loads (pip cannot replace conda's or apt's)."""
    libs = facts.libraries
    cuda_major = libs.cuda_major if isinstance(libs, LibraryFacts) else "12"
    manager = loaded.owner.manager if loaded and loaded.owner else PackageManager.PIP
    if manager is PackageManager.CONDA:
        return f"conda install -c conda-forge {shlex.quote(f'cudnn>={built}')}"
    if manager is PackageManager.DEB:
        return f"sudo apt-get install cudnn{version_key(built)[0]}-cuda-{cuda_major}   (NVIDIA's CUDA repository)"
    return pip(facts, "install", "--upgrade", f"nvidia-cudnn-cu{cuda_major}>={built}")


def tf_cudnn_message(loaded: str, built: str) -> str:
    """TF's own words for the refusal: cuda_dnn.cc prints major.minor.patch of each.

    Examples:
        >>> tf_cudnn_message("9.1.0.70", "9.3")
        'Loaded runtime CuDNN library: 9.1.0 but source was compiled with: 9.3.0'
    """
    return f"Loaded runtime CuDNN library: {_three_parts(loaded)} but source was compiled with: {_three_parts(built)}"


def _three_parts(version: str) -> str:
    return ".".join(str(n) for n in (*version_key(version)[:3], 0, 0)[:3])


def _versions(facts: Facts, tf: TensorFlowFacts, libs: LibraryFacts) -> list[Finding]:
    out = []
    release = tf_release(tf.version)
    older = older_cudnn(facts)
    wheel = f"nvidia-cudnn-cu{libs.cuda_major}"
    if older:
        loaded, built = older
        pinned = _older_pins(facts, wheel, built)
        torch = any(name == "torch" for name, _, _ in pinned)
        out.append(
            Finding(
                "cudnn-older-than-build",
                Severity.ERROR,
                C,
                f"cuDNN {loaded.version} is older than the {built} TF {tf.version} was built with",
                detail=f"TF loads {loaded.path}{_installed_by(loaded)} and refuses it: "
                f"'{tf_cudnn_message(str(loaded.version), built)}'. Convolutions then fail with 'No DNN in stream "
                "executor' and XLA with 'DNN library initialization failed' (seen on an H200, 2026-12-04)."
                + "".join(
                    f" {name} {version} pins {pin} (its Requires-Dist): installing it put that cuDNN here."
                    for name, version, pin in pinned
                )
                + (
                    " The fix keeps both frameworks working: PyTorch accepts a newer cuDNN of the same major "
                    "version at run time, though pip will report torch's pin as a conflict; run it again after "
                    "any later install of torch."
                    if torch
                    else ""
                ),
                hint=cudnn_fix(facts, loaded, built),
                link=TORCH_CUDNN_CHECK if torch else "",
            )
        )
    if release:
        pins = {p.name: p for p in release.nvidia_pins}
        packages = facts.packages
        if not isinstance(packages, Unavailable):
            for dist in packages.distributions:
                pin = pins.get(dist.name)
                said = older is not None and dist.name == wheel  # cudnn-older-than-build names it, with its fix
                if pin and not pinned_version_ok(pin, dist.version) and not said:
                    out.append(
                        Finding(
                            "cuda-library-version-mismatch",
                            Severity.WARNING,
                            C,
                            f"{dist.name} {dist.version} is outside TF {tf.version}'s requirement {pin.specifier}",
                            detail="The and-cuda extra pins these versions; others may fail to load or give wrong results.",
                            hint=pip(facts, "install", f"{dist.name}{pin.specifier}"),
                            link=release.source_url,
                        )
                    )
    return out


XLA_PTXAS_SEARCH = "https://github.com/openxla/xla/blob/main/xla/stream_executor/cuda/cuda_asm_compiler.cc"
"""XLA's FindCudaExecutable: the data-dir flag, then PATH, then the CUDA roots; the first ptxas >= 11.8 wins."""


def _old_ptxas(facts: Facts, tf: TensorFlowFacts, libs: LibraryFacts) -> list[Finding]:
    """XLA would run a system ptxas older than the CUDA TF was built with, found before the wheel's."""
    ptxas = libs.get("ptxas")
    chosen = ptxas.loaded if ptxas else None
    build = tf.build
    if (
        ptxas is None
        or chosen is None
        or chosen.origin == "wheel"
        or not isinstance(chosen.version, str)
        or isinstance(build, Unavailable)
        or not build.cuda_version
        or version_key(chosen.version)[:2] >= version_key(build.cuda_version)[:2]
    ):
        return []
    wheel = next((c for c in ptxas.copies if c.origin == "wheel"), None)
    where = {"path": "on PATH", "default": "in a system CUDA", "xla_flags": "in --xla_gpu_cuda_data_dir"}
    data_dir = os.path.dirname(os.path.dirname(wheel.path)) if wheel else None
    export = f'export XLA_FLAGS="${{XLA_FLAGS:-}} --xla_gpu_cuda_data_dir={shlex.quote(data_dir)}"' if data_dir else ""
    return [
        Finding(
            "xla-ptxas-older-than-build",
            Severity.WARNING,
            C,
            f"XLA will compile with ptxas {chosen.version} ({chosen.path}), older than the CUDA "
            f"{build.cuda_version} TF {tf.version} was built with",
            detail=f"It is found {where.get(chosen.origin, 'first')}, before "
            + (f"the nvidia-cuda-nvcc wheel's {wheel.version} ({wheel.path})" if wheel else "any newer copy")
            + ": XLA runs the first ptxas of at least 11.8 in --xla_gpu_cuda_data_dir, PATH, /usr/local/cuda, "
            "/opt/cuda, then the wheel. A ptxas older than the GPU's architecture cannot compile for it, and one "
            "older than the PTX XLA emits rejects it ('Unsupported .version'); on an H200 with TF 2.21 a 12.2 "
            "ptxas first on PATH still compiled and a Keras model trained, so this is the install drifting from "
            "what TF was tested with, not a failure yet.",
            hint=export or pip(facts, "install", f"nvidia-cuda-nvcc-cu{libs.cuda_major}"),
            link=XLA_PTXAS_SEARCH,
        )
    ]


def _ptxas_newer_than_driver(facts: Facts, libs: LibraryFacts) -> list[Finding]:
    """XLA compiles one kernel at a time when the driver's CUDA is older than the ptxas it runs.

    XLA's nvptx_compiler logs it ("XLA is disabling parallel compilation") on every start; the
    doctor says it before a run, with the driver that ends it.
    """
    ptxas, driver = libs.get("ptxas"), facts.driver
    chosen = ptxas.loaded if ptxas else None
    if (
        chosen is None
        or not isinstance(chosen.version, str)
        or not isinstance(driver, DriverFacts)
        or not isinstance(driver.cuda_driver_version, str)
        or version_key(chosen.version)[:2] <= version_key(driver.cuda_driver_version)[:2]
    ):
        return []
    cuda = major_minor(chosen.version)
    need = driver_requirement(cuda)
    newer = f" ({need.linux_min_driver} or newer)" if need and need.linux_min_driver else ""
    return [
        Finding(
            "xla-ptxas-newer-than-driver",
            Severity.WARNING,
            C,
            f"XLA will compile one kernel at a time: driver {driver.driver_version} supports CUDA "
            f"{driver.cuda_driver_version}, older than ptxas {chosen.version}",
            detail=f"XLA runs {chosen.path} and, with a driver older than that ptxas, turns parallel compilation "
            "off ('XLA is disabling parallel compilation, which may slow down compilation'): every first "
            "compile of an XLA model takes longer.",
            hint=f"Upgrade the NVIDIA driver to one for CUDA {cuda}{newer}, or install CUDA's forward-compatibility package.",
            link=XLA_GPU_DOCS,
        )
    ]


TORCH_CUDNN_CHECK = "https://github.com/pytorch/pytorch/blob/main/torch/backends/cudnn/__init__.py"
"""PyTorch's run-time cuDNN check: a different major version fails, a newer minor is accepted."""


def _older_pins(facts: Facts, wheel: str, built: str) -> list[tuple[str, str, str]]:
    """(distribution, version, pin) of each installed distribution that pins ``wheel`` below ``built``.

    PyTorch's cu124 wheels pin nvidia-cudnn-cu12==9.1.0.70 while TF 2.21 needs 9.3: whichever pip
    resolved last decides which cuDNN both load (tensorflow/tensorflow#60913).
    """
    packages = facts.packages
    if isinstance(packages, Unavailable):
        return []
    out = []
    for dist in packages.distributions:
        for pin in dist.pins:
            name, _, version = pin.partition("==")
            if name == wheel and version_key(version)[:2] < version_key(built)[:2]:
                out.append((dist.name, dist.version, pin))
    return out


def _shadowing(libs: LibraryFacts) -> list[Finding]:
    """A copy on LD_LIBRARY_PATH ahead of the wheel's: an error when its loader cannot bind it, else a warning.

    Set t on the H100 measured both: CUDA 12.1's libnvJitLink.so.12 ahead of the wheels lacks the
    ``__nvJitLink*_12_5`` symbols cuSPARSE 12.5 binds, and TF registered no GPU; CUDA 12.0's cudart
    ahead of them changed nothing the run showed.
    """
    out = []
    for lib in libs.libraries:
        loaded, unbindable = lib.loaded, lib.unbindable is not None
        if loaded is None or loaded.origin != "ld_library_path":
            continue
        later = [c for c in lib.copies if c.origin == "runpath" and c.version != loaded.version]
        if not later and not unbindable:
            continue
        where = os.path.dirname(loaded.path)
        known = f" {loaded.version}" if isinstance(loaded.version, str) else ""
        wheel = (
            f"The pip wheel's {later[0].version} at {later[0].path} is ignored: LD_LIBRARY_PATH is searched first."
            if later
            else ""
        )
        if unbindable:
            summary = f"LD_LIBRARY_PATH makes TF load {lib.soname}{known} from {where}, which lacks symbols {loader_name(lib)} needs"
            detail = f"{_lacks_detail(lib, loaded)} {wheel}"
        else:
            summary, detail = f"LD_LIBRARY_PATH makes TF load {lib.soname}{known} from {where}", wheel
        out.append(
            Finding(
                "ld-library-path-shadows-wheel",
                Severity.ERROR if unbindable else Severity.WARNING,
                C,
                summary,
                detail=detail.strip(),
                hint=f"Remove {where} from LD_LIBRARY_PATH."
                + (
                    '   (or `eval "$(tfgpu env)"`, which puts the wheel\'s copy ahead of it)'
                    if unbindable and later
                    else ""
                ),
            )
        )
    for copy in libs.foreign_cudart:
        out.append(
            Finding(
                "ld-library-path-other-cuda",
                Severity.WARNING,
                C,
                f"LD_LIBRARY_PATH holds another CUDA: {copy.path} ({copy.version})",
                detail=f"TF needs CUDA {libs.cuda_major}.x; a second toolkit on LD_LIBRARY_PATH can shadow its libraries.",
                hint=f"Remove {os.path.dirname(copy.path)} from LD_LIBRARY_PATH.",
            )
        )
    return out


def _optional(facts: Facts, libs: LibraryFacts) -> list[Finding]:
    out = []
    nccl = libs.get("nccl")
    if nccl and nccl.loaded is None:
        out.append(
            Finding(
                "nccl-missing",
                Severity.INFO,
                C,
                "NCCL is not reachable: multi-GPU all-reduce falls back to slower copies",
                hint=pip(facts, "install", f"nvidia-nccl-cu{libs.cuda_major}"),
            )
        )
    ptxas, libdevice = libs.get("ptxas"), libs.get("libdevice")
    if ptxas and ptxas.loaded is None:
        out.append(
            Finding(
                "xla-ptxas-missing",
                Severity.WARNING,
                C,
                "ptxas not found: XLA (jit_compile=True) cannot compile GPU kernels",
                detail="XLA looks in --xla_gpu_cuda_data_dir, PATH, /usr/local/cuda, /opt/cuda and the "
                "nvidia-cuda-nvcc wheel, and skips a ptxas older than 11.8.",
                hint=pip(facts, "install", f"nvidia-cuda-nvcc-cu{libs.cuda_major}"),
                link=XLA_GPU_DOCS,
            )
        )
    if libdevice and libdevice.loaded is None:
        out.append(
            Finding(
                "xla-libdevice-missing",
                Severity.WARNING,
                C,
                "libdevice.10.bc not found: XLA kernels fail with 'libdevice not found'",
                hint=pip(facts, "install", f"nvidia-cuda-nvcc-cu{libs.cuda_major}")
                + "   or: export XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda",
                link=XLA_GPU_DOCS,
            )
        )
    return out
