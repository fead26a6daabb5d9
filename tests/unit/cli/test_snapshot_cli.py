"""``tfgpu snapshot``: its exit statuses and its three formats, over the fake NVML (recorded from the H200)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from tests.fakes.cli import mock_environment, run_cli
from tests.fakes.nvml import FakeGpu, FakeNvml, nvml_error

from tfgpu.cli.exit_status import ExitStatus


def snapshot(*gpus: FakeGpu, nvml: FakeNvml | None = None, fmt: str = "json"):
    env = mock_environment(nvml=nvml or FakeNvml(list(gpus) or [FakeGpu()]), host="gpu-node-7")
    return run_cli("snapshot", "--format", fmt, env=env)


def test_a_healthy_h200_exits_0_with_the_versioned_document():
    result = snapshot()
    doc = json.loads(result.stdout)
    assert result.exit_status == ExitStatus.SUCCESS and doc["command"] == "snapshot" and doc["schema_version"] == 1
    assert doc["health"] == "healthy" and doc["hostname"] == "gpu-node-7"
    (gpu,) = doc["gpus"]
    assert gpu["name"] == "NVIDIA H200" and gpu["health"] == "healthy" and gpu["reasons"] == []


@pytest.mark.parametrize(
    ("gpu", "status", "reason"),
    [
        (FakeGpu(clocks_event_reasons=0x40), ExitStatus.GPU_DEGRADED, "clocks slowed: thermal (HW)"),
        (FakeGpu(temperature_celsius=88), ExitStatus.GPU_DEGRADED, "its slowdown temperature (87 °C)"),
        (FakeGpu(ecc_uncorrected_errors=2), ExitStatus.GPU_FAILED, "2 uncorrected ECC error(s)"),
        (
            FakeGpu(temperature_celsius=nvml_error("NVMLError_GpuIsLost", "nvml:nvmlDeviceGetTemperature")),
            ExitStatus.GPU_FAILED,
            "stopped answering",
        ),
    ],
)
def test_a_slowed_gpu_is_degraded_and_a_lost_or_erring_one_failed(gpu, status, reason):
    result = snapshot(FakeGpu(), gpu)
    doc = json.loads(result.stdout)
    assert result.exit_status == status and doc["gpus"][0]["health"] == "healthy"
    assert any(reason in r for r in doc["gpus"][1]["reasons"]), doc["gpus"][1]["reasons"]


def test_no_driver_fails_the_node_and_no_gpu_is_its_own_status():
    broken = snapshot(nvml=FakeNvml.no_driver())
    assert broken.exit_status == ExitStatus.GPU_FAILED and "NVML cannot be used" in json.loads(broken.stdout)["error"]
    assert snapshot(nvml=FakeNvml([])).exit_status == ExitStatus.NO_GPU


def test_csv_has_a_header_and_a_row_per_gpu():
    rows = list(csv.DictReader(io.StringIO(snapshot(FakeGpu(), FakeGpu(clocks_event_reasons=0x20), fmt="csv").stdout)))
    assert [r["health"] for r in rows] == ["healthy", "degraded"] and rows[1][
        "reasons"
    ] == "clocks slowed: thermal (SW)"
    assert rows[0]["memory_total_mib"] == "143771" and rows[0]["hostname"] == "gpu-node-7"


def test_prometheus_text_reads_back_with_dcgms_names_and_join_labels():
    from prometheus_client.parser import text_string_to_metric_families

    families = {f.name: f for f in text_string_to_metric_families(snapshot(fmt="prometheus").stdout)}
    (temp,) = families["DCGM_FI_DEV_GPU_TEMP"].samples
    assert temp.value == 30 and temp.labels == {
        "gpu": "0",
        "UUID": "GPU-8b3a1f2e-1111-2222-3333-444455556666",
        "Hostname": "gpu-node-7",
        "modelName": "NVIDIA H200",
    }
    assert families["tfgpu_gpu_health"].samples[0].value == 0
    assert families["tfgpu_node_health"].samples[0].value == 0


@pytest.mark.parametrize("fmt", ["csv", "prometheus"])
def test_a_gpu_name_with_control_characters_reaches_the_terminal_escaped(fmt):
    result = snapshot(FakeGpu(name="H200\x1b]0;owned\x07"), fmt=fmt)
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout and "\\x1b" in result.stdout
