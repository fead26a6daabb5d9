"""Suites, names, peaks, comparison and result shaping (the worker's envelope recorded on tensorflow-cpu)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tfgpu.bench.naming import entry_name
from tfgpu.bench.run import compare, previous_figures, run_benchmark
from tfgpu.bench.suites import SUITE_NAMES, suite
from tfgpu.knowledge.measured import peer_measured
from tfgpu.knowledge.peaks import peak_for, peaks_for
from tfgpu.model.bench import BenchRun
from tfgpu.probe.jobs import fused_batchnorm_env
from tfgpu.probe.runner import ProbeRun, RunStatus
from tfgpu.report.bench import bench_table

RECORDED = Path(__file__).parents[2] / "fixtures" / "bench" / "cpu-tensorflow-cpu-2.21.json"


class RecordedBench:
    def __init__(self, envelope=None, status="ok"):
        self.envelope, self.status = envelope, status

    def run(self, task, *, timeout_seconds=0, env=None, args=()):
        return ProbeRun(
            RunStatus(self.status),
            "python3",
            1.0,
            timeout_seconds,
            self.envelope,
            "",
            0 if self.status == "ok" else -11,
            problem="killed by SIGSEGV",
        )


@pytest.mark.parametrize("name", SUITE_NAMES)
def test_every_suite_has_named_workloads_in_both_sizes(name):
    for tiny in (True, False):
        specs = suite(name, tiny=tiny)
        assert specs and len({entry_name(s) for s in specs}) == len(specs)


def test_gpu_sizes_fill_the_gpu_and_include_the_cpu_reference():
    specs = suite("matmul", tiny=False)
    assert {s["n"] for s in specs if s.get("device") != "cpu"} == {8192}
    assert any(s.get("device") == "cpu" for s in specs)


def test_peaks_for_the_h200_and_tf32_rule():
    peaks = peaks_for("NVIDIA H200")
    assert peak_for(peaks, "matmul", "bfloat16") == 989.5 and peak_for(peaks, "matmul", "float32", tf32=False) == 67
    assert peak_for(peaks, "matmul", "float32", tf32=True) == 494.7 and peak_for(peaks, "copy", None) == 4800
    assert peaks_for("Some Unknown GPU") is None


def test_results_are_shaped_from_the_recorded_envelope_and_compared():
    envelope = json.loads(RECORDED.read_text())
    specs = [r["spec"] for r in envelope["data"]["results"]]
    result = run_benchmark("quick", specs, RecordedBench(envelope), gpu_name=None, environ={})
    assert all(e.ok for e in result.entries) and result.entries[0].unit == "TFLOP/s"
    assert result.entries[0].relative_error < 1e-5 and result.entries[0].peak is None  # on the CPU: no peak
    previous = {"entries": [{"name": result.entries[0].name, "ok": True, "value": result.entries[0].value / 2}]}
    assert compare(result, previous_figures(previous)) == {result.entries[0].name: pytest.approx(2.0)}


def test_a_crashed_child_gives_failed_entries_with_the_reason():
    result = run_benchmark(
        "quick", suite("quick", tiny=True), RecordedBench(None, "crashed"), gpu_name="NVIDIA H200", environ={}
    )
    assert not any(e.ok for e in result.entries) and "SIGSEGV" in result.entries[0].error


class SpecEchoRunner:
    """Answers like the worker: one result per spec in the spec file, recording each child's env."""

    def __init__(self):
        self.children = []

    def run(self, task, *, timeout_seconds=0, env=None, args=()):
        specs = json.loads(Path(args[1]).read_text())
        self.children.append(dict(env or {}))
        on_cpu = (env or {}).get("CUDA_VISIBLE_DEVICES") == ""
        results = [
            {
                "spec": s,
                "ok": True,
                "value": 10.0 if on_cpu else 500.0,
                "unit": "u",
                "device": "/CPU:0" if on_cpu else "/GPU:0",
            }
            for s in specs
        ]
        return ProbeRun(
            RunStatus.OK, "python3", 1.0, timeout_seconds, {"ok": True, "data": {"results": results}}, "", 0
        )


def test_specs_needing_other_settings_get_their_own_child_and_keep_their_order():
    specs = suite("full", tiny=False)
    runner = SpecEchoRunner()
    result = run_benchmark("full", specs, runner, gpu_name="NVIDIA H200", environ={"KEEP": "1"})
    envs = [{k: v for k, v in c.items() if k not in ("KEEP", "TF_CPP_MIN_LOG_LEVEL")} for c in runner.children]
    fused = fused_batchnorm_env()
    assert envs == [{}, {"TF_CUDNN_USE_AUTOTUNE": "0"}, fused, {"CUDA_VISIBLE_DEVICES": ""}]
    assert (
        Path(fused["TFGPU_FUSED_BATCHNORM"]).name == "batchnorm.py" and Path(fused["TFGPU_FUSED_BATCHNORM"]).is_file()
    )
    assert all(c["KEEP"] == "1" for c in runner.children)
    assert [e.name for e in result.entries] == [entry_name(s) for s in specs]
    autotune_off = [e.name for e in result.entries if "TF_CUDNN_USE_AUTOTUNE=0" in e.name]
    assert autotune_off == [
        "conv 3x3 float32 fwd+bwd b64 56x56x64 [TF_CUDNN_USE_AUTOTUNE=0]",
        "conv 3x3 bfloat16 fwd+bwd b64 56x56x64 [TF_CUDNN_USE_AUTOTUNE=0]",
    ]


def test_cpu_workloads_carry_the_gpu_speedup():
    result = run_benchmark("models", suite("models", tiny=False), SpecEchoRunner(), gpu_name=None, environ={})
    cpu = [e for e in result.entries if e.name.endswith("on CPU")]
    assert [e.name for e in cpu] == ["mnist_cnn float32 b1024 on CPU"] and cpu[0].gpu_speedup == 50.0
    assert all(e.gpu_speedup is None for e in result.entries if e not in cpu)


def test_model_names_say_what_differs():
    spec = {"kind": "model", "model": "resnet50", "batch": 256, "precision": "mixed_bfloat16"}
    assert entry_name({**spec, "layout_optimizer": False}) == "resnet50 mixed_bfloat16 b256 layout-optimizer off"
    assert entry_name({**spec, "xla": True, "input": "numpy", "steps_per_execution": 32}) == (
        "resnet50 mixed_bfloat16 xla b256 numpy spe32"
    )


def test_gpu_entries_are_put_against_the_best_recorded_run_on_that_model():
    result = run_benchmark("matmul", suite("matmul", tiny=False), SpecEchoRunner(), gpu_name="NVIDIA H200", environ={})
    bf16 = next(e for e in result.entries if e.name == "matmul bfloat16 8192")
    assert bf16.best_measured and bf16.best_measured > bf16.value  # 500 echoed vs the recorded ~688
    assert all(e.best_measured is None for e in result.entries if e.name.endswith("on CPU"))


def test_every_best_measured_row_is_the_best_of_the_run_it_cites():
    import csv

    root = Path(__file__).parents[3]
    table = root / "src" / "tfgpu" / "knowledge" / "data" / "gpu_measured.csv"
    for row in csv.DictReader(table.read_text().splitlines()):
        doc = json.loads((root / row["source"]).read_text())
        values = (
            [e["value"] for e in doc["entries"] if e["name"] == row["workload"] and e.get("value")]
            if isinstance(doc, dict)
            else [r["samples_per_second"] for r in doc if r["name"] == row["workload"] and r["samples_per_second"]]
        )
        assert values and float(row["value"]) == pytest.approx(max(values), rel=1e-3), row


def test_scaling_suite_follows_the_gpu_count_and_reports_efficiency():
    assert {s.get("replicas", 1) for s in suite("scaling", tiny=False, gpus=1)} == {1}
    four = suite("scaling", tiny=False, gpus=4)
    assert {(s.get("replicas", 1), s.get("all_reduce")) for s in four} == {
        (1, None),
        (2, "nccl"),
        (2, "hierarchical"),
        (4, "nccl"),
        (4, "hierarchical"),
    }
    result = run_benchmark("scaling", four, SpecEchoRunner(), gpu_name=None, environ={})
    two = next(e for e in result.entries if e.name == "resnet50 float32 b256 x2 nccl")
    assert two.scaling_efficiency == 0.5  # the echo gives every run the same samples/s


def test_the_cpu_suite_has_no_tf32_labels_but_the_gpu_suite_names_both_modes():
    """Issue 19: a CPU run printed "(tf32 on)", a GPU mode."""
    cpu = [entry_name(s) for s in suite("matmul", tiny=True)]
    gpu = [entry_name(s) for s in suite("matmul", tiny=False)]
    assert not any("tf32" in name for name in cpu) and "matmul float32 256" in cpu
    assert "matmul float32 (tf32 on) 8192" in gpu and "matmul float32 (tf32 off) 8192" in gpu


def test_models_on_one_gpu_are_put_against_the_fastest_peer_measured_on_that_gpu_model():
    """Issue 16: bench says how far TF's ResNet-50 is from PyTorch's on the same GPU, fused batch norm or not."""
    result = run_benchmark("models", suite("models", tiny=False), SpecEchoRunner(), gpu_name="NVIDIA H200", environ={})
    entries = {e.name: e for e in result.entries}
    for name in ("resnet50 float32 b256", "resnet50 float32 b256 fused-bn"):
        assert entries[name].peer == 3172 and entries[name].peer_framework.startswith("PyTorch 2.11 (TF32")
    assert entries["resnet50 mixed_bfloat16 b256 fused-bn"].peer == 4723
    assert all(e.peer is None for e in result.entries if e.name.startswith("mnist_cnn"))
    table = bench_table(BenchRun(result))
    notes = table.columns[-1]._cells
    assert any("0.16 of PyTorch 2.11 (TF32, channels_last) on this GPU (3,172)" in n for n in notes)
    other = run_benchmark("models", suite("models", tiny=False), SpecEchoRunner(), gpu_name="NVIDIA A100", environ={})
    assert all(e.peer is None for e in other.entries)


def test_every_peer_row_is_the_figure_of_the_run_it_cites():
    import csv

    root = Path(__file__).parents[3]
    table = root / "src" / "tfgpu" / "knowledge" / "data" / "peer_measured.csv"
    rows = list(csv.DictReader(table.read_text().splitlines()))
    assert rows
    for row in rows:
        text = (root / row["source"]).read_text()
        assert f"{int(float(row['value'])):,} img/s" in text, row
        figure = peer_measured(row["gpu_model"], row["model"], row["precision"], int(row["batch"]))
        assert figure and figure.value == float(row["value"])
