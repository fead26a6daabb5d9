"""The XLA cache against real TensorFlow on the CPU (XLA compiles there too) and real child processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfgpu.system.runner import SubprocessRunner
from tfgpu.xlacache.check import run_flag_check
from tfgpu.xlacache.store import RUNS_FILE

SCRIPT = Path(__file__).parents[1] / "fakes" / "scripts" / "xla_fit.py"


def tfgpu_run(cache: Path, *options: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, TFGPU_CACHE_DIR=str(cache), TF_CPP_MIN_LOG_LEVEL="2", COLUMNS="200")
    command = [sys.executable, "-m", "tfgpu", "run", *options, "--", sys.executable, str(SCRIPT)]
    return subprocess.run(command, capture_output=True, text=True, timeout=400, env=env, check=False)


@pytest.mark.timeout(900)
def test_a_second_run_loads_what_the_first_compiled(tmp_path):
    first = tfgpu_run(tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "checked against this TensorFlow" in first.stderr
    assert "compiled in this run and kept in" in first.stderr
    second = tfgpu_run(tmp_path)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "loaded instead of compiled" in second.stderr
    assert "checked against" not in second.stderr  # the check is remembered per install
    runs = [json.loads(line) for line in (tmp_path / "xla" / RUNS_FILE).read_text().splitlines()]
    assert len(runs) == 2 and runs[0]["use"]["compiled"] >= 1
    assert runs[1]["use"]["compiled"] == 0 and runs[1]["use"]["loaded"] >= 1
    assert runs[0]["digest"] == runs[1]["digest"]


@pytest.mark.timeout(600)
def test_xla_cache_off_sets_no_flag_and_keeps_nothing(tmp_path):
    result = tfgpu_run(tmp_path, "--xla-cache", "off")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "XLA cache" not in result.stderr
    assert not (tmp_path / "xla").exists()


@pytest.mark.timeout(300)
def test_the_flag_check_refuses_a_flag_this_tensorflow_does_not_know(tmp_path):
    check = run_flag_check(
        SubprocessRunner(), sys.executable, {"TF_XLA_FLAGS": [("tf_xla_no_such_flag", "1")]}, tmp_path
    )
    assert not check.accepted
    assert "unknown flag --tf_xla_no_such_flag" in check.reason


@pytest.mark.timeout(300)
def test_the_flag_check_accepts_the_persistent_cache_and_leaves_no_scratch(tmp_path):
    flags = {"TF_XLA_FLAGS": [("tf_xla_persistent_cache_directory", str(tmp_path / "real"))]}
    check = run_flag_check(SubprocessRunner(), sys.executable, flags, tmp_path)
    assert check.accepted, check.reason
    assert list(tmp_path.iterdir()) == []


CUSTOM_LOOP = """
import tensorflow as tf
w = tf.Variable(tf.ones((64, 64)))
@tf.function(jit_compile=True)
def step(x):
    w.assign_sub(0.01 * tf.matmul(x, w, transpose_a=True))
    return tf.reduce_sum(w)
for _ in range(20):
    total = step(tf.ones((64, 64)))
print(float(total))
"""


@pytest.mark.timeout(600)
def test_a_custom_loop_is_judged_from_its_first_compiled_program(tmp_path):
    script = tmp_path / "loop.py"
    script.write_text(CUSTOM_LOOP)
    env = dict(os.environ, TFGPU_CACHE_DIR=str(tmp_path / "cache"), TF_CPP_MIN_LOG_LEVEL="2", COLUMNS="200")
    summary = tmp_path / "summary.json"
    command = [sys.executable, "-m", "tfgpu", "run", "--json", str(summary), "--", sys.executable, str(script)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=500, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "compiled in this run and kept in" in done.stderr
    assert "no Keras fit() was seen" in done.stderr
    assert "judged from when XLA's first compiled program was written" in done.stderr
    assert json.loads(summary.read_text())["judged_from"] == "first_program"
