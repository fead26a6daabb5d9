"""Garbage from the machine is a finding about the machine, not "a tfgpu bug" (issue 25 class 9)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from tests.fakes.cli import tfgpu_child
from tests.fakes.clock import FakeClock
from tests.fakes.nvml import FakeNvml
from tests.fakes.probe import FakeProbe

from tfgpu.model.unavailable import Unavailable
from tfgpu.monitor.sampler import Sampler
from tfgpu.probe.collect import run_interpreter_probe, shape
from tfgpu.probe.jobs import job_result
from tfgpu.probe.runner import ProbeRun, RunStatus
from tfgpu.system.nvidia_smi import QUERY_FIELDS, parse_query
from tfgpu.system.runner import SubprocessRunner
from tfgpu.tuning.run import _utilization


def unstartable(directory, kind: str):
    """An nvidia-smi that exists but cannot start: a symbolic link to itself, or a script without #!."""
    program = directory / "nvidia-smi"
    if kind == "link-loop":
        program.symlink_to(program)
    else:
        program.write_text("echo hi\n")
        program.chmod(0o755)
    return program


@pytest.mark.parametrize("kind", ["link-loop", "no-shebang"])
def test_a_program_that_cannot_be_started_is_a_failed_command_not_an_exception(tmp_path, kind):
    program = unstartable(tmp_path, kind)
    result = SubprocessRunner().run((str(program), "--version"), 5)
    assert not result.ok and not result.missing and "cannot be started" in result.stderr


def test_nvidia_smi_printing_inf_or_nan_gives_unavailable_readings():
    row = ["0", "NVIDIA H200", "GPU-1", "00000000:01:00.0", "580.1", "9.0", "inf", "nan"]
    row += ["inf"] * (len(QUERY_FIELDS) - len(row))
    _, gpus = parse_query(", ".join(row))
    assert isinstance(gpus[0].memory_total_bytes, Unavailable) and isinstance(gpus[0].memory_used_bytes, Unavailable)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", ["link-loop", "no-shebang"])
def test_the_doctor_with_such_an_nvidia_smi_on_path_reports_no_collector_crash(tmp_path, kind):
    unstartable(tmp_path, kind)
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    done = tfgpu_child("doctor", "--static", "--json", timeout=90, env=env)
    ids = [f["id"] for f in json.loads(done.stdout)["findings"]]
    assert not any(i.startswith("collector-") for i in ids) and "collector crashed" not in done.stdout


def _answer(envelope):
    return ProbeRun(RunStatus.OK, "/usr/bin/python3", 1.0, 60.0, envelope, "", 0)


@pytest.mark.parametrize(
    "envelope",
    [
        {"ok": True, "data": []},
        {"ok": True, "data": {"build": "x", "gpus": 5}},
        {"ok": True, "data": {"gpus": [{"name": 1}], "per_gpu": [{"ops": [{"op": None}], "xla": "no"}]}},
        {
            "ok": True,
            "data": {"gpus": [{}], "per_gpu": [{"ops": [5], "memory_after_first_op": {"current_bytes": "9"}}]},
        },
        {"ok": False, "error": "boom", "data": {}},
        {"ok": True, "data": {"import_seconds": float("inf"), "training": [{"first_epoch_seconds": "slow"}]}},
    ],
)
def test_a_probe_answer_of_the_wrong_shape_is_a_failed_probe_not_a_crash(envelope):
    facts = shape(_answer(envelope))
    assert facts.outcome in ("ok", "failed", "import_failed")
    assert facts.import_seconds is None or isinstance(facts.import_seconds, float)
    assert all(isinstance(g.device, str) for g in facts.gpus)


def test_an_interpreter_answer_of_the_wrong_shape_is_no_answer():
    class Garbage(FakeProbe):
        def run(self, task, **kwargs):
            return _answer({"task": "interpreter", "data": ["not", "a", "dict"]})

    assert run_interpreter_probe(Garbage(), {}) is None


@pytest.mark.parametrize(
    ("envelope", "status"),
    [
        ({"ok": True, "data": ["a", "list"]}, "protocol_error"),
        ({"ok": False, "error": "just a string"}, "failed"),
        ({"ok": False, "error": {"type": 5, "message": ["x"]}}, "failed"),
    ],
)
def test_a_job_answer_of_the_wrong_shape_is_a_failed_job_with_a_reason(envelope, status):
    result = job_result(_answer(envelope))
    assert result.status == status and result.failure_reason


def test_a_timed_window_of_the_wrong_shape_gives_no_utilization():
    sampler = Sampler(FakeNvml.single_gpu(), [0], 0.1, FakeClock())
    sampler.sample_once()
    for window in (["a", "b"], [1.0], {"x": 1}, [float("nan"), 2.0]):
        assert _utilization(sampler, window) is None


HOSTILE_TUNE_SCRIPT = """
import glob, os, shutil, tempfile
import keras
import numpy as np


def build_model():
    for directory in glob.glob(os.path.join(tempfile.gettempdir(), "tfgpu-*")):
        shutil.rmtree(directory, ignore_errors=True)  # the script deletes tfgpu's working files
    return keras.Sequential([keras.Input((8,)), keras.layers.Dense(3)])


def make_dataset():
    rng = np.random.default_rng(0)
    return rng.random((512, 8)).astype("float32"), rng.integers(0, 3, 512)


COMPILE = {"optimizer": "adam", "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True)}
"""


@pytest.mark.timeout(300)
def test_a_tune_script_that_deletes_tfgpus_working_files_gives_a_failed_trial_not_a_crash(tmp_path):
    script = tmp_path / "hostile_tune.py"
    script.write_text(HOSTILE_TUNE_SCRIPT)
    scratch = tmp_path / "tmp"  # its own TMPDIR: the script deletes only what tfgpu made for this test
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "TF_CPP_MIN_LOG_LEVEL": "3", "TFGPU_XLA_CACHE": "off"}
    done = subprocess.run(
        [sys.executable, "-m", "tfgpu", "tune", str(script), "--budget", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=280,
        env=env,
        check=False,
    )
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr[-2000:]
    doc = json.loads(done.stdout)
    assert doc["trials"][0]["outcome"] in ("ok", "error", "timeout")
