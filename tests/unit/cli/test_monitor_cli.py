from tests.fakes.cli import mock_environment, run_cli
from tests.fakes.nvml import FakeGpu, FakeNvml

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


def test_textfile_holds_the_readings_under_dcgms_names_for_node_exporter(tmp_path):
    from prometheus_client.parser import text_string_to_metric_families

    path = tmp_path / "tfgpu.prom"
    env = mock_environment(nvml=FakeNvml([FakeGpu()]), host="gpu-node-7")
    result = run_cli("monitor", "--duration", "0.2", "--interval", "0.1", "--textfile", str(path), env=env)
    assert result.exit_status == 0, result.stderr
    families = {f.name: f for f in text_string_to_metric_families(path.read_text())}
    (temp,) = families["DCGM_FI_DEV_GPU_TEMP"].samples
    assert temp.value == 30 and temp.labels["Hostname"] == "gpu-node-7" and temp.labels["UUID"].startswith("GPU-")
    active = {s.labels["reason"]: s.value for s in families["tfgpu_gpu_clocks_event_active"].samples}
    assert active["idle"] == 1 and active["thermal (HW)"] == 0  # the fake H200 idles, as recorded
    assert families["tfgpu_gpu_health"].samples[0].value == 0


def test_the_drivers_throttle_time_per_reason_is_exported_under_dcgms_violation_names(tmp_path):
    from prometheus_client.parser import text_string_to_metric_families

    path = tmp_path / "tfgpu.prom"
    hot = FakeGpu(
        violation_microseconds={"power": 1_500_000.0, "thermal": 20_000.0},
        unsupported=frozenset({"nvmlDeviceGetViolationStatus"}),
    )
    cool = FakeGpu(uuid="GPU-0000", violation_microseconds={"power": 1_500_000.0, "thermal": 20_000.0})
    env = mock_environment(nvml=FakeNvml([cool, hot]), host="gpu-node-7")
    result = run_cli("monitor", "--duration", "0.2", "--interval", "0.1", "--textfile", str(path), env=env)
    assert result.exit_status == 0, result.stderr
    families = {f.name: f for f in text_string_to_metric_families(path.read_text())}
    power = {s.labels["gpu"]: s.value for s in families["DCGM_FI_DEV_POWER_VIOLATION"].samples}
    assert power == {"0": 1_500_000.0}  # GPU 1's NVML does not report it: left out, not zero
    (thermal,) = families["DCGM_FI_DEV_THERMAL_VIOLATION"].samples
    assert thermal.value == 20_000.0 and thermal.labels["UUID"] == "GPU-0000"
    assert families["DCGM_FI_DEV_RELIABILITY_VIOLATION"].samples[0].value == 0


def test_the_series_carry_the_jobs_labels_as_dcgm_names_them(tmp_path):
    from prometheus_client.parser import text_string_to_metric_families

    from tfgpu.monitor.exposition import job_labels

    path = tmp_path / "tfgpu.prom"
    environ = {"PATH": "/usr/bin", "SLURM_JOB_ID": "4242", "KUBERNETES_SERVICE_HOST": "10.0.0.1", "HOSTNAME": "train-0"}
    env = mock_environment(nvml=FakeNvml([FakeGpu()]), host="gpu-node-7", environ=environ)
    result = run_cli("monitor", "--duration", "0.2", "--interval", "0.1", "--textfile", str(path), env=env)
    assert result.exit_status == 0, result.stderr
    families = {f.name: f for f in text_string_to_metric_families(path.read_text())}
    (temp,) = families["DCGM_FI_DEV_GPU_TEMP"].samples
    assert (temp.labels["hpc_job"], temp.labels["pod"], temp.labels["UUID"][:4]) == ("4242", "train-0", "GPU-")
    assert "namespace" not in temp.labels  # neither POD_NAMESPACE nor the service account's file
    root = tmp_path / "r"
    namespace = root / "var/run/secrets/kubernetes.io/serviceaccount/namespace"
    namespace.parent.mkdir(parents=True)
    namespace.write_text("ml-team\n")
    assert job_labels({**environ, "POD_NAME": "train-0-x7k"}, str(root)) == {
        "pod": "train-0-x7k",
        "namespace": "ml-team",
        "hpc_job": "4242",
    }
    assert job_labels({"PATH": "/usr/bin"}) == {}


def test_the_prometheus_port_serves_the_same_readings(tmp_path):
    import socket
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    from tfgpu.model.samples import EpochFigures
    from tfgpu.monitor.exposition import PrometheusSink
    from tfgpu.monitor.sampler import Sampler

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    nvml = FakeNvml([FakeGpu()])
    sink = PrometheusSink("gpu-node-7", nvml, [0], port=port)
    Sampler(nvml, [0], 0.1, on_sample=sink).sample_once()
    sink.epoch(EpochFigures(2, 10.0, 63.2, steps=500, gpu_busy_percent=((0, 35.0),), verdict="input-bound"))
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert families["DCGM_FI_DEV_FB_USED"].samples[0].labels["modelName"] == "NVIDIA H200"
    assert families["tfgpu_training_step_seconds"].samples[0].value == 0.02
    assert families["tfgpu_training_first_epoch_seconds"].samples[0].value == 63.2
    idle = families["tfgpu_training_gpu_idle_ratio"].samples[0]
    assert idle.value == 0.65 and idle.labels["UUID"] == families["DCGM_FI_DEV_FB_USED"].samples[0].labels["UUID"]
    assert [(s.labels["verdict"], s.value) for s in families["tfgpu_training_bottleneck"].samples] == [
        ("input-bound", 1.0)
    ]
    assert (
        "tfgpu_xla_cache_programs_compiled" not in families or not families["tfgpu_xla_cache_programs_compiled"].samples
    )
    sink.epoch(EpochFigures(3, 9.0, 63.2, steps=500, verdict="gpu-busy", xla_compiled=0, xla_loaded=4))
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert sorted((s.labels["verdict"], s.value) for s in families["tfgpu_training_bottleneck"].samples) == [
        ("gpu-busy", 1.0),
        ("input-bound", 0.0),
    ]
    assert families["tfgpu_xla_cache_programs_loaded"].samples[0].value == 4


def test_a_mostly_idle_gpu_is_not_called_input_bound_by_a_monitor_that_cannot_see_inside_the_process():
    """Seen on the H200 (docs/examples/h200-issue27-monitor-watch-fit-2026-12-04d.txt): a Keras fit whose
    XLA compile kept the GPU idle for a minute was judged "waits for input"; the samples cannot tell
    compiling, loading and an input stall apart, so the verdict says so."""
    from tfgpu.nvml.client import Utilization

    env = mock_environment(FakeNvml.single_gpu(utilization=Utilization(1, 0)))
    result = run_cli("monitor", "--interval", "0.01", "--duration", "0.05", env=env)
    assert result.exit_status == ExitStatus.SUCCESS
    assert "where its idle time went is not known" in result.stdout and "waits for input" not in result.stdout
