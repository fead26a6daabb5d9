"""PynvmlClient over a stand-in pynvml module: driver-generation fallbacks and error translation.

This is the only place the binding is faked (DESIGN 8.10); everything above uses FakeNvml.
"""

from __future__ import annotations

import sys
import types

import pytest

from tfgpu.model.errors import NvmlUnavailable
from tfgpu.nvml.client import PynvmlClient


class NVMLError(Exception):
    pass


def binding(**overrides):
    mod = types.ModuleType("pynvml")
    errors = {
        name: type(name, (NVMLError,), {})
        for name in (
            "NVMLError_LibraryNotFound",
            "NVMLError_NotSupported",
            "NVMLError_GpuIsLost",
            "NVMLError_FunctionNotFound",
        )
    }
    mod.__dict__.update(errors)
    mod.NVML_CLOCK_GRAPHICS, mod.NVML_CLOCK_SM, mod.NVML_CLOCK_MEM = 0, 1, 2
    mod.NVML_TEMPERATURE_GPU, mod.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 0, 1
    mod.nvmlInit = lambda: None
    mod.nvmlShutdown = lambda: None
    mod.nvmlDeviceGetCudaComputeCapability = lambda h: (9, 0)
    mod.nvmlDeviceGetHandleByIndex = lambda i: f"handle{i}"
    mod.nvmlSystemGetDriverVersion = lambda: b"580.159.04"
    mod.nvmlDeviceGetName = lambda h: "NVIDIA H200"
    mod.nvmlDeviceGetCurrentClocksThrottleReasons = lambda h: 0x4
    mod.nvmlSystemGetCudaDriverVersion = lambda: 12040
    mod.nvmlDeviceGetPowerUsage = lambda h: 692551
    mod.__dict__.update(overrides)
    return mod, errors


@pytest.fixture
def fake_pynvml(monkeypatch):
    def install(**overrides):
        mod, errors = binding(**overrides)
        monkeypatch.setitem(sys.modules, "pynvml", mod)
        return errors

    return install


def test_bytes_from_old_bindings_are_decoded_and_units_converted(fake_pynvml):
    fake_pynvml()
    client = PynvmlClient()
    assert client.driver_version() == "580.159.04"
    assert client.power_draw_watts(0) == pytest.approx(692.551)
    assert client.compute_capability(0) == (9, 0)


def test_pre_535_names_are_used_when_the_new_ones_are_missing(fake_pynvml):
    fake_pynvml()
    client = PynvmlClient()
    assert client.clocks_event_reasons(0) == 0x4
    assert client.cuda_driver_version() == 12040


def test_library_not_found_at_init_becomes_unavailable_with_the_hint_reason(fake_pynvml):
    errors = fake_pynvml()

    def fail():
        raise errors["NVMLError_LibraryNotFound"]()

    sys.modules["pynvml"].nvmlInit = fail
    client = PynvmlClient()
    with pytest.raises(NvmlUnavailable) as info:
        client.device_count()
    assert info.value.kind == "NVMLError_LibraryNotFound" and "driver is not installed" in info.value.reason
    with pytest.raises(NvmlUnavailable):  # the failure is remembered, not retried on every call
        client.name(0)


@pytest.mark.parametrize(
    ("kind", "words"), [("NVMLError_NotSupported", "not supported"), ("NVMLError_GpuIsLost", "fallen off the bus")]
)
def test_query_errors_are_translated(fake_pynvml, kind, words):
    errors = fake_pynvml()

    def fail(h):
        raise errors[kind]()

    sys.modules["pynvml"].nvmlDeviceGetName = fail
    with pytest.raises(NvmlUnavailable) as info:
        PynvmlClient().name(0)
    assert words in info.value.reason and info.value.source == "nvml:nvmlDeviceGetName"


def test_unofficial_binding_without_modern_functions_is_reported(fake_pynvml):
    fake_pynvml()
    del sys.modules["pynvml"].nvmlDeviceGetCudaComputeCapability
    with pytest.raises(NvmlUnavailable) as info:
        PynvmlClient().device_count()
    assert info.value.kind == "BadBinding"


def test_xid_events_are_registered_once_and_drained(fake_pynvml):
    errors = fake_pynvml()
    mod = sys.modules["pynvml"]
    registered, pending = [], [types.SimpleNamespace(device="handle0", eventData=79)]

    def wait(event_set, timeout):
        if pending:
            return pending.pop()
        raise errors["NVMLError_NotSupported"]()

    mod.nvmlEventTypeXidCriticalError = 8
    mod.nvmlEventSetCreate = lambda: "set"
    mod.nvmlDeviceRegisterEvents = lambda h, kinds, event_set: registered.append((h, kinds, event_set))
    mod.nvmlEventSetWait = wait
    mod.nvmlDeviceGetCount = lambda: 1
    mod.nvmlDeviceGetUUID = lambda h: "GPU-1"
    client = PynvmlClient()
    assert client.xid_events() == [(0, 79)]
    assert client.xid_events() == [] and registered == [("handle0", 8, "set")]


def test_topology_reads_nvlink_peer_access_first_then_the_pcie_level(fake_pynvml):
    fake_pynvml(
        NVML_P2P_CAPS_INDEX_NVLINK=2,
        NVML_P2P_STATUS_OK=0,
        NVML_NVLINK_MAX_LINKS=18,
        NVML_FEATURE_ENABLED=1,
        NVMLError=NVMLError,
        nvmlDeviceGetP2PStatus=lambda a, b, cap: 0 if {a, b} == {"handle0", "handle1"} else 5,
        nvmlDeviceGetTopologyCommonAncestor=lambda a, b: 50,
        nvmlDeviceGetNvLinkState=lambda h, link: 1 if link < 18 else 0,
    )
    client = PynvmlClient()
    assert client.link_to(0, 1) == "nvlink" and client.link_to(0, 2) == "system"
    assert client.nvlinks_active(0) == 18


def test_links_nvml_cannot_read_count_as_down(fake_pynvml):
    errors = fake_pynvml(NVML_NVLINK_MAX_LINKS=4, NVML_FEATURE_ENABLED=1, NVMLError=NVMLError)

    def state(handle, link):
        if link >= 2:
            raise errors["NVMLError_NotSupported"]()
        return 1

    sys.modules["pynvml"].nvmlDeviceGetNvLinkState = state
    assert PynvmlClient().nvlinks_active(0) == 2
