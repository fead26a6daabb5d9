"""The CUDA libraries a TensorFlow build loads, by CUDA major version.

Sonames from TF's loader (xla/tsl/platform/default/dso_loader.cc: GetCudaRuntimeDsoHandle,
GetCublasDsoHandle, … use ``lib<name>.so.<major>``) and the file names in the nvidia-*-cu1x
wheels. ``required`` libraries make TF drop the GPU when missing ("Cannot dlopen some GPU
libraries"); NCCL only matters for multi-GPU collectives and CUPTI only for the profiler.

TF's libraries load others in turn, each searched from *its own* RUNPATH, not TF's
(``DEPENDENCIES``). Two matter in the pip layout: cuDNN 9 dlopens libnvrtc for its
runtime-compiled engines from libcudnn_graph, whose RUNPATH names ``$ORIGIN/../../nvrtc/lib``
while the nvidia-cuda-nvrtc-cu12 wheel installs ``nvidia/cuda_nvrtc/lib`` (read from the 9.3
wheels: tests/fixtures/tf/runpath-nvidia-cu12-wheels.txt), so XLA's fused convolutions fail
("Autotuner could not find any supported configs") while TF still registers the GPU; and
cuSPARSE, cuSOLVER and cuFFT link libnvJitLink. cuDNN's libcublasLt is the one TF loads
itself (a soname already loaded satisfies later dlopens), and libnvrtc-builtins sits beside
libnvrtc, which finds it through ``$ORIGIN``.
"""

from __future__ import annotations

from dataclasses import dataclass

DSO_LOADER_SOURCE = "https://github.com/openxla/xla/blob/main/xla/tsl/platform/default/dso_loader.cc"


@dataclass(frozen=True)
class WantedLibrary:
    """A library TF dlopens: short name, soname, and the nvidia wheel directory that holds it."""

    name: str
    soname: str
    wheel_dir: str
    required: bool = True


_SONAMES: dict[str, tuple[tuple[str, str, str, bool], ...]] = {
    "12": (
        ("cudart", "libcudart.so.12", "cuda_runtime", True),
        ("cublas", "libcublas.so.12", "cublas", True),
        ("cublasLt", "libcublasLt.so.12", "cublas", True),
        ("cufft", "libcufft.so.11", "cufft", True),
        ("cusolver", "libcusolver.so.11", "cusolver", True),
        ("cusparse", "libcusparse.so.12", "cusparse", True),
        ("nccl", "libnccl.so.2", "nccl", False),
        ("cupti", "libcupti.so.12", "cuda_cupti", False),
    ),
    "11": (
        ("cudart", "libcudart.so.11.0", "cuda_runtime", True),
        ("cublas", "libcublas.so.11", "cublas", True),
        ("cublasLt", "libcublasLt.so.11", "cublas", True),
        ("cufft", "libcufft.so.10", "cufft", True),
        ("cusolver", "libcusolver.so.11", "cusolver", True),
        ("cusparse", "libcusparse.so.11", "cusparse", True),
        ("nccl", "libnccl.so.2", "nccl", False),
    ),
}


CUDNN_RUNTIME_DEPENDENCIES = "https://docs.nvidia.com/deeplearning/cudnn/latest/installation/build-run-cudnn.html"


@dataclass(frozen=True)
class Dependency:
    """A library that one of TF's libraries loads in turn, searched from the loader's RUNPATH.

    ``loader`` is the short name of TF's library and ``loader_file`` the file beside it that
    does the loading; ``needed_for`` says what fails without it, in a user's words.
    """

    name: str
    soname: str
    wheel_dir: str
    loader: str
    loader_file: str
    needed_for: str
    source: str


_DEPENDENCIES: dict[str, tuple[Dependency, ...]] = {
    "12": (
        Dependency(
            "nvrtc",
            "libnvrtc.so.12",
            "cuda_nvrtc",
            "cudnn",
            "libcudnn_graph.so.9",
            "cuDNN's runtime-compiled engines: the fused convolutions XLA picks under Keras's default "
            "jit_compile fail ('Autotuner could not find any supported configs')",
            CUDNN_RUNTIME_DEPENDENCIES,
        ),
        Dependency(
            "nvjitlink",
            "libnvJitLink.so.12",
            "nvjitlink",
            "cusparse",
            "libcusparse.so.12",
            "cuSPARSE (and cuSOLVER, cuFFT) cannot load, so TF registers no GPU",
            "https://docs.nvidia.com/cuda/nvjitlink/index.html",
        ),
    ),
}


def dependencies(cuda_version: str, cudnn_version: str | None) -> tuple[Dependency, ...]:
    """The libraries TF's libraries load in turn, for this CUDA (and cuDNN) build.

    Examples:
        >>> [d.soname for d in dependencies("12.5.1", "9")]
        ['libnvrtc.so.12', 'libnvJitLink.so.12']
        >>> [d.soname for d in dependencies("12.2", "8")]
        ['libnvJitLink.so.12']
    """
    found = _DEPENDENCIES.get(cuda_version.split(".")[0], ())
    cudnn_major = (cudnn_version or "").split(".")[0]
    return tuple(d for d in found if d.loader != "cudnn" or cudnn_major == "9")


def wanted_libraries(cuda_version: str, cudnn_version: str | None) -> tuple[WantedLibrary, ...]:
    """The libraries a build for this CUDA (and cuDNN) version loads; empty for unknown majors.

    Examples:
        >>> [w.soname for w in wanted_libraries("12.5.1", "9")][:2]
        ['libcudart.so.12', 'libcudnn.so.9']
    """
    major = cuda_version.split(".")[0]
    libs = [WantedLibrary(*row) for row in _SONAMES.get(major, ())]
    if libs and cudnn_version:
        libs.insert(1, WantedLibrary("cudnn", f"libcudnn.so.{cudnn_version.split('.')[0]}", "cudnn"))
    return tuple(libs)


def wheel_distribution(wheel_dir: str, cuda_major: str) -> str:
    """The distribution that ships ``site-packages/nvidia/<wheel_dir>``.

    Examples:
        >>> wheel_distribution("cuda_runtime", "12")
        'nvidia-cuda-runtime-cu12'
    """
    return f"nvidia-{wheel_dir.replace('_', '-')}-cu{cuda_major}"


def dependency_wheel(soname: str, cuda_major: str) -> str | None:
    """The distribution that ships a dependency's soname, or None for an unknown one.

    Examples:
        >>> dependency_wheel("libnvrtc.so.12", "12")
        'nvidia-cuda-nvrtc-cu12'
    """
    found = next((d for d in _DEPENDENCIES.get(cuda_major, ()) if d.soname == soname), None)
    return wheel_distribution(found.wheel_dir, cuda_major) if found else None
