"""The phases ``tfgpu run`` measures inside a real training process (TensorFlow CPU build, real children; issue 23 item 7)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

FIT = """
import sys
import numpy as np
import tensorflow as tf
keras = tf.keras
x = np.random.default_rng(0).random((640, 8), dtype=np.float32)
y = x.sum(1, keepdims=True)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse", {jit})
model.fit(x, y, epochs=2, batch_size=64, verbose=0{extra})
import json
import os
print("VARIABLE", os.environ.get("TFGPU_PHASES_FILE"))
"""


def tfgpu_run(tmp_path, source: str, **env: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(source))
    environ = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TFGPU_XLA_CACHE="off", COLUMNS="200", **env)
    command = [sys.executable, "-m", "tfgpu", "run", "--", sys.executable, str(script)]
    return subprocess.run(command, capture_output=True, text=True, timeout=280, env=environ, check=False)


@pytest.mark.timeout(300)
def test_keras3_fit_with_xla_is_split_into_phases_with_its_steps(tmp_path):
    done = tfgpu_run(tmp_path, FIT.format(jit="jit_compile=True", extra=""))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Where the time went (" in done.stderr
    assert "first training step (tracing, compilation)" in done.stderr
    assert "(20 steps)" in done.stderr  # 2 epochs of 640 / 64 batches
    assert "VARIABLE None" in done.stdout  # the script's environment does not carry tfgpu's variable on


@pytest.mark.timeout(300)
def test_tf_keras_fit_is_split_into_phases(tmp_path):
    done = tfgpu_run(tmp_path, FIT.format(jit="", extra=""), TF_USE_LEGACY_KERAS="1")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "(20 steps)" in done.stderr


@pytest.mark.timeout(300)
def test_a_custom_loop_says_no_phase_is_known(tmp_path):
    source = """
    import tensorflow as tf
    step = tf.function(lambda x: tf.reduce_sum(x * x))
    print(float(step(tf.ones((4,)))))
    """
    done = tfgpu_run(tmp_path, source)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "no Keras fit() was seen" in done.stderr
    assert "Where the time went" not in done.stderr
    assert "tf.function tracing, in the whole run (TensorFlow's counter)" in done.stderr  # the loop's one phase


@pytest.mark.timeout(300)
def test_a_crash_in_fit_shows_no_tfgpu_frame(tmp_path):
    done = tfgpu_run(tmp_path, FIT.format(jit="", extra=", validation_data=(x[:, :3], y)"))
    assert done.returncode == 1
    traceback = done.stderr.split("\n[tfgpu run]", 1)[0]
    assert "Traceback" in traceback and f"{os.sep}tfgpu{os.sep}" not in traceback  # no frame of the package


@pytest.mark.timeout(300)
def test_run_json_writes_the_summary_with_its_phases_and_keeps_the_commands_status(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(FIT.format(jit="", extra="")) + "\nraise SystemExit(3)\n")
    summary = tmp_path / "summary.json"
    environ = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TFGPU_XLA_CACHE="off")
    done = subprocess.run(
        [sys.executable, "-m", "tfgpu", "run", "--json", str(summary), "--", sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=280,
        env=environ,
        check=False,
    )
    assert done.returncode == 3, done.stderr[-2000:]
    doc = json.loads(summary.read_text())
    assert doc["command"] == "run" and doc["exit_status"] == 3 and doc["phases"]["steps"] == 20
    assert set(doc["phases"]["seconds"]) >= {"startup", "prepare", "first_step", "training"}
    assert doc["tracing_seconds"] > 0  # Keras's train function was traced: TensorFlow's counter saw it
    epochs = doc["phases"]["epoch_seconds"]  # verbose=0: timed inside the process, not from a progress bar
    assert doc["phases"]["epochs"] == len(epochs) == 2 and all(seconds > 0 for seconds in epochs)
    lost = subprocess.run(
        [sys.executable, "-m", "tfgpu", "run", "--json", "/nonexistent/dir/s.json", "--", "true"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert lost.returncode == 0 and "cannot write /nonexistent/dir/s.json" in lost.stderr


@pytest.mark.timeout(300)
def test_the_summary_counts_epochs_steps_and_the_commands_own_peak_memory(tmp_path):
    done = tfgpu_run(tmp_path, FIT.format(jit="", extra="") + "\nblock = bytearray(300 * 2**20)\n")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "(2 epochs, 20 training steps" in done.stderr and "steps/s after the first" in done.stderr
    assert "first epoch " in done.stderr and "later epochs " in done.stderr
    peak = float(done.stderr.split("peak host memory ", 1)[1].split(" ", 1)[0])
    unit = done.stderr.split("peak host memory ", 1)[1].split(" ", 2)[1]
    assert (peak * 1024 if unit.startswith("GiB") else peak) >= 300  # the 300 MiB the script held, at least
