from tests.fakes.cli import mock_environment, run_cli
from tests.fakes.nvml import FakeNvml

from tfgpu.cli.exit_status import ExitStatus


def test_monitor_once_prints_every_gpu_with_throttle_reasons_in_words():
    env = mock_environment(FakeNvml.from_recording("h200", "under_load"))
    result = run_cli("monitor", "--once", env=env)
    assert result.exit_status == ExitStatus.SUCCESS
    assert "NVIDIA H200" in result.stdout and "power cap" in result.stdout and "pid 439" in result.stdout


def test_monitor_without_nvidia_says_so():
    result = run_cli("monitor", "--once")
    assert result.exit_status == ExitStatus.NO_GPU and "no NVIDIA GPU to monitor" in result.stderr


def test_monitor_duration_logs_csv_and_ends_with_a_verdict(tmp_path):
    log = tmp_path / "gpu.csv"
    env = mock_environment(FakeNvml.single_gpu())
    result = run_cli("monitor", "--interval", "0.01", "--duration", "0.05", "--csv", str(log), env=env)
    assert result.exit_status == ExitStatus.SUCCESS and "Verdict:" in result.stdout
    assert len(log.read_text().splitlines()) >= 3


def test_monitor_bad_arguments_are_usage_errors():
    env = mock_environment(FakeNvml.single_gpu())
    assert run_cli("monitor", "--interval", "0", env=env).exit_status == ExitStatus.USAGE
    assert run_cli("monitor", "--watch", "999999999", env=env).exit_status == ExitStatus.USAGE


def test_monitor_once_reports_how_several_gpus_are_linked():
    from tests.fakes.nvml import FakeGpu

    nvml = FakeNvml([FakeGpu(), FakeGpu(), FakeGpu()], links={(0, 1): "nvlink", (1, 2): "pcie-switch"})
    result = run_cli("monitor", "--once", env=mock_environment(nvml))
    assert result.exit_status == ExitStatus.SUCCESS
    assert "GPU 0 - GPU 1: over NVLink" in result.stdout
    assert "GPU 0 - GPU 2: across the CPUs' interconnect (SYS)" in result.stdout
    assert "GPU 1 - GPU 2: through one PCIe switch (PIX)" in result.stdout
    single = run_cli("monitor", "--once", env=mock_environment(FakeNvml.from_recording("h200")))
    assert " - GPU " not in single.stdout
