"""The machine context explain takes from the doctor's facts: the CUDA and cuDNN versions installed, the GPU's compute capability."""

from __future__ import annotations

from types import SimpleNamespace

from tfgpu.explain.explain import cuda_installed, cudnn_installed, fix_values, gpu_cc
from tfgpu.model.facts import CudaLibrary, GpuFacts, LibraryCopy, LibraryFacts
from tfgpu.model.unavailable import Unavailable


def test_cuda_installed_reads_tfs_runtime_and_the_other_majors_on_the_path():
    libraries = LibraryFacts(
        cuda_major="12",
        libraries=(
            CudaLibrary(
                name="cudart",
                soname="libcudart.so.12",
                required=True,
                copies=(LibraryCopy("/venv/nvidia/cuda_runtime/lib/libcudart.so.12", "runpath", "12.5.82"),),
            ),
        ),
        search_order=(),
        foreign_cudart=(
            LibraryCopy("/usr/local/cuda-11.8/lib64/libcudart.so.11.0", "ld_library_path", "11.8.89"),
            LibraryCopy("/opt/old/libcudart.so.10.1", "elsewhere", Unavailable("no version", "test")),
        ),
    )
    assert cuda_installed(SimpleNamespace(libraries=libraries)) == ("11.8", "12.5")
    assert cuda_installed(SimpleNamespace(libraries=Unavailable("not read", "test"))) is None


def test_cudnn_installed_reads_the_copies_the_doctor_found():
    libraries = LibraryFacts(
        cuda_major="12",
        libraries=(
            CudaLibrary(
                name="cudnn",
                soname="libcudnn.so.9",
                required=True,
                copies=(
                    LibraryCopy("/venv/nvidia/cudnn/lib/libcudnn.so.9", "runpath", "9.3.0"),
                    LibraryCopy("/usr/lib/x86_64-linux-gnu/libcudnn.so.8", "ld_cache", "8.9.7"),
                ),
            ),
        ),
        search_order=(),
    )
    assert cudnn_installed(SimpleNamespace(libraries=libraries)) == ("8.9", "9.3")
    assert cudnn_installed(SimpleNamespace(libraries=Unavailable("not read", "test"))) is None


def test_gpu_cc_is_the_first_gpus_compute_capability_when_nvml_read_it():
    def gpu(cc):
        return GpuFacts(0, "NVIDIA GeForce RTX 3080", "GPU-x", Unavailable("r", "s"), cc, 10 * 2**30, 0)

    assert gpu_cc(SimpleNamespace(gpus=(gpu("8.6"),))) == (8, 6)
    assert gpu_cc(SimpleNamespace(gpus=(gpu(Unavailable("not read", "nvml")),))) is None
    assert gpu_cc(SimpleNamespace(gpus=(gpu("not a capability"),))) is None
    assert gpu_cc(SimpleNamespace(gpus=())) is None
    assert gpu_cc(SimpleNamespace(gpus=Unavailable("no driver", "nvml"))) is None


def test_without_facts_the_install_command_pins_a_release_only_where_it_has_the_cuda_extra():
    """tensorflow[and-cuda] exists from TF 2.14: pinned to 2.4 it would install TF 2.4 with no CUDA at all."""
    assert fix_values(None, "2.16.1")["tf_install"] == 'python -m pip install "tensorflow[and-cuda]==2.16.*"'
    assert fix_values(None, "2.4")["tf_install"] == 'python -m pip install "tensorflow[and-cuda]"'
    assert fix_values(None, "1.15")["tf_version"] == "1.15"  # the release the log names stays what the texts say
