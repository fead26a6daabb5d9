"""Broken-machine scenarios: the real collectors and checks over fake machines built from
recorded real layouts. Each asserts the finding id and that the fix names the right version.
Issue numbers: tfgpu#2 (doctor foundation)."""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from tests.fakes.elf import write_elf
from tests.fakes.machines import NVJITLINK_SYMBOLS, _dist_info, gpu_machine, lib_dir
from tests.fakes.nvml import FakeGpu, FakeNvml, nvml_error

from tfgpu.doctor.collect import collect_facts
from tfgpu.doctor.diagnose import diagnose
from tfgpu.doctor.examine import env_fix
from tfgpu.knowledge.fixes import fix_env_lines
from tfgpu.model.facts import ContainerImage, HostFacts
from tfgpu.model.findings import Finding, Severity
from tfgpu.model.results import Diagnosis
from tfgpu.report.versions import version_rows
from tfgpu.system.runner import CommandResult

GIB = 1024**3
FIXTURES = Path(__file__).parents[2] / "fixtures"


def find(d: Diagnosis, finding_id: str) -> Finding:
    matches = [f for f in d.findings if f.id == finding_id]
    assert matches, f"{finding_id} not in {[f.id for f in d.findings]}"
    return matches[0]


def errors(d: Diagnosis) -> list[str]:
    return [f.id for f in d.findings if f.severity is Severity.ERROR]


def fixed_env(m) -> dict[str, str]:
    """What `eval "$(tfgpu env)"` sets on the wheel layout: cusolver's and cuda_nvrtc's directories."""
    return {**m.environ, "LD_LIBRARY_PATH": f"{lib_dir(m, 'cusolver')}:{lib_dir(m, 'cuda_nvrtc')}"}


def test_scenario_2_wheel_layout_hides_cusolver_reports_export_line(tmp_path):
    m = gpu_machine(tmp_path)
    f = find(m.diagnose(), "cuda-library-not-on-search-path")
    assert "libcusolver.so.11" in f.summary
    assert f.hint.startswith(f"export LD_LIBRARY_PATH={lib_dir(m, 'cusolver')}")


def test_scenario_14_wheel_layout_hides_nvrtc_from_cudnn(tmp_path):
    """Issue 14 (H200, 2026-12-02): cusolver alone made TF see the GPU; cuDNN still could not load nvrtc."""
    m = gpu_machine(tmp_path)
    m.environ = {**m.environ, "LD_LIBRARY_PATH": lib_dir(m, "cusolver")}
    d = m.diagnose()
    f = find(d, "cuda-dependency-not-on-search-path")
    assert f.severity is Severity.ERROR and "libnvrtc.so.12" in f.summary and "libcudnn_graph.so.9" in f.summary
    # cuDNN's own RUNPATH names nvidia/nvrtc/lib; the wheel installs nvidia/cuda_nvrtc/lib
    assert str(m.site / "nvidia/nvrtc/lib") in f.detail and lib_dir(m, "cuda_nvrtc") in f.detail
    assert f.hint.startswith(f"export LD_LIBRARY_PATH={lib_dir(m, 'cuda_nvrtc')}$")
    assert "cuda-library-not-on-search-path" not in {x.id for x in d.findings}


def test_scenario_14_fix_env_orders_tf_libraries_before_their_dependencies(tmp_path):
    from tfgpu.knowledge.fixes import fix_env_lines

    m = gpu_machine(tmp_path)
    assert fix_env_lines(collect_facts(m.sources())) == [
        f"export LD_LIBRARY_PATH={lib_dir(m, 'cusolver')}:{lib_dir(m, 'cuda_nvrtc')}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"
    ]
    m.environ = {**m.environ, "LD_LIBRARY_PATH": lib_dir(m, "cusolver")}
    assert fix_env_lines(collect_facts(m.sources())) == [
        f"export LD_LIBRARY_PATH={lib_dir(m, 'cuda_nvrtc')}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"
    ]


def test_scenario_14_nvjitlink_is_found_through_cusparse_runpath(tmp_path):
    m = gpu_machine(tmp_path)
    m.environ = fixed_env(m)
    facts = collect_facts(m.sources())
    nvjitlink = facts.libraries.get("nvjitlink")
    assert nvjitlink.loaded.origin == "runpath" and nvjitlink.loaded_by.endswith("libcusparse.so.12")


def test_scenario_14_nvrtc_not_installed_gives_the_wheel(tmp_path):
    m = gpu_machine(tmp_path, drop=("cuda_nvrtc/",))
    m.environ = fixed_env(m)
    f = find(m.diagnose(), "cuda-dependency-missing")
    assert "libnvrtc.so.12" in f.summary and f.hint.endswith("-m pip install nvidia-cuda-nvrtc-cu12")


def test_scenario_14_dependency_already_loaded_by_tf_counts_as_found(tmp_path):
    from tfgpu.knowledge.libraries import Dependency
    from tfgpu.model.facts import CudaLibrary, LibraryCopy
    from tfgpu.system.libraries import locate_dependencies

    lt = tmp_path / "libcublasLt.so.12"
    lt.write_bytes(b"")
    direct = [
        CudaLibrary("cudnn", "libcudnn.so.9", True, (LibraryCopy(str(tmp_path / "libcudnn.so.9"), "runpath", "9"),)),
        CudaLibrary("cublasLt", "libcublasLt.so.12", True, (LibraryCopy(str(lt), "runpath", "12.5"),)),
    ]
    dep = Dependency("cublasLt", "libcublasLt.so.12", "cublas", "cudnn", "libcudnn_graph.so.9", "x", "")
    (found,) = locate_dependencies([dep], direct, None, [], {}, [], "12", str(tmp_path))
    assert found.loaded == LibraryCopy(str(lt), "loaded", "12.5")


def test_scenario_2_with_ld_library_path_fix_is_healthy(tmp_path):
    m = gpu_machine(tmp_path)
    m.environ = fixed_env(m)
    d = m.diagnose()
    assert errors(d) == []
    ok = find(d, "cuda-libraries")
    assert "cudnn 9.3.0.75" in ok.detail and "cusolver 11.6.3.83" in ok.detail


def test_scenario_no_driver_with_nvidia_gpu_on_bus(tmp_path):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml.no_driver()
    f = find(m.diagnose(), "nvidia-driver-missing")
    assert "ubuntu-drivers" in f.hint


def test_scenario_driver_not_loaded(tmp_path):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml.no_driver("NVMLError_DriverNotLoaded")
    assert "modprobe nvidia" in find(m.diagnose(), "nvidia-driver-not-loaded").hint


def test_scenario_driver_library_kernel_mismatch(tmp_path):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml.no_driver("NVMLError_LibRmVersionMismatch")
    assert "Reboot" in find(m.diagnose(), "nvidia-driver-mismatch").hint


def test_scenario_kernel_module_differs_from_user_space_driver(tmp_path):
    m = gpu_machine(tmp_path)
    (m.root / "proc/driver/nvidia").mkdir(parents=True)
    (m.root / "proc/driver/nvidia/version").write_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15\n")
    assert "570.86.15" in find(m.diagnose(), "nvidia-driver-mismatch").detail


def test_scenario_machine_without_any_gpu(tmp_path):
    m = gpu_machine(tmp_path, tf=None, gpu=False)
    m.nvml = FakeNvml.no_driver()
    assert "CPU" in find(m.diagnose(), "no-nvidia-gpu").summary


def test_scenario_amd_gpu_points_to_rocm(tmp_path):
    m = gpu_machine(tmp_path, tf=None, gpu=False)
    dev = m.root / "sys/bus/pci/devices/0000:03:00.0"
    dev.mkdir(parents=True)
    for name, value in (("vendor", "0x1002"), ("device", "0x740f"), ("class", "0x038000")):
        (dev / name).write_text(value)
    m.nvml = FakeNvml.no_driver()
    assert "tensorflow-rocm" in find(m.diagnose(), "no-nvidia-gpu").hint


def test_scenario_container_started_without_gpus(tmp_path):
    m = gpu_machine(tmp_path, container=True)
    m.nvml = FakeNvml.no_driver()
    assert "--gpus all" in find(m.diagnose(), "container-without-gpu").hint


def test_scenario_wsl_without_windows_driver(tmp_path):
    m = gpu_machine(tmp_path, wsl=True, gpu=False)
    m.nvml = FakeNvml.no_driver()
    assert "Windows" in find(m.diagnose(), "wsl-gpu-driver-missing").hint


def test_scenario_wsl_with_the_windows_driver_but_nvml_failing_says_update_it(tmp_path):
    m = gpu_machine(tmp_path, wsl=True)
    m.nvml = FakeNvml.no_driver()
    f = find(m.diagnose(), "wsl-gpu-driver-missing")
    assert "No Linux driver library was found inside WSL" in f.detail and "wsl --update" in f.hint


def test_scenario_a_linux_driver_installed_inside_wsl_is_named_with_its_package(tmp_path):
    """`sudo apt install nvidia-driver-535` inside WSL2: Ubuntu's libnvidia-compute-535 puts libcuda in /usr/lib."""
    m = gpu_machine(tmp_path, wsl=True)
    m.nvml = FakeNvml.no_driver()
    lib = m.root / "usr/lib/x86_64-linux-gnu"
    lib.mkdir(parents=True)
    for name in ("libcuda.so.535.183.01", "libnvidia-ml.so.535.183.01"):
        (lib / name).write_bytes(b"\x7fELF")
    (lib / "libcuda.so.1").symlink_to("libcuda.so.535.183.01")
    (lib / "libnvidia-ml.so.1").symlink_to("libnvidia-ml.so.535.183.01")
    info = m.root / "var/lib/dpkg/info"
    info.mkdir(parents=True)
    (info / "libnvidia-compute-535:amd64.list").write_text(  # as dpkg -L lists Ubuntu's package
        "/.\n/usr\n/usr/lib\n/usr/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01\n"
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.183.01\n/usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1\n"
    )
    (m.root / "var/lib/dpkg/status").write_text(
        "Package: libnvidia-compute-535\nStatus: install ok installed\nArchitecture: amd64\n"
        "Version: 535.183.01-0ubuntu0.22.04.1\n"
    )
    d = m.diagnose()
    f = find(d, "wsl-linux-driver-inside")
    assert f.severity is Severity.ERROR
    assert "/usr/lib/x86_64-linux-gnu/libcuda.so.1 (deb libnvidia-compute-535 535.183.01-0ubuntu0.22.04.1)" in f.detail
    assert f.hint.startswith("sudo apt-get remove --purge libnvidia-compute-535")
    assert not [x for x in d.findings if x.id == "wsl-gpu-driver-missing"]
    host = d.facts.host
    assert [c.version for c in host.wsl_linux_driver] == ["535.183.01", "535.183.01"]


def test_scenario_tensorflow_cpu_package(tmp_path):
    m = gpu_machine(tmp_path, tf="cpu")
    f = find(m.diagnose(), "tf-built-without-cuda")
    assert "uninstall -y tensorflow-cpu" in f.hint and "'tensorflow[and-cuda]==2.21.*'" in f.hint


def test_scenario_tensorflow_not_installed_recommends_newest_for_this_python(tmp_path):
    m = gpu_machine(tmp_path, tf=None)
    assert "'tensorflow[and-cuda]==2.21.*'" in find(m.diagnose(), "tensorflow-not-installed").hint


def test_scenario_two_tensorflow_distributions(tmp_path):
    m = gpu_machine(tmp_path)
    _dist_info(m.site, "tensorflow-cpu", "2.20.0")
    f = find(m.diagnose(), "tensorflow-multiple-distributions")
    assert "tensorflow-cpu 2.20.0" in f.summary and "uninstall -y tensorflow tensorflow-cpu" in f.hint


def test_scenario_removed_tensorflow_gpu_package(tmp_path):
    m = gpu_machine(tmp_path)
    _dist_info(m.site, "tensorflow-gpu", "2.12.0")
    assert "uninstall -y tensorflow-gpu" in find(m.diagnose(), "tensorflow-gpu-removed").hint


def test_scenario_driver_470_too_old_for_cuda_12_5(tmp_path):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml([FakeGpu()], driver="470.256.02", cuda=11040)
    assert "555.42.06" in find(m.diagnose(), "driver-too-old-for-cuda").hint


def test_scenario_driver_535_runs_only_by_minor_version_compatibility(tmp_path):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml([FakeGpu()], driver="535.183.01", cuda=12020)
    f = find(m.diagnose(), "driver-older-than-cuda-runtime")
    assert f.severity is Severity.WARNING and "555.42.06" in f.hint


def test_scenario_maxwell_gpu_below_tf_2_21_minimum(tmp_path):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml.single_gpu(name="Tesla M40", compute_capability=(5, 2))
    f = find(m.diagnose(), "gpu-compute-capability-too-low")
    assert "'tensorflow[and-cuda]==2.16.*'" in f.hint


def test_scenario_blackwell_gpu_does_not_train_on_the_official_wheel(tmp_path):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml.single_gpu(name="NVIDIA GeForce RTX 5090", compute_capability=(12, 0))
    f = find(m.diagnose(), "gpu-blackwell-unsupported")
    assert f.severity is Severity.ERROR and "2.21.0" in f.summary
    assert "nvcr.io/nvidia/tensorflow" in f.hint and "TF_CUDA_COMPUTE_CAPABILITIES=12.0" in f.hint
    assert "89272" in f.link


def test_scenario_gpu_memory_held_by_another_process(tmp_path):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml.held_by(4242, "python3 train.py", 100)
    f = find(m.diagnose(), "gpu-memory-in-use")
    assert "pid 4242" in f.detail and "100.0 of 140.0 GiB" in f.summary


def test_scenario_gpu_thermal_slowdown(tmp_path):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml.single_gpu(clocks_event_reasons=0x40, temperature_celsius=85)
    d = m.diagnose()
    assert "hw_thermal_slowdown" in find(d, "gpu-throttling").summary
    assert "87 °C" in find(d, "gpu-hot").summary


@pytest.mark.parametrize("value", ["", "-1", "none"])
def test_scenario_cuda_visible_devices_hides_every_gpu(tmp_path, value):
    m = gpu_machine(tmp_path)
    m.environ = {**fixed_env(m), "CUDA_VISIBLE_DEVICES": value}
    assert "unset CUDA_VISIBLE_DEVICES" in find(m.diagnose(), "cuda-visible-devices-hides-all").hint


def test_scenario_cuda_visible_devices_beyond_gpu_count(tmp_path):
    m = gpu_machine(tmp_path)
    m.environ = {**fixed_env(m), "CUDA_VISIBLE_DEVICES": "0,2"}
    assert find(m.diagnose(), "cuda-visible-devices-out-of-range").hint == "export CUDA_VISIBLE_DEVICES=0"


def test_scenario_cudnn_wheel_missing(tmp_path):
    m = gpu_machine(tmp_path, drop=("nvidia/cudnn/",))
    m.environ = fixed_env(m)
    f = find(m.diagnose(), "cuda-library-missing")
    assert "libcudnn.so.9" in f.summary and "'tensorflow[and-cuda]==2.21.*'" in f.hint


def test_scenario_old_cudnn_on_ld_library_path_shadows_wheel(tmp_path):
    m = gpu_machine(tmp_path)
    old = tmp_path / "opt/cudnn-9.1/lib"
    old.mkdir(parents=True)
    (old / "libcudnn.so.9.1.0").write_bytes(b"")
    os.symlink("libcudnn.so.9.1.0", old / "libcudnn.so.9")
    m.environ = {**m.environ, "LD_LIBRARY_PATH": f"{old}:{lib_dir(m, 'cusolver')}"}
    d = m.diagnose()
    assert "'nvidia-cudnn-cu12>=9.3'" in find(d, "cudnn-older-than-build").hint
    assert str(old) in find(d, "ld-library-path-shadows-wheel").hint


def test_scenario_second_cuda_toolkit_on_ld_library_path(tmp_path):
    m = gpu_machine(tmp_path)
    cuda118 = tmp_path / "usr/local/cuda-11.8/lib64"
    cuda118.mkdir(parents=True)
    (cuda118 / "libcudart.so.11.8.89").write_bytes(b"")
    os.symlink("libcudart.so.11.8.89", cuda118 / "libcudart.so.11.0")
    m.environ = {**fixed_env(m), "LD_LIBRARY_PATH": f"{cuda118}:{lib_dir(m, 'cusolver')}"}
    f = find(m.diagnose(), "ld-library-path-other-cuda")
    assert "11.8.89" in f.summary and str(cuda118) in f.hint


def test_scenario_ptxas_missing_for_xla(tmp_path):
    m = gpu_machine(tmp_path, drop=("nvidia/cuda_nvcc/",))
    m.environ = fixed_env(m)
    assert "nvidia-cuda-nvcc-cu12" in find(m.diagnose(), "xla-ptxas-missing").hint


def test_scenario_keras_2_with_tf_2_21(tmp_path):
    m = gpu_machine(tmp_path)
    for info in m.site.glob("keras-*.dist-info"):
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: keras\nVersion: 2.15.0\n")
    assert "'keras>=3'" in find(m.diagnose(), "keras-version-mismatch").hint


def test_scenario_tf_keras_of_another_release(tmp_path):
    m = gpu_machine(tmp_path)
    _dist_info(m.site, "tf-keras", "2.15.1")
    assert "'tf-keras==2.21.*'" in find(m.diagnose(), "tf-keras-version-mismatch").hint


def test_scenario_cudnn_8_wheel_with_tf_2_21(tmp_path):
    m = gpu_machine(tmp_path)
    m.environ = fixed_env(m)
    for info in m.site.glob("nvidia_cudnn_cu12-*.dist-info"):
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nvidia-cudnn-cu12\nVersion: 8.9.7.29\n")
    f = find(m.diagnose(), "cuda-library-version-mismatch")
    assert "nvidia-cudnn-cu12 8.9.7.29" in f.summary and ">=9.3.0.75" in f.hint


def test_scenario_invalid_tf_gpu_allocator(tmp_path):
    m = gpu_machine(tmp_path)
    m.environ = {**fixed_env(m), "TF_GPU_ALLOCATOR": "cuda_malloc"}
    assert "cuda_malloc_async" in find(m.diagnose(), "tf-gpu-allocator-invalid").hint


def test_scenario_xla_flags_point_at_missing_cuda(tmp_path):
    m = gpu_machine(tmp_path)
    m.environ = {**fixed_env(m), "XLA_FLAGS": "--xla_gpu_cuda_data_dir=/opt/nowhere"}
    assert "/opt/nowhere" in find(m.diagnose(), "xla-cuda-data-dir-missing").summary


def test_scenario_gpu_fell_off_the_bus(tmp_path):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml.single_gpu(memory_info=nvml_error("NVMLError_GpuIsLost", "nvml:nvmlDeviceGetMemoryInfo"))
    assert "Xid 79" in find(m.diagnose(), "gpu-lost").hint


def _with_host(m, **changes) -> Diagnosis:
    facts = collect_facts(m.sources())
    assert isinstance(facts.host, HostFacts)
    return diagnose(replace(facts, host=replace(facts.host, **changes)))


def test_scenario_native_windows_with_tf_2_21(tmp_path):
    m = gpu_machine(tmp_path)
    f = find(_with_host(m, os_name="Windows"), "windows-native-no-gpu")
    assert "WSL2" in f.hint and "tensorflow<2.11" in f.hint


def test_scenario_python_newer_than_every_tf_release(tmp_path):
    m = gpu_machine(tmp_path, tf=None)
    f = find(_with_host(m, python_version="3.14.0"), "python-too-new-for-tensorflow")
    assert "python3.13 -m venv" in f.hint and "tensorflow[and-cuda]==2.21.*" in f.hint


def test_scenario_mig_enabled_gpu(tmp_path):
    m = gpu_machine(tmp_path)
    m.environ = fixed_env(m)
    m.nvml = FakeNvml.single_gpu(mig_mode=True)
    assert "MIG-<uuid>" in find(m.diagnose(), "gpu-mig-enabled").hint


def test_every_finding_id_is_documented():
    docs = Path(__file__).parents[3] / "docs" / "findings.md"
    documented = docs.read_text()

    src = Path(__file__).parents[3] / "src" / "tfgpu" / "doctor"
    ids = set()
    for path in src.rglob("*.py"):
        text = path.read_text()
        ids.update(re.findall(r'Finding\(\s*"([a-z0-9-]+)"', text))
        ids.update(
            f"collector-{p}-failed" for p in re.findall(r'"(host|packages|tensorflow|libraries|gpus|environ)"', text)
        )
    missing = sorted(i for i in ids if f"`{i}`" not in documented)
    assert ids and not missing, missing


def test_scenario_nvml_binding_missing_falls_back_to_recorded_nvidia_smi(tmp_path):
    from tests.fakes.runner import FakeCommandRunner

    m = gpu_machine(tmp_path)
    m.environ = fixed_env(m)
    m.nvml = FakeNvml.no_driver("BindingMissing")
    m.runner = FakeCommandRunner.from_recording("h200")
    d = m.diagnose()
    assert "nvidia-ml-py" in find(d, "nvml-binding-missing").hint
    assert find(d, "gpu-present").summary.startswith("GPU 0 (NVIDIA H200), compute capability 9.0")
    assert d.facts.driver.source == "nvidia-smi" and errors(d) == []


def test_fix_env_lines_and_write_never_overwrite(tmp_path):
    import io

    from tfgpu.cli.environment import CliEnvironment
    from tfgpu.doctor.examine import env_fix
    from tfgpu.model.errors import UsageError

    m = gpu_machine(tmp_path)
    fix = env_fix(collect_facts(m.sources()))
    assert fix.lines == (
        fixed_env(m)["LD_LIBRARY_PATH"].join(("export LD_LIBRARY_PATH=", "${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")),
    )
    cli = CliEnvironment(io.StringIO(), io.StringIO(), io.StringIO(), {}, color=False)
    target = tmp_path / "tf-env.sh"
    cli.create(str(target), fix.lines[0] + "\n")
    assert fix.lines[0] in target.read_text()
    with pytest.raises(UsageError, match="never overwrites"):
        cli.create(str(target), "other\n")
    assert target.read_text() == fix.lines[0] + "\n"
    m.environ = fixed_env(m)
    fixed = env_fix(collect_facts(m.sources()))
    assert fixed.lines == () and fixed.nothing_to_fix == "TF finds every library it needs"


def test_scenario_four_gpus_on_two_sockets_names_a_pair_on_one_socket(tmp_path):
    m = gpu_machine(tmp_path)
    near = {(0, 1): "numa-node", (2, 3): "numa-node"}
    m.nvml = FakeNvml([FakeGpu(), FakeGpu(), FakeGpu(), FakeGpu()], links=near)  # the rest: "system"
    diagnosis = m.diagnose()
    f = find(diagnosis, "gpus-linked-across-cpus")
    assert "GPU 0-2, GPU 0-3, GPU 1-2, GPU 1-3" in f.summary and "gpus='0,1'" in f.hint
    assert "to GPU 1 through one NUMA node's host bridges (NODE), GPU 2 across the CPUs' interconnect (SYS)" in (
        gpu_line_of(diagnosis, 0)
    )


def test_scenario_nvlink_everywhere_has_no_topology_finding(tmp_path):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml([FakeGpu(nvlinks_active=18), FakeGpu(nvlinks_active=18)], links={(0, 1): "nvlink"})
    diagnosis = m.diagnose()
    assert "gpus-linked-across-cpus" not in {f.id for f in diagnosis.findings}
    assert "18 NVLink links up; to GPU 1 over NVLink" in gpu_line_of(diagnosis, 0)


def gpu_line_of(diagnosis, index):
    from tfgpu.report.text import gpu_line

    return gpu_line(diagnosis.facts.gpus[index])


def test_scenario_keras3_on_a_gpu_is_told_that_auto_means_xla(tmp_path):
    m = gpu_machine(tmp_path)
    m.environ = fixed_env(m)
    f = find(m.diagnose(), "keras-xla-by-default")
    assert f.severity.value == "info" and "jit_compile=False" in f.hint
    m.environ = {**fixed_env(m), "TF_USE_LEGACY_KERAS": "1"}  # tf-keras: jit_compile defaults to off
    assert "keras-xla-by-default" not in {x.id for x in m.diagnose().findings}
    m.environ = fixed_env(m)
    m.nvml = FakeNvml([])
    assert "keras-xla-by-default" not in {x.id for x in m.diagnose().findings}


def test_scenario_keras3_on_a_gpu_is_told_its_batch_norm_runs_unfused(tmp_path):
    """Issue 16: half of Keras 3's ResNet-50 step on the H200 was its BatchNormalization as separate ops."""
    m = gpu_machine(tmp_path)
    m.environ = fixed_env(m)
    f = find(m.diagnose(), "keras-batchnorm-unfused")
    assert f.severity.value == "info" and 'tfgpu.setup(batchnorm="fused")' in f.hint and "1.9x" in f.detail
    for extra in ({"TF_USE_LEGACY_KERAS": "1"}, {"KERAS_BACKEND": "jax"}, {"CUDA_VISIBLE_DEVICES": "-1"}):
        m.environ = {**fixed_env(m), **extra}  # tf-keras fuses; another backend; no GPU for TF
        assert "keras-batchnorm-unfused" not in {x.id for x in m.diagnose().findings}, extra


def test_scenario_keras_xla_note_is_silent_when_tf_will_not_use_the_gpu(tmp_path):
    m = gpu_machine(tmp_path)
    m.environ = {**fixed_env(m), "CUDA_VISIBLE_DEVICES": ""}
    assert "keras-xla-by-default" not in {x.id for x in m.diagnose().findings}


def test_issue_23_env_with_a_library_not_installed_says_what_to_install_not_that_all_is_found(tmp_path):
    from tfgpu.knowledge.fixes import fix_env_lines, not_installed, nothing_to_fix

    m = gpu_machine(tmp_path, drop=("nvidia/cudnn/",))
    facts = collect_facts(m.sources(), tfgpu_version="test")
    assert not [line for line in fix_env_lines(facts) if "cudnn" in line]
    said = not_installed(facts)
    assert said and "libcudnn.so.9" in said and "tensorflow[and-cuda]" in said
    assert nothing_to_fix(facts) == said


def test_scenario_pytorch_pinned_the_cudnn_tf_loads(tmp_path):
    """`pip install torch==2.5.1` (cu124) after TF: its pin replaced TF's cuDNN 9.3 wheel with 9.1.0.70."""
    m = gpu_machine(tmp_path)
    site = m.site
    assert site is not None
    shutil.rmtree(site / "nvidia_cudnn_cu12-9.3.0.75.dist-info")
    _dist_info(site, "nvidia-cudnn-cu12", "9.1.0.70")
    torch = site / "torch-2.5.1.dist-info"
    torch.mkdir()
    # the metadata of torch 2.5.1's wheel for CUDA 12.4, as pip's --report gives it (scripts/h200_issue29.sh)
    shutil.copy(FIXTURES / "packages/torch-2.5.1-METADATA", torch / "METADATA")
    m.environ = fixed_env(m)
    f = find(m.diagnose(), "cudnn-older-than-build")
    assert f.severity is Severity.ERROR and "cuDNN 9.1.0.70 is older than the 9.3" in f.summary
    assert "torch 2.5.1 pins nvidia-cudnn-cu12==9.1.0.70" in f.detail and "keeps both frameworks working" in f.detail
    assert f.hint.endswith("install --upgrade 'nvidia-cudnn-cu12>=9.3'") and "pytorch" in f.link


@pytest.mark.parametrize("tf", ["gpu", "cpu", None])
def test_scenario_a_machine_without_an_nvidia_gpu_is_offered_no_cuda(tmp_path, tf):
    """A laptop with no NVIDIA GPU: the answer is that TF runs on the CPU, not 3 GB of CUDA wheels or NCCL."""
    m = gpu_machine(tmp_path, tf=tf, gpu=False)
    m.nvml = FakeNvml.no_driver()
    d = m.diagnose()
    assert find(d, "no-nvidia-gpu").summary == "No NVIDIA GPU found: TensorFlow will run on the CPU"
    offered = " ".join(f"{f.hint} {f.detail}" for f in d.findings)
    assert "and-cuda" not in offered and "nvidia-nccl" not in offered and "LD_LIBRARY_PATH" not in offered
    if tf == "cpu":
        assert find(d, "tf-built-without-cuda").severity is Severity.INFO
    if tf is None:
        assert find(d, "tensorflow-not-installed").hint.endswith("install 'tensorflow==2.21.*'")


def test_scenario_a_container_without_gpu_access_still_gets_the_cuda_build_fix(tmp_path):
    """Inside a container the GPU may be on the host: the CPU build is still the problem to fix there."""
    m = gpu_machine(tmp_path, tf="cpu", container=True)
    m.nvml = FakeNvml.no_driver()
    d = m.diagnose()
    assert find(d, "tf-built-without-cuda").severity is Severity.ERROR
    assert "and-cuda" in find(d, "tf-built-without-cuda").hint


def test_scenario_tensorflow_gpu_2_10_is_replaced_not_given_an_extra_it_lacks(tmp_path):
    """The and-cuda extra starts at TF 2.14: `tensorflow[and-cuda]==2.10.*` installs 2.10 with no CUDA at all."""
    m = gpu_machine(tmp_path)
    assert m.site is not None
    shutil.rmtree(m.site / "tensorflow-2.21.0.dist-info")
    _dist_info(m.site, "tensorflow-gpu", "2.10.1")
    m.environ = fixed_env(m)
    hint = find(m.diagnose(), "python-unsupported-by-tensorflow").hint
    assert re.search(
        r"pip uninstall -y tensorflow-gpu && \S+ -m pip install 'tensorflow\[and-cuda\]==2\.\d\d\.\*'$", hint
    )
    assert "==2.10" not in hint


def test_scenario_two_tensorflow_distributions_are_uninstalled_once_then_reinstalled(tmp_path):
    m = gpu_machine(tmp_path)
    assert m.site is not None
    _dist_info(m.site, "tensorflow-gpu", "2.10.1")
    m.environ = fixed_env(m)
    hint = find(m.diagnose(), "tensorflow-multiple-distributions").hint
    assert hint.count("uninstall") == 1 and hint.count("tensorflow-gpu") == 1
    assert hint.endswith("install 'tensorflow[and-cuda]==2.21.*'")


def _system_ptxas(m, version: str) -> str:
    """A system CUDA's ptxas in /usr/local/cuda/bin, on PATH, answering --version as that release does."""
    bin_dir = m.root / "usr/local/cuda/bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "ptxas").write_text("")
    major_minor = ".".join(version.split(".")[:2])
    m.runner.results[(str(bin_dir / "ptxas"), "--version")] = CommandResult(
        0,
        f"ptxas: NVIDIA (R) Ptx optimizing assembler\nCuda compilation tools, release {major_minor}, V{version}\n",
        "",
    )
    m.environ = {**fixed_env(m), "PATH": f"{bin_dir}:/usr/bin:/bin"}
    return str(bin_dir / "ptxas")


def test_scenario_an_old_system_ptxas_on_path_shadows_the_wheels(tmp_path):
    """XLA runs the first ptxas >= 11.8 on --xla_gpu_cuda_data_dir, PATH, /usr/local/cuda …, the wheel last."""
    m = gpu_machine(tmp_path)
    system = _system_ptxas(m, "12.0.140")
    d = m.diagnose()
    f = find(d, "xla-ptxas-older-than-build")
    assert system in f.summary and "12.0.140" in f.summary and "CUDA 12.5.1" in f.summary
    assert f.hint == f'export XLA_FLAGS="${{XLA_FLAGS:-}} --xla_gpu_cuda_data_dir={m.site}/nvidia/cuda_nvcc"'
    assert "on PATH" in f.detail and "12.5.82" in f.detail


def test_scenario_a_ptxas_xla_skips_for_its_version_leaves_the_wheels_in_use(tmp_path):
    m = gpu_machine(tmp_path)
    _system_ptxas(m, "11.7.99")  # below XLA's minimum of 11.8: passed over
    d = m.diagnose()
    assert "xla-ptxas-older-than-build" not in [f.id for f in d.findings]
    libs = d.facts.libraries
    assert libs.get("ptxas").loaded.origin == "wheel"


def test_scenario_keras_on_jax_without_its_cuda_plugin_trains_on_the_cpu(tmp_path):
    m = gpu_machine(tmp_path)
    assert m.site is not None
    _dist_info(m.site, "jax", "0.8.1")
    m.environ = {**fixed_env(m), "KERAS_BACKEND": "jax"}
    d = m.diagnose()
    f = find(d, "keras-backend-without-gpu")
    assert "JAX has no CUDA plugin" in f.summary and f.hint.endswith("install --upgrade 'jax[cuda12]'")
    assert "keras-xla-by-default" not in [x.id for x in d.findings]  # TF's XLA does not train this model
    _dist_info(m.site, "jax-cuda12-plugin", "0.8.1")
    assert find(m.diagnose(), "keras-backend-not-tensorflow").severity is Severity.INFO


def test_scenario_keras_on_a_cpu_only_pytorch(tmp_path):
    m = gpu_machine(tmp_path)
    assert m.site is not None
    _dist_info(m.site, "torch", "2.5.1+cpu")
    m.environ = {**fixed_env(m), "KERAS_BACKEND": "torch"}
    f = find(m.diagnose(), "keras-backend-without-gpu")
    assert "torch 2.5.1+cpu is a CPU-only build" in f.summary and "download.pytorch.org/whl/cu126" in f.hint


def test_scenario_legacy_keras_asked_for_but_not_installed(tmp_path):
    m = gpu_machine(tmp_path)
    m.environ = {**fixed_env(m), "TF_USE_LEGACY_KERAS": "1"}
    assert find(m.diagnose(), "tf-keras-missing").hint.endswith("install 'tf-keras==2.21.*'")


def test_scenario_conda_forge_cpu_variant_gets_the_conda_fix(tmp_path):
    """conda-forge ships TF as cuda… and cpu_… builds of one name; pip's fix would mix two installers."""
    m = gpu_machine(tmp_path, tf="cpu")
    assert m.site is not None
    shutil.rmtree(m.site / "tensorflow_cpu-2.21.0.dist-info")
    _dist_info(m.site, "tensorflow", "2.21.0")
    (m.site / "tensorflow-2.21.0.dist-info" / "INSTALLER").write_text("conda\n")
    m.environ = {**m.environ, "CONDA_PREFIX": "/opt/conda/envs/tf"}
    f = find(m.diagnose(), "tf-built-without-cuda")
    assert "conda-forge's CPU-only variant" in f.summary and "pip" not in f.hint
    assert (
        f.hint == "CONDA_OVERRIDE_CUDA=12.0 conda install -p /opt/conda/envs/tf -c conda-forge 'tensorflow=2.21=cuda*'"
    )


def test_scenario_an_ngc_image_newer_than_the_hosts_driver(tmp_path):
    m = gpu_machine(tmp_path, container=True)
    image = {"NVIDIA_TENSORFLOW_VERSION": "25.12-tf2-py3", "NVIDIA_BUILD_ID": "231234"}
    m.environ = {**fixed_env(m), **image, "NVIDIA_REQUIRE_CUDA": "cuda>=13.1 brand=tesla,driver>=535,driver<536"}
    d = m.diagnose()
    f = find(d, "container-needs-newer-driver")
    assert "NGC TensorFlow 25.12-tf2-py3 image needs CUDA 13.1" in f.summary and "up to 13.0" in f.summary
    rows = dict(version_rows(d.facts))
    assert rows["Container"] == "NVIDIA NGC TensorFlow 25.12-tf2-py3 (build 231234)"
    m.environ["NVIDIA_REQUIRE_CUDA"] = "cuda>=12.8 brand=tesla,driver>=535,driver<536"
    assert "container-needs-newer-driver" not in [x.id for x in m.diagnose().findings]


def test_scenario_a_driver_older_than_the_wheels_ptxas_makes_xla_compile_serially(tmp_path):
    """Driver 535 (CUDA 12.2) with the wheel's ptxas 12.5: XLA logs that it disables parallel compilation."""
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml([FakeGpu()], driver="535.183.01", cuda=12020)
    m.environ = fixed_env(m)
    f = find(m.diagnose(), "xla-ptxas-newer-than-driver")
    assert "supports CUDA 12.2, older than ptxas 12.5.82" in f.summary
    assert "disabling parallel compilation" in f.detail and "CUDA 12.5 (555.42.02 or newer)" in f.hint
    healthy = gpu_machine(tmp_path / "new")  # the H200's driver 580 (CUDA 13.0)
    healthy.environ = fixed_env(healthy)
    assert "xla-ptxas-newer-than-driver" not in [x.id for x in healthy.diagnose().findings]


def test_scenario_official_tensorflow_gpu_image_carries_cudnn_8(tmp_path):
    """tensorflow/tensorflow:2.19.0-gpu as tensorflow/build#221 reports it: TF from pip without the
    and-cuda extra, cuDNN from the image's libcudnn8 8.9.6 package, the image's tf-docker bashrc.

    The other CUDA libraries come from the wheels here (the image has them from apt): the case is cuDNN's.
    """
    m = gpu_machine(tmp_path, drop=("nvidia/cudnn/",), container=True)
    (m.root / "etc").mkdir(parents=True, exist_ok=True)
    (
        m.root / "etc/bash.bashrc"
    ).write_text(  # the prompt line of tensorflow/build's tensorflow_runtime_dockerfiles/bashrc
        '[ -z "$PS1" ] && return\nexport PS1="\\[\\e[31m\\]tf-docker\\[\\e[m\\] \\[\\e[33m\\]\\w\\[\\e[m\\] > "\nldconfig\n'
    )
    apt = m.root / "usr/lib/x86_64-linux-gnu"
    apt.mkdir(parents=True, exist_ok=True)
    (apt / "libcudnn.so.8.9.6").write_bytes(b"")
    os.symlink("libcudnn.so.8.9.6", apt / "libcudnn.so.8")
    m.environ = fixed_env(m)
    d = m.diagnose()
    assert d.facts.host.image is ContainerImage.OFFICIAL_TENSORFLOW
    f = find(d, "container-official-image-cudnn8")
    assert f.severity is Severity.ERROR and "TF 2.21.0 needs cuDNN 9.3" in f.summary
    assert f.hint.endswith("install 'tensorflow[and-cuda]==2.21.0'") and f.link.endswith("build/issues/221")
    # the same machine outside that image: the generic missing-library finding, not this one
    (m.root / "etc/bash.bashrc").write_text("# a distribution's bashrc\n")
    assert "container-official-image-cudnn8" not in {x.id for x in m.diagnose().findings}


def _old_cudnn(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "libcudnn.so.9.1.0").write_bytes(b"")
    os.symlink("libcudnn.so.9.1.0", directory / "libcudnn.so.9")


def test_scenario_a_conda_cudnn_on_ld_library_path_is_upgraded_with_conda(tmp_path):
    """The old install guides' `export LD_LIBRARY_PATH=$CONDA_PREFIX/lib/` with conda-forge's cudnn 9.1 in the env."""
    m = gpu_machine(tmp_path)
    prefix = tmp_path / "miniconda3/envs/tf"
    _old_cudnn(prefix / "lib")
    (prefix / "conda-meta").mkdir(parents=True)
    (prefix / "conda-meta/cudnn-9.1.0.70-h6b3ab6c_0.json").write_text(
        json.dumps({"name": "cudnn", "version": "9.1.0.70", "files": ["lib/libcudnn.so.9", "lib/libcudnn.so.9.1.0"]})
    )
    m.environ = {**fixed_env(m), "CONDA_PREFIX": str(prefix)}
    m.environ["LD_LIBRARY_PATH"] = f"{prefix / 'lib'}:{m.environ['LD_LIBRARY_PATH']}"
    d = m.diagnose()
    f = find(d, "cudnn-older-than-build")
    assert "(installed by conda cudnn 9.1.0.70)" in f.detail
    assert f.hint == "conda install -c conda-forge 'cudnn>=9.3'"
    from tfgpu.model.codec import decode, encode

    cudnn = d.facts.libraries.get("cudnn")
    assert decode(type(cudnn.loaded), encode(cudnn.loaded)) == cudnn.loaded  # the owner survives --json / --from


def test_scenario_a_system_cudnn_from_apt_is_upgraded_with_apt(tmp_path):
    m = gpu_machine(tmp_path)
    system = m.root / "usr/lib/x86_64-linux-gnu"
    _old_cudnn(system)
    info = m.root / "var/lib/dpkg/info"
    info.mkdir(parents=True)
    (info / "libcudnn9-cuda-12.list").write_text(  # as dpkg -L lists NVIDIA's package
        "/.\n/usr\n/usr/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0\n"
        "/usr/lib/x86_64-linux-gnu/libcudnn.so.9\n"
    )
    (m.root / "var/lib/dpkg/status").write_text(
        "Package: libc6\nStatus: install ok installed\nVersion: 2.35-0ubuntu3\n\n"
        "Package: libcudnn9-cuda-12\nStatus: install ok installed\nArchitecture: amd64\nVersion: 9.1.0.70-1\n"
    )
    m.environ = fixed_env(m)
    m.environ["LD_LIBRARY_PATH"] = f"{system}:{m.environ['LD_LIBRARY_PATH']}"
    f = find(m.diagnose(), "cudnn-older-than-build")
    assert "(installed by deb libcudnn9-cuda-12 9.1.0.70-1)" in f.detail
    assert f.hint.startswith("sudo apt-get install cudnn9-cuda-12")


def test_a_windows_machines_hints_set_variables_in_cmd_and_powershell(tmp_path):
    """Windows has no `export`: the doctor's hints there are typed in cmd (or the Anaconda Prompt) or PowerShell."""
    m = gpu_machine(tmp_path)
    m.environ["TF_FORCE_GPU_ALLOW_GROWTH"] = "1"
    facts = collect_facts(m.sources(), tfgpu_version="test")
    assert find(diagnose(facts), "tf-allow-growth-invalid").hint == "export TF_FORCE_GPU_ALLOW_GROWTH=true"
    windows = replace(facts, host=replace(facts.host, os_name="Windows"))
    hint = find(diagnose(windows), "tf-allow-growth-invalid").hint
    assert hint == 'set TF_FORCE_GPU_ALLOW_GROWTH=true (PowerShell: $env:TF_FORCE_GPU_ALLOW_GROWTH="true")'


def nvjitlink_first(m, directory: Path, release: str) -> Path:
    """A bare libnvJitLink.so.12 of ``release`` (its recorded symbols) in ``directory``, first on the fixed LD_LIBRARY_PATH."""
    defines = tuple(NVJITLINK_SYMBOLS[f"nvjitlink-{release}-defines"])
    write_elf(directory / "libnvJitLink.so.12", soname="libnvJitLink.so.12", defines=defines)
    m.environ = {**fixed_env(m), "LD_LIBRARY_PATH": f"{directory}:{fixed_env(m)['LD_LIBRARY_PATH']}"}
    return directory


def test_scenario_older_nvjitlink_on_ld_library_path_is_an_error_and_older_cudart_a_warning(tmp_path):
    """Set t on the H100 (TF 2.21): CUDA 12.1's nvJitLink ahead of the wheels made cuSPARSE fail to load and TF register
    no GPU; CUDA 12.0's cudart ahead of them changed nothing the run showed. The doctor tells them apart by the symbols
    cuSPARSE binds, not by a version: the copy the 2026-12-07 H100 run put first was a bare libnvJitLink.so.12."""
    m = gpu_machine(tmp_path)
    old = nvjitlink_first(m, tmp_path / "opt/nvjitlink-12.1", "12.1.105")
    (old / "libcudart.so.12.0.107").write_bytes(b"")
    os.symlink("libcudart.so.12.0.107", old / "libcudart.so.12")
    before = m.diagnose()
    shadows = {f.summary.split()[4]: f for f in before.findings if f.id == "ld-library-path-shadows-wheel"}
    assert "cuda-libraries" not in [
        f.id for f in before.findings
    ]  # no "all reachable" beside a library that cannot load
    nvjitlink = shadows["libnvJitLink.so.12"]
    assert nvjitlink.severity is Severity.ERROR and "lacks symbols libcusparse.so.12 needs" in nvjitlink.summary
    assert "__nvJitLinkAddData_12_5" in nvjitlink.detail and "registers no GPU" in nvjitlink.detail
    assert nvjitlink.hint.startswith(f"Remove {old} from LD_LIBRARY_PATH.") and "tfgpu env" in nvjitlink.hint
    assert shadows["libcudart.so.12"].severity is Severity.WARNING
    # `tfgpu env` puts the wheel's copy ahead of the old one, leaving the user's directories in place
    shadowed = m.environ["LD_LIBRARY_PATH"]
    assert fix_env_lines(collect_facts(m.sources())) == [
        f"export LD_LIBRARY_PATH={lib_dir(m, 'nvjitlink')}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"
    ]
    m.environ = {**m.environ, "LD_LIBRARY_PATH": f"{lib_dir(m, 'nvjitlink')}:{shadowed}"}
    after = m.diagnose()
    assert "ld-library-path-shadows-wheel" not in errors(after) and fix_env_lines(after.facts) == []
    assert find(after, "cuda-libraries").severity is Severity.OK


def test_scenario_a_newer_nvjitlink_on_ld_library_path_is_only_a_warning(tmp_path):
    """A copy that defines every symbol cuSPARSE binds (the wheel's own, elsewhere) loads: only the shadowing is said."""
    m = gpu_machine(tmp_path)
    nvjitlink_first(m, tmp_path / "opt/nvjitlink-12.5", "12.5.82")
    facts = collect_facts(m.sources(), tfgpu_version="test")
    assert facts.libraries.get("nvjitlink").loaded.lacks == ()
    assert "ld-library-path-shadows-wheel" not in errors(diagnose(facts))


def test_scenario_an_older_nvjitlink_wheel_than_cusparse_needs_says_upgrade_it(tmp_path):
    """pip can resolve an older nvidia-nvjitlink-cu12 than nvidia-cusparse-cu12 needs (NVIDIA/cuvs#1794): the wheel's
    own copy, where cuSPARSE's RUNPATH finds it, lacks the symbols cuSPARSE binds."""
    m = gpu_machine(tmp_path)
    wheel = Path(lib_dir(m, "nvjitlink")) / "libnvJitLink.so.12"
    write_elf(wheel, soname="libnvJitLink.so.12", defines=tuple(NVJITLINK_SYMBOLS["nvjitlink-12.1.105-defines"]))
    m.environ = fixed_env(m)
    d = m.diagnose()
    f = find(d, "cuda-dependency-lacks-symbols")
    assert "cuda-libraries" not in [f.id for f in d.findings]
    assert (
        f.severity is Severity.ERROR
        and f.summary == "libcusparse.so.12 cannot load: its libnvJitLink.so.12 lacks symbols it binds"
    )
    assert "__nvJitLinkAddData_12_5" in f.detail and str(wheel) in f.detail
    assert f.hint.endswith("-m pip install --upgrade nvidia-nvjitlink-cu12")
    # `tfgpu env` has no line to offer (no copy here defines the symbols) and says so, with the same upgrade
    fix = env_fix(d.facts)
    assert fix.lines == () and fix.nothing_to_fix.startswith(f"{wheel} lacks symbols libcusparse.so.12 binds")
    assert fix.nothing_to_fix.endswith(f.hint)
