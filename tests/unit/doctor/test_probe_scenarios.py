"""The doctor's verdict on the three runs recorded on the H200 (issue 3), replayed through FakeProbe."""

from __future__ import annotations

from dataclasses import replace

from tests.fakes.machines import gpu_machine, lib_dir
from tests.fakes.nvml import FakeNvml
from tests.fakes.probe import FakeProbe

from tfgpu.doctor.collect import collect_facts
from tfgpu.doctor.diagnose import diagnose
from tfgpu.model.findings import Severity
from tfgpu.probe.collect import run_tensorflow_probe


def verdict(tmp_path, recording, environ=None, status="ok"):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml.from_recording("h200")
    if environ is not None:
        m.environ = {**m.environ, **environ(m)}
    facts = collect_facts(m.sources())
    probe = run_tensorflow_probe(FakeProbe(recording, status=status), m.environ)
    d = diagnose(replace(facts, probe=probe))
    return m, d, {f.id: f for f in d.findings}


def test_wheel_layout_verdict_names_cusolver_and_gives_the_export_line(tmp_path):
    m, _d, found = verdict(tmp_path, "h200-wheel-layout")
    f = found["gpu-not-visible-to-tensorflow"]
    assert f.severity is Severity.ERROR and "libcusolver.so.11" in f.summary
    assert f.hint.startswith(f"export LD_LIBRARY_PATH={lib_dir(m, 'cusolver')}")


def test_fixed_verdict_is_healthy_with_gpu_results_and_xla(tmp_path):
    _, d, found = verdict(
        tmp_path, "h200-fixed", lambda m: {"LD_LIBRARY_PATH": f"{lib_dir(m, 'cusolver')}:{lib_dir(m, 'cuda_nvrtc')}"}
    )
    assert not d.problems()
    assert "registered 1 GPU" in found["tensorflow-sees-gpus"].summary
    assert "bfloat16" in found["gpu-results-match-cpu"].summary
    assert "xla-works" in found and "138 GiB" in found["tf-grabs-all-memory"].summary
    # the recorded float32 matmul error (2.7e-4) is TF32's, said as information, not as a fault
    tf32 = found["tf32-in-float32"]
    assert tf32.severity is Severity.INFO and "matmul" in tf32.summary and "2.7e-04" in tf32.summary


def test_hidden_verdict_blames_cuda_visible_devices(tmp_path):
    _, _, found = verdict(
        tmp_path, "h200-hidden", lambda m: {"LD_LIBRARY_PATH": lib_dir(m, "cusolver"), "CUDA_VISIBLE_DEVICES": ""}
    )
    assert found["gpu-not-visible-to-tensorflow"].hint == "unset CUDA_VISIBLE_DEVICES"
    assert "cuda-visible-devices-hides-all" in found


def test_failed_probes_become_errors_with_their_own_ids(tmp_path):
    for status, finding in (
        ("timed_out", "probe-timed-out"),
        ("crashed", "probe-crashed"),
        ("protocol_error", "probe-protocol-error"),
    ):
        _, d, found = verdict(tmp_path / status, None, status=status)
        assert found[finding].severity is Severity.ERROR and d.problems()
