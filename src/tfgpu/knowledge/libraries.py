"""The CUDA libraries a TensorFlow build loads, by CUDA major version.

Sonames from TF's loader (xla/tsl/platform/default/dso_loader.cc: GetCudaRuntimeDsoHandle,
GetCublasDsoHandle, … use ``lib<name>.so.<major>``) and the file names in the nvidia-*-cu1x
wheels. ``required`` libraries make TF drop the GPU when missing ("Cannot dlopen some GPU
libraries"); NCCL only matters for multi-GPU collectives and CUPTI only for the profiler.
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
        ("nvjitlink", "libnvJitLink.so.12", "nvjitlink", False),
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
