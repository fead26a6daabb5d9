"""The worker's shaping code with a fake ``tf`` namespace, and the shared schema version."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import SimpleNamespace

import pytest

from tfgpu.probe.runner import worker_path


def load_worker():
    return importlib.import_module("tfgpu.probe.worker")


def fake_tf(gpus=()):
    devices = [SimpleNamespace(name=f"/physical_device:GPU:{i}") for i in range(len(gpus))]
    details = {d.name: g for d, g in zip(devices, gpus, strict=False)}
    return SimpleNamespace(
        __version__="2.21.0",
        sysconfig=SimpleNamespace(
            get_build_info=lambda: {
                "cuda_version": "12.5.1",
                "cudnn_version": "9",
                "is_cuda_build": True,
                "cuda_compute_capabilities": ["sm_80", "compute_90"],
            }
        ),
        config=SimpleNamespace(
            list_physical_devices=lambda kind: devices,
            experimental=SimpleNamespace(get_device_details=lambda d: details[d.name]),
        ),
    )


def test_worker_file_is_inside_the_package():
    assert Path(worker_path()).name == "worker.py" and Path(worker_path()).is_file()


def test_describe_build_and_gpus_from_fake_tf():
    worker = load_worker()
    tf = fake_tf([{"device_name": "NVIDIA H200", "compute_capability": (9, 0)}])
    assert worker.describe_build(tf)["compute_capabilities"] == ["sm_80", "compute_90"]
    assert worker.describe_gpus(tf) == [
        {"name": "/physical_device:GPU:0", "device_name": "NVIDIA H200", "compute_capability": "9.0"}
    ]


def test_probe_devices_without_gpus_skips_the_checks():
    data = load_worker().probe_devices(fake_tf(), import_seconds=1.5)
    assert data["gpus"] == [] and data["per_gpu"] == [] and data["import_seconds"] == 1.5


@pytest.mark.timeout(20)  # the abandoned call would wait 30 s
def test_bounded_abandons_what_outlives_its_budget():
    import threading

    worker = load_worker()
    release = threading.Event()
    assert worker._bounded(lambda: {"ok": True}, 5.0) == {"ok": True}
    assert worker._bounded(lambda: release.wait(30) and {}, 0.2) is None  # the test's timeout: well under 30 s
    release.set()


def test_the_probe_picks_the_mixed_policy_from_the_parents_table_as_setup_auto_does():
    from tfgpu.knowledge.archs import mixed_policy, mixed_policy_table

    worker = load_worker()
    for cc in ((9, 0), (8, 0), (7, 5), (6, 1), (12, 0)):
        assert worker.mixed_policy(f"{cc[0]}.{cc[1]}", mixed_policy_table()) == mixed_policy(cc)
    assert worker.mixed_policy("9.0", "") is None  # no table, no mixed run: the parent decides
