"""tfgpu tune with real tensorflow-cpu trials: the worker's OOM path, and a budget-bound run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tfgpu.model.tune import TrialConfig
from tfgpu.tuning.run import TrialRunner, tune_runner

SCRIPT = str(Path(__file__).parents[1] / "fakes" / "scripts" / "tune_tiny.py")


def test_trial_ok_and_a_fake_oom_in_the_child():
    env = {**os.environ, "TFGPU_TUNE_FAKE_OOM_ABOVE": "64"}
    runner = TrialRunner(SCRIPT, tune_runner(), None, env)
    ok = runner("baseline", TrialConfig(batch_size=64, input="tf.data"))
    assert ok.outcome == "ok" and ok.samples_per_second > 0 and ok.loss > 0 and ok.data == "arrays"
    oom = runner("batch size", TrialConfig(batch_size=128))
    assert oom.outcome == "oom" and "OOM" in oom.reason
    staged = runner("input pipeline", TrialConfig(batch_size=32, input="tf.data+device", jit_compile=False))
    assert staged.outcome == "ok" and staged.samples_per_second > 0 and staged.warmup_seconds > 0


def test_a_large_batch_is_timed_over_enough_steps_on_the_parents_clock(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"batch_size": 1024, "input": "tf.data", "jit_compile": False}))
    before = time.monotonic()
    run = tune_runner().run(
        "trial", timeout_seconds=300, env=dict(os.environ), args=("--script", SCRIPT, "--config", str(config))
    )
    after = time.monotonic()
    data = run.envelope["data"]
    # 2048 samples are 2 steps of 1024: five epochs are timed, inside the parent's view of the child's life
    assert data["timed_steps"] == 10 and before < data["timed_window"][0] < data["timed_window"][1] < after
    assert data["samples_per_second"] == 5 * 2048 / data["seconds"]


FILTERED = """import keras, numpy as np, tensorflow as tf

def build_model():
    return keras.Sequential([keras.Input((8,)), keras.layers.Dense(3)])

def make_dataset():
    rng = np.random.default_rng(0)
    ds = tf.data.Dataset.from_tensor_slices((rng.random((2048, 8)).astype("float32"), np.arange(2048) % 3))
    return ds.filter(lambda x, y: y < 2){tail}
"""


def trial(script: Path, tmp_path: Path) -> dict:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"batch_size": 64, "input": "tf.data", "jit_compile": False}))
    run = tune_runner().run(
        "trial", timeout_seconds=300, env=dict(os.environ), args=("--script", str(script), "--config", str(config))
    )
    return run.envelope


def test_a_dataset_of_unknown_length_is_counted_and_an_endless_one_refused(tmp_path):
    filtered, endless = tmp_path / "filtered.py", tmp_path / "endless.py"
    filtered.write_text(FILTERED.format(tail=""))
    endless.write_text(FILTERED.format(tail=".repeat()"))
    data = trial(filtered, tmp_path)["data"]
    # the filter keeps 1366 of 2048 samples (labels 0 and 1): cardinality unknown until counted
    assert round(data["samples_per_second"] * data["seconds"]) == 1366 and data["data"] == "dataset"
    refused = trial(endless, tmp_path)
    assert not refused["ok"] and "endless dataset" in refused["error"]["message"]


def test_tune_cli_json_within_a_tiny_budget():
    result = subprocess.run(
        [sys.executable, "-m", "tfgpu", "tune", SCRIPT, "--budget", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    doc = json.loads(result.stdout)
    assert doc["baseline"]["config"]["batch_size"] == 32 and doc["trials"][1]["outcome"] == "skipped"
    assert "model.fit" in doc["code_change"]


def test_tune_template_and_usage_errors():
    template = subprocess.run(
        [sys.executable, "-m", "tfgpu", "tune", "--template"], capture_output=True, text=True, timeout=60
    )
    assert "def build_model" in template.stdout
    missing = subprocess.run(
        [sys.executable, "-m", "tfgpu", "tune", "nope.py"], capture_output=True, text=True, timeout=60
    )
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_public_tune_on_arrays_and_on_a_dataset():
    import keras
    import pytest
    import tensorflow as tf
    from tests.fakes.scripts import tune_tiny

    import tfgpu
    from tfgpu.model.errors import DiagnosticError

    x, y = tune_tiny.make_dataset()
    literal = {"optimizer": "adam", "loss": "sparse_categorical_crossentropy"}
    on_arrays = tfgpu.tune(tune_tiny.build_model, (x[:512], y[:512]), budget_seconds=1, compile_kwargs=literal)
    ds = tf.data.Dataset.from_tensor_slices((x[:512], y[:512]))
    on_dataset = tfgpu.tune(tune_tiny.build_model, ds, budget_seconds=1, compile_kwargs=literal, batch_size=32)
    for result in (on_arrays, on_dataset):
        assert result.baseline.outcome == "ok" and result.baseline.samples_per_second > 0, result.baseline.reason
    assert on_dataset.baseline.config.batch_size == 32
    with pytest.raises(DiagnosticError) as info:
        tfgpu.tune(tune_tiny.build_model, (x, y), compile_kwargs={"loss": keras.losses.SparseCategoricalCrossentropy()})
    assert info.value.reference == "tune-compile-kwargs-not-literal"
    with pytest.raises(DiagnosticError) as info:
        tfgpu.tune(tune_tiny.build_model, ds.repeat(), compile_kwargs=literal)
    assert info.value.reference == "tune-dataset-endless"
