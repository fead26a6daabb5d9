"""The doctor's versions block, from the facts of real layouts (the fake machines) and the H200's saved facts."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.cli import run_cli
from tests.fakes.machines import gpu_machine
from tests.fakes.nvml import FakeNvml

from tfgpu.doctor.examine import facts_from_document
from tfgpu.report.versions import version_rows

EXAMPLES = Path(__file__).parents[3] / "docs" / "examples"


def test_a_gpu_machine_lists_tensorflows_build_keras_python_and_the_chosen_backend(tmp_path):
    m = gpu_machine(tmp_path)
    m.environ = {**m.environ, "KERAS_BACKEND": "jax", "CUDA_VISIBLE_DEVICES": "0"}
    rows = dict(version_rows(m.diagnose().facts))
    assert rows["TensorFlow"] == "tensorflow 2.21.0, built for CUDA 12.5.1, cuDNN 9"
    assert rows["Keras"] == "3.15.1" and rows["Variables"] == "KERAS_BACKEND=jax, CUDA_VISIBLE_DEVICES=0"
    assert rows["Python"].startswith(("3.", "unknown"))


def test_a_machine_without_tensorflow_or_driver_says_so(tmp_path):
    m = gpu_machine(tmp_path, tf=None, gpu=False)
    m.nvml = FakeNvml.no_driver()
    rows = dict(version_rows(m.diagnose().facts))
    assert rows["TensorFlow"] == "not installed" and rows["NVIDIA driver"] == "none found"
    assert rows["Variables"].startswith("none of KERAS_BACKEND")


def test_the_h200s_saved_facts_give_the_driver_and_the_gpu_and_the_markdown_carries_them():
    doc = json.loads((EXAMPLES / "h200-doctor-wheel-layout-2026-12-03.json").read_text())
    facts = facts_from_document(doc)
    rows = dict(version_rows(facts))
    assert rows["NVIDIA driver"] == "580.159.04, CUDA up to 13.0" and rows["GPUs"] == "0: NVIDIA H200 (sm_90)"


def test_the_markdown_report_carries_the_versions_table():
    result = run_cli("doctor", "--markdown", "--static")
    assert "| | version |" in result.stdout and "| TensorFlow |" in result.stdout
