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


def test_a_log_of_another_tf_release_is_read_on_its_own_not_against_this_machine(tmp_path):
    """A colleague's TF 2.1 log on a TF 2.21 machine: its CUDA 10.2 is compared with TF 2.1's build, not 2.21's."""
    import io

    from tests.fakes.machines import gpu_machine

    from tfgpu.doctor.collect import collect_facts
    from tfgpu.explain.explain import explain_file

    facts = collect_facts(gpu_machine(tmp_path).sources(), tfgpu_version="test")  # TF 2.21 here
    log = tmp_path / "issue.txt"
    listing = "Tensorflow does not detect my GPU: tf.config.list_physical_devices('GPU') returns []"
    log.write_text(f"- TensorFlow version (use command below): 2.1.0\n- CUDA/cuDNN version: 10.2 / 7.6.5\n{listing}\n")
    explanation = explain_file(str(log), io.StringIO(), lambda: facts)
    assert explanation.machine_tf_set_aside == "2.21.0"
    assert explanation.problems[0].id == "tf-built-for-another-cuda"
    assert "TensorFlow 2.1 was built for CUDA 10.1" in explanation.problems[0].title

    log.write_text(f"TensorFlow version: 2.21.0\n{listing}\n")
    assert explain_file(str(log), io.StringIO(), lambda: facts).machine_tf_set_aside is None
