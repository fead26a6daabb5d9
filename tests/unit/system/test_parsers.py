import json
from pathlib import Path

import pytest
from tests.fakes.runner import FakeCommandRunner

from tfgpu.system.libraries import parse_ldconfig, read_ld_cache, search_order
from tfgpu.system.nvidia_smi import QUERY_FIELDS, collect_with_nvidia_smi, parse_query
from tfgpu.system.runner import CommandResult
from tfgpu.system.tf_install import parse_build_info

FIXTURES = Path(__file__).parents[2] / "fixtures"


def test_parse_ldconfig_on_recorded_output():
    recorded = json.loads((FIXTURES / "commands/cpu-vm-no-driver.json").read_text())["ldconfig-p"]["stdout"]
    cache = parse_ldconfig(recorded)
    assert "libc.so.6" in cache and all(p.startswith("/") for paths in cache.values() for p in paths)


def test_read_ld_cache_when_ldconfig_is_missing_or_hangs():
    assert read_ld_cache(FakeCommandRunner()).reason == "ldconfig not found"
    hung = FakeCommandRunner({("ldconfig", "-p"): CommandResult(None, "", "", timed_out=True)})
    assert "timed out" in read_ld_cache(hung).reason


def test_search_order_is_ld_library_path_then_runpath_then_cache_then_defaults():
    # ld.so(8): "A zero-length directory name indicates the current working directory" (issue 25: it was dropped)
    order = search_order("/opt/a::/opt/b", ["/sp/nvidia/cublas/lib", "/opt/a"], ["/usr/lib/x86_64-linux-gnu"])
    assert [(d.path, d.origin) for d in order][:5] == [
        ("/opt/a", "ld_library_path"),
        (".", "ld_library_path"),
        ("/opt/b", "ld_library_path"),
        ("/sp/nvidia/cublas/lib", "runpath"),
        ("/usr/lib/x86_64-linux-gnu", "ld_cache"),
    ]
    assert order[-1].origin == "default"


def test_parse_build_info_of_the_real_gpu_wheel():
    info = parse_build_info((FIXTURES / "tf/build_info-2.21.0-gpu.py").read_text())
    assert info.is_cuda_build and info.cuda_version == "12.5.1" and info.cudnn_version == "9"
    assert info.compute_capabilities[-1] == "compute_90"


@pytest.mark.parametrize("source", ["", "x = 1", "build_info = 'nonsense'"])
def test_parse_build_info_rejects_files_without_the_dict(source):
    with pytest.raises((ValueError, TypeError)):
        parse_build_info(source)


def test_nvidia_smi_query_line_parses_and_marks_missing_values():
    line = "0, NVIDIA H200, GPU-1, 00000000:00:05.0, 580.159.04, 9.0, 143771, 0, 30, 75.12, 700.00, 345, 1980, 0, Enabled, [N/A], Enabled"
    driver, gpus = parse_query(line + "\n")
    assert driver.driver_version == "580.159.04" and driver.source == "nvidia-smi"
    gpu = gpus[0]
    assert gpu.compute_capability == "9.0" and gpu.memory_total_bytes == 143771 * 1024 * 1024
    assert gpu.power_draw_watts == pytest.approx(75.12) and gpu.persistence_mode is True
    assert "N/A" in gpu.mig_mode.reason


def test_nvidia_smi_missing_timed_out_and_failing():
    argv = ("nvidia-smi", f"--query-gpu={','.join(QUERY_FIELDS)}", "--format=csv,noheader,nounits")
    assert collect_with_nvidia_smi(FakeCommandRunner()).reason == "nvidia-smi is not installed"
    hung = FakeCommandRunner({argv: CommandResult(None, "", "", timed_out=True)})
    assert "did not answer" in collect_with_nvidia_smi(hung).reason
    failing = FakeCommandRunner(
        {argv: CommandResult(9, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.", "")}
    )
    assert "couldn't communicate" in collect_with_nvidia_smi(failing).reason
    garbage = FakeCommandRunner({argv: CommandResult(0, "\x00\x01 garbage", "")})
    assert "no GPU rows" in collect_with_nvidia_smi(garbage).reason
