"""collect_gpu_facts over readings recorded on the H200."""

from tests.fakes.nvml import FakeGpu, FakeNvml, nvml_error

from tfgpu.nvml.collect import collect_driver_facts, collect_gpu_facts, decode_clock_event_reasons


def test_h200_recording_gives_the_recorded_facts():
    client = FakeNvml.from_recording("h200")
    driver = collect_driver_facts(client)
    assert (driver.driver_version, driver.cuda_driver_version) == ("580.159.04", "13.0")
    (gpu,) = collect_gpu_facts(client)
    assert gpu.name == "NVIDIA H200" and gpu.compute_capability == "9.0"
    assert gpu.memory_total_bytes == 150754820096 and gpu.slowdown_temperature_celsius == 89
    assert gpu.throttle_reasons == ("gpu_idle",)


def test_under_load_recording_shows_the_power_cap():
    (gpu,) = collect_gpu_facts(FakeNvml.from_recording("h200", "under_load"))
    assert "sw_power_cap" in gpu.throttle_reasons


def test_one_unsupported_metric_does_not_hide_the_rest():
    client = FakeNvml([FakeGpu(unsupported=frozenset({"nvmlDeviceGetPowerUsage"}))])
    (gpu,) = collect_gpu_facts(client)
    assert "not supported" in gpu.power_draw_watts.reason and gpu.temperature_celsius == 30


def test_lost_gpu_keeps_its_index_and_reason():
    client = FakeNvml(
        [FakeGpu(), FakeGpu(memory_info=nvml_error("NVMLError_GpuIsLost", "nvml:nvmlDeviceGetMemoryInfo"))]
    )
    gpus = collect_gpu_facts(client)
    assert gpus[0].memory_total_bytes > 0 and "fallen off" in gpus[1].memory_total_bytes.reason


def test_decode_names_every_bit_in_order():
    assert decode_clock_event_reasons(0x1FF)[:3] == ("gpu_idle", "applications_clocks_setting", "sw_power_cap")


def test_links_to_every_peer_and_unknown_nvlink_stays_unavailable():
    client = FakeNvml([FakeGpu(), FakeGpu(), FakeGpu(nvlinks_active=18)], links={(0, 1): "nvlink", (1, 2): "numa-node"})
    gpus = collect_gpu_facts(client)
    assert [(link.peer, link.via) for link in gpus[0].links] == [(1, "nvlink"), (2, "system")]
    assert [(link.peer, link.via) for link in gpus[2].links] == [(0, "system"), (1, "numa-node")]
    assert "not supported" in gpus[0].nvlinks_active.reason and gpus[2].nvlinks_active == 18
    (single,) = collect_gpu_facts(FakeNvml.from_recording("h200"))
    assert single.links == ()
