"""The machine context explain takes from the doctor's facts: the CUDA and cuDNN versions installed, the GPU's compute capability."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from tests.fakes.elf import write_elf
from tests.fakes.machines import NVJITLINK_SYMBOLS, gpu_machine, lib_dir
from tests.fakes.nvml import FakeNvml

from tfgpu.doctor.collect import collect_facts
from tfgpu.explain.explain import cuda_installed, cudnn_installed, explain_file, explain_lines, fix_values, gpu_cc
from tfgpu.knowledge.scanner import LogScanner
from tfgpu.model.explanation import FactsSetAside, SetAsideReason
from tfgpu.model.facts import CudaLibrary, GpuFacts, LibraryCopy, LibraryFacts
from tfgpu.model.unavailable import Unavailable
from tfgpu.report.explanation import explanation_document


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
    facts = collect_facts(gpu_machine(tmp_path).sources(), tfgpu_version="test")  # TF 2.21 here
    log = tmp_path / "issue.txt"
    listing = "Tensorflow does not detect my GPU: tf.config.list_physical_devices('GPU') returns []"
    log.write_text(f"- TensorFlow version (use command below): 2.1.0\n- CUDA/cuDNN version: 10.2 / 7.6.5\n{listing}\n")
    explanation = explain_file(str(log), io.StringIO(), lambda: facts)
    assert explanation.facts_set_aside == FactsSetAside(
        SetAsideReason.TENSORFLOW, "TensorFlow 2.1", "TensorFlow 2.21.0"
    )
    assert explanation.problems[0].id == "tf-built-for-another-cuda"
    assert "TensorFlow 2.1 was built for CUDA 10.1" in explanation.problems[0].title

    log.write_text(f"TensorFlow version: 2.21.0\n{listing}\n")
    assert explain_file(str(log), io.StringIO(), lambda: facts).facts_set_aside is None


CUDA_11_LOG = (
    "2021-03-02 10:11:12.123456: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load "
    "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: "
    "No such file or directory\n"
    "2021-03-02 10:11:15.000000: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1757] Cannot dlopen some GPU "
    "libraries. Please make sure the missing libraries mentioned above are installed properly if you would like "
    "to use GPU.\n"
)


@pytest.mark.parametrize("tf", ["gpu", "cpu"])
def test_a_log_whose_tf_loads_another_cudas_runtime_is_read_on_its_own(tmp_path, tf):
    """libcudart.so.11.0 is what a TF 2.4-2.10 build asks for: this machine's TF 2.21 (CUDA 12, or a CPU build
    that loads no CUDA) did not write the log, so its facts and its pip are not the log's."""
    facts = collect_facts(gpu_machine(tmp_path, tf=tf).sources(), tfgpu_version="test")
    log = tmp_path / "train.log"
    log.write_text(CUDA_11_LOG)
    explanation = explain_file(str(log), io.StringIO(), lambda: facts)
    built = "built for CUDA 12.5.1" if tf == "gpu" else "without CUDA (a CPU build)"
    assert explanation.facts_set_aside == FactsSetAside(
        SetAsideReason.CUDA_BUILD,
        "a TensorFlow built for CUDA 11.0 (it loads libcudart.so.11.0)",
        f"TensorFlow 2.21.0, {built}" if tf == "gpu" else f"TensorFlow 2.21.0 {built}",
    )
    assert explanation_document(explanation)["facts_set_aside"]["reason"] == "cuda_build"  # --json says why
    mine = fix_values(facts, None)["pip"]  # this machine's interpreter, by its path
    assert any("python -m pip install" in problem.fix for problem in explanation.problems)
    assert not any(mine in problem.fix for problem in explanation.problems)


def test_a_log_whose_tf_loads_this_machines_cuda_is_read_against_the_machine(tmp_path):
    facts = collect_facts(gpu_machine(tmp_path).sources(), tfgpu_version="test")
    log = tmp_path / "train.log"
    log.write_text(CUDA_11_LOG.replace("libcudart.so.11.0", "libcudart.so.12"))
    assert explain_file(str(log), io.StringIO(), lambda: facts).facts_set_aside is None


def test_a_windows_log_is_not_read_against_a_linux_machine_nor_a_linux_log_against_windows(tmp_path):
    """A Windows run's DLLs and paths read on Linux (a colleague's log, an issue's paste), and the reverse."""
    facts = collect_facts(gpu_machine(tmp_path).sources(), tfgpu_version="test")
    log = tmp_path / "train.log"
    log.write_text(
        "2021-06-16 17:38:03.802929: I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully "
        "opened dynamic library cudart64_110.dll\n"
        "tensorflow.python.framework.errors_impl.NotFoundError: No algorithm worked!\n"
    )
    explanation = explain_file(str(log), io.StringIO(), lambda: facts)
    assert explanation.facts_set_aside == FactsSetAside(
        SetAsideReason.OS, "native Windows (its paths or DLLs)", "Linux"
    )

    windows = replace(facts, host=replace(facts.host, os_name="Windows"))
    log.write_text(CUDA_11_LOG.replace("libcudart.so.11.0", "libcudart.so.12"))
    assert explain_file(str(log), io.StringIO(), lambda: windows).facts_set_aside == FactsSetAside(
        SetAsideReason.OS, "Linux (TF loads libcudart.so.12)", "Windows"
    )


def test_a_windows_logs_fix_sets_variables_in_cmd_and_powershell_not_with_export():
    """Windows has no `export`: a Windows run's fix is typed in cmd (or the Anaconda Prompt) or PowerShell."""
    failed = "tensorflow.python.framework.errors_impl.NotFoundError: No algorithm worked!"
    windows = explain_lines(
        [
            "2021-06-16 17:38:03.802929: I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully "
            "opened dynamic library cudart64_110.dll",
            failed,
        ]
    )
    assert windows.os == "windows"
    fix = windows.problems[0].fix
    assert "set TF_FORCE_GPU_ALLOW_GROWTH=true" in fix
    assert '$env:TF_FORCE_GPU_ALLOW_GROWTH="true"' in fix
    assert "export " not in fix
    linux = explain_lines(
        [
            "2021-06-16 17:38:03.802929: I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully "
            "opened dynamic library libcudart.so.11.0",
            failed,
        ]
    )
    assert linux.problems[0].id == windows.problems[0].id
    assert "export TF_FORCE_GPU_ALLOW_GROWTH=true" in linux.problems[0].fix


@pytest.mark.parametrize(
    ("runtime", "install"),
    [
        ("libcudart.so.12", "python -m pip install --upgrade nvidia-cudnn-cu12"),
        ("libcudart.so.11.0", "python -m pip install --upgrade 'nvidia-cudnn-cu11==8.*', and if TF does not find it"),
        ("libcudart.so.10.0", "NVIDIA's cuDNN for CUDA 10.0; no pip wheel exists for CUDA 10"),
        ("cudart64_110.dll", "NVIDIA's cuDNN for CUDA 11.0, its bin directory on PATH"),
    ],
)
def test_a_fixs_nvidia_wheel_is_the_one_for_the_cuda_the_logs_tf_loads(runtime, install):
    """A TF built for CUDA 11 or 10 is not helped by a -cu12 wheel, nor TF on native Windows by any wheel."""
    explanation = explain_lines(
        [
            "I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened dynamic library "
            + runtime,
            "tensorflow.python.framework.errors_impl.NotFoundError: No algorithm worked!",
        ]
    )
    assert install in explanation.problems[0].fix
    assert ("cu12" in explanation.problems[0].fix) == runtime.endswith(".so.12")


@pytest.mark.parametrize(
    ("line", "asked"),
    [
        (
            "I tensorflow/stream_executor/platform/default/dso_loader.cc:44] Successfully opened dynamic library "
            "libcudart.so.10.1",
            ("libcudart.so.10.1", "10.1"),
        ),
        (
            "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
            "'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
            ("cudart64_110.dll", "11.0"),
        ),
        (
            "ImportError: libcudart.so.9.0: cannot open shared object file: No such file or directory",
            ("libcudart.so.9.0", "9.0"),
        ),
        (
            "ImportError: Could not find 'cudart64_90.dll'. TensorFlow requires that this DLL be installed",
            ("cudart64_90.dll", "9.0"),
        ),
        ("$ ls /usr/local/cuda/lib64/libcudart.so.11.0", None),  # the user's listing: not what TF asked for
        ("-rwxr-xr-x 1 root root 394472 Jul 18 17:20 /usr/local/cuda/lib64/libcudart.so.8.0.27", None),
    ],
)
def test_the_cuda_runtime_a_logs_tf_asks_for_is_read_from_tfs_own_lines(line, asked):
    scanner = LogScanner()
    scanner.feed(line)
    got = scanner.cudart_asked
    assert (got.name, got.cuda) == asked if asked else got is None


def test_a_known_releases_cudnn_wheel_is_pinned_to_its_cudnn_and_says_whether_tf_finds_it():
    """TF 2.14's and-cuda extra brought CUDA 11.8 wheels that TF finds; TF 2.12 needed LD_LIBRARY_PATH (tensorflow/docs#2214)."""
    assert fix_values(None, "2.14")["cudnn_install"] == "python -m pip install --upgrade 'nvidia-cudnn-cu11==8.*'"
    assert fix_values(None, "2.12")["cudnn_install"] == (
        "python -m pip install 'nvidia-cudnn-cu11==8.*', then its lib directory on LD_LIBRARY_PATH: "
        "TF before 2.14 does not look in site-packages"
    )
    assert fix_values(None, "2.21")["nvcc_install"] == "python -m pip install --upgrade nvidia-cuda-nvcc-cu12"


CANNOT_DLOPEN = (
    "W0000 00:00:1796220625.218603    1184 gpu_device.cc:2365] Cannot dlopen some GPU libraries. Please make sure the "
    "missing libraries mentioned above are installed properly if you would like to use GPU."
)
"""TF 2.21's one line when cuSPARSE could not load an nvJitLink older than it (set t on the H100): no library named."""


def _nvjitlink_12_1(path):
    """A bare libnvJitLink.so.12 with CUDA 12.1.105's recorded symbols (cuSPARSE 12.5 binds ones it lacks)."""
    write_elf(path, soname="libnvJitLink.so.12", defines=tuple(NVJITLINK_SYMBOLS["nvjitlink-12.1.105-defines"]))


def test_cannot_dlopen_names_the_older_nvjitlink_the_facts_show_first_and_the_copy_that_loads(tmp_path):
    m = gpu_machine(tmp_path)
    old = tmp_path / "opt/nvjitlink-12.1"
    _nvjitlink_12_1(old / "libnvJitLink.so.12")
    fixed = f"{lib_dir(m, 'cusolver')}:{lib_dir(m, 'cuda_nvrtc')}"
    m.environ = {**m.environ, "LD_LIBRARY_PATH": f"{old}:{fixed}"}
    (problem,) = explain_lines([CANNOT_DLOPEN], collect_facts(m.sources(), tfgpu_version="test")).problems
    wheel = f"{lib_dir(m, 'nvjitlink')}/libnvJitLink.so.12"
    assert problem.cause.endswith(
        f"On this machine: {old}/libnvJitLink.so.12 is found first and lacks symbols libcusparse.so.12 binds; "
        f"{wheel} defines them."
    )
    assert problem.fix.startswith(f"export LD_LIBRARY_PATH={lib_dir(m, 'nvjitlink')}${{LD_LIBRARY_PATH:+")
    (unmoved,) = explain_lines([CANNOT_DLOPEN]).problems  # without facts the cause says only what the line can
    assert unmoved.cause.endswith("measured on an H100).")


def test_cannot_dlopen_where_no_nvjitlink_here_is_new_enough_says_the_upgrade(tmp_path):
    m = gpu_machine(tmp_path)
    _nvjitlink_12_1(Path(lib_dir(m, "nvjitlink")) / "libnvJitLink.so.12")  # pip resolved a too-old wheel
    m.environ = {**m.environ, "LD_LIBRARY_PATH": f"{lib_dir(m, 'cusolver')}:{lib_dir(m, 'cuda_nvrtc')}"}
    (problem,) = explain_lines([CANNOT_DLOPEN], collect_facts(m.sources(), tfgpu_version="test")).problems
    assert problem.cause.endswith(
        "/libnvJitLink.so.12 lacks symbols libcusparse.so.12 binds and no copy here defines them."
    )
    upgrade, _, _ = problem.fix.partition("   (run `tfgpu doctor`")
    assert upgrade.endswith(" -m pip install --upgrade nvidia-nvjitlink-cu12") and "tfgpu env" not in upgrade


def _missing(library: str) -> list[str]:
    return [
        "2019-05-01 10:00:00.000000: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load "
        f"dynamic library '{library}'; dlerror: {library}: cannot open shared object file: No such file or directory",
        "2019-05-01 10:00:00.100000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1640] Found device 0 with "
        "properties: name: GeForce GTX 1080",
    ]


@pytest.mark.parametrize(
    ("library", "install"),
    [
        ("libcudart.so.10.0", "Install CUDA 10.0 and cuDNN 7.4, what TF 1.13-2.0 were built for"),
        ("libcudart.so.10.1", "Install CUDA 10.1 and cuDNN 7.6, what TF 2.1-2.3 were built for"),
        ("libcudart.so.11.0", "Install CUDA 11.0 to 11.8 and cuDNN 8.0 to 8.7, what TF 2.4-2.14 were built for"),
    ],
)
def test_a_missing_runtime_of_an_older_cuda_gets_that_cuda_first_and_the_newest_tf_second(library, install):
    """A TF 1.x script is not fixed by TF 2.21's wheels: the CUDA its TF was built for comes first."""
    (problem,) = explain_lines(_missing(library)).problems
    assert problem.fix.startswith(install)
    assert 'or move to a TF built for CUDA 12: python -m pip install "tensorflow[and-cuda]==2.21.*"' in problem.fix
    assert "Keras 3 from TF 2.16" in problem.fix


def test_a_missing_runtime_of_the_newest_cuda_gets_the_wheels():
    (problem,) = explain_lines(_missing("libcudart.so.12")).problems
    assert problem.fix.startswith('python -m pip install "tensorflow[and-cuda]==2.21.*"   (the nvidia-*-cu12 wheels')


def test_a_log_naming_its_tf_release_gets_that_releases_cuda():
    lines = ["TensorFlow version: 2.10.1", *_missing("libcudart.so.11.0")]
    (problem,) = explain_lines(lines).problems
    assert problem.fix.startswith("Install CUDA 11.2 and cuDNN 8.1, what TF 2.10 was built for")


OOM = (
    "ResourceExhaustedError: OOM when allocating tensor with shape[64,256,56,56] and type float on "
    "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"
)


def test_an_out_of_memory_says_who_holds_this_machines_gpu_now_and_both_readings(tmp_path):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml.held_by(4242, "python3 notebook.py", 100)
    (problem,) = explain_lines([OOM], collect_facts(m.sources(), tfgpu_version="test")).problems
    assert problem.category == "oom"  # the facts are of now, not of the run: they add a reading, not a verdict
    assert "On this machine now, GPU 0 (" in problem.cause
    assert "has 100.0 of 140.0 GiB in use by python3 notebook.py (pid 4242, 100.0 GiB)" in problem.cause
    assert problem.cause.endswith(
        "unless that is the run that wrote this log (a notebook kernel keeps TF's memory until it exits), it is memory this run could not have."
    )


def test_an_out_of_memory_on_an_idle_gpu_or_without_facts_says_nothing_of_this_machine(tmp_path):
    idle = collect_facts(gpu_machine(tmp_path).sources(), tfgpu_version="test")
    for facts in (idle, None):
        (problem,) = explain_lines([OOM], facts).problems
        assert "this machine" not in problem.cause
