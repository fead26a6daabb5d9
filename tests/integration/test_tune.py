"""tfgpu tune with real tensorflow-cpu trials: the worker's OOM path, and a budget-bound run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tfgpu.model.tune import TrialConfig
from tfgpu.probe.jobs import WarmJob
from tfgpu.probe.runner import worker_runner
from tfgpu.probe.tune_worker import MIN_WINDOW_SECONDS
from tfgpu.tuning.run import TrialRunner

SCRIPT = str(Path(__file__).parents[1] / "fakes" / "scripts" / "tune_tiny.py")


def test_trials_share_a_warm_child_and_an_oom_or_new_allocator_starts_another():
    env = {**os.environ, "TFGPU_TUNE_FAKE_OOM_ABOVE": "64"}
    with TrialRunner(SCRIPT, worker_runner("tune"), None, env) as runner:
        ok = runner("start", TrialConfig(batch_size=64, input="tf.data"))
        assert ok.outcome == "ok" and ok.samples_per_second > 0 and ok.loss > 0 and ok.data == "arrays"
        staged = runner("input pipeline", TrialConfig(batch_size=32, input="tf.data+device", jit_compile=False))
        assert staged.outcome == "ok" and staged.samples_per_second > 0 and staged.warmup_seconds > 0
        repeat = runner("start", TrialConfig(batch_size=64, input="tf.data"))
        assert runner.processes == 1  # TensorFlow imported once for all three
        assert repeat.loss == ok.loss  # a new model, the seed reset: nothing of the earlier trials leaks in
        oom = runner("batch size", TrialConfig(batch_size=128))
        assert oom.outcome == "oom" and "OOM" in oom.reason
        again = runner("batch size", TrialConfig(batch_size=64, input="tf.data"))
        assert again.outcome == "ok" and runner.processes == 2 and again.loss == ok.loss  # a fresh child after the OOM
        winner = runner("allocator", TrialConfig(batch_size=64, allocator="cuda_malloc_async"))
        assert runner.processes == 3  # TF_GPU_ALLOCATOR is read at start
        runner.close()  # the search's new_process: the confirm trial runs the winner in a fresh child
        confirmed = runner("confirm", winner.config)
        assert confirmed.outcome == "ok" and runner.processes == 4 and confirmed.loss == winner.loss


def one_trial(script: str, config: dict) -> tuple[dict, float, float]:
    """A trial's envelope data, with the parent's clock before and after."""
    before = time.monotonic()
    with WarmJob(worker_runner("tune"), "trial", environ=dict(os.environ), args=("--script", script)) as job:
        result = job.submit(config, 300)
    return (result.data if result.ok else {"failure": result.failure_reason}), before, time.monotonic()


def test_a_large_batch_is_timed_long_enough_on_the_parents_clock():
    data, before, after = one_trial(SCRIPT, {"batch_size": 1024, "input": "tf.data", "jit_compile": False})
    # 2048 samples are 2 steps of 1024: epochs are added until the window lasts MIN_WINDOW_SECONDS
    assert data["timed_steps"] >= 10 and data["seconds"] >= MIN_WINDOW_SECONDS
    assert before < data["timed_window"][0] < data["timed_window"][1] < after
    assert data["samples_per_second"] == data["timed_steps"] // 2 * 2048 / data["seconds"]
    assert 0 <= data["spread"] < 5


FILTERED = """import keras, numpy as np, tensorflow as tf

def build_model():
    return keras.Sequential([keras.Input((8,)), keras.layers.Dense(3)])

def make_dataset():
    rng = np.random.default_rng(0)
    ds = tf.data.Dataset.from_tensor_slices((rng.random((2048, 8)).astype("float32"), np.arange(2048) % 3))
    return ds.filter(lambda x, y: y < 2){tail}
"""


def test_a_dataset_of_unknown_length_is_counted_and_an_endless_one_refused(tmp_path):
    filtered, endless = tmp_path / "filtered.py", tmp_path / "endless.py"
    filtered.write_text(FILTERED.format(tail=""))
    endless.write_text(FILTERED.format(tail=".repeat()"))
    config = {"batch_size": 64, "input": "tf.data", "jit_compile": False}
    data = one_trial(str(filtered), config)[0]
    # the filter keeps 1366 of 2048 samples (labels 0 and 1): cardinality unknown until counted
    epochs = data["timed_steps"] // 22  # 1366 samples are 22 steps of 64
    assert round(data["samples_per_second"] * data["seconds"]) == 1366 * epochs and data["data"] == "dataset"
    refused = one_trial(str(endless), config)[0]
    assert "endless dataset" in refused["failure"]


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
    # issue 23: one trial compares nothing, so it changes nothing (it once advised jit_compile=False unmeasured)
    assert doc["code_change"] == "" and not doc["beats_noise"] and doc["tensorflow_processes"] == 1


def test_tune_cli_in_process_prints_the_table_the_recommendation_and_the_count():
    from tests.fakes.cli import mock_environment, run_cli
    from tests.fakes.nvml import FakeNvml

    env = mock_environment(nvml=FakeNvml.no_driver())
    env.worker_factory = worker_runner
    result = run_cli("tune", SCRIPT, "--budget", "1", env=env)
    lines = result.stdout.splitlines()
    assert result.exit_status == 0 and lines[0].startswith("step | configuration | samples/s | spread")
    assert lines[1].startswith("start, XLA off (tried last) | batch 32, numpy, float32, jit=False")
    assert lines[2].startswith("  best so far: batch 32, numpy, float32, jit=False") and "x the start" in lines[2]
    assert "Only the starting configuration was measured" in result.stdout
    assert "Keep your configuration" in result.stdout
    assert "in 1 TensorFlow process\n" in result.stdout


def test_tune_template_and_usage_errors():
    template = subprocess.run(
        [sys.executable, "-m", "tfgpu", "tune", "--template"], capture_output=True, text=True, timeout=60
    )
    assert "def build_model" in template.stdout
    missing = subprocess.run(
        [sys.executable, "-m", "tfgpu", "tune", "nope.py"], capture_output=True, text=True, timeout=60
    )
    assert missing.returncode == 2 and "No such file" in missing.stderr


def test_public_tune_on_arrays_and_on_a_dataset():
    import keras
    import pytest
    import tensorflow as tf
    from tests.fakes.scripts import tune_tiny

    import tfgpu
    from tfgpu.model.errors import DiagnosticError
    from tfgpu.report.tune import tune_conclusion

    x, y = tune_tiny.make_dataset()
    literal = {"optimizer": "adam", "loss": "sparse_categorical_crossentropy"}
    on_arrays = tfgpu.tune(tune_tiny.build_model, (x[:512], y[:512]), budget_seconds=1, compile_kwargs=literal)
    ds = tf.data.Dataset.from_tensor_slices((x[:512], y[:512]))
    on_dataset = tfgpu.tune(tune_tiny.build_model, ds, budget_seconds=1, compile_kwargs=literal, batch_size=32)
    for result in (on_arrays, on_dataset):
        assert result.baseline.outcome == "ok" and result.baseline.samples_per_second > 0, result.baseline.reason
        # what `tfgpu tune` prints after the trials, from the same report
        lines = tune_conclusion(result)
        assert lines and (result.code_change or "Keep your configuration") in "".join(lines)
        assert result.processes >= 1
    assert on_dataset.baseline.config.batch_size == 32
    with pytest.raises(DiagnosticError) as info:
        tfgpu.tune(tune_tiny.build_model, (x, y), compile_kwargs={"loss": keras.losses.SparseCategoricalCrossentropy()})
    assert info.value.reference == "tune-compile-kwargs-not-literal"
    with pytest.raises(DiagnosticError) as info:
        tfgpu.tune(tune_tiny.build_model, ds.repeat(), compile_kwargs=literal)
    assert info.value.reference == "tune-dataset-endless"


def test_the_fused_batchnorm_trial_runs_in_a_child_of_its_own_with_keras_numbers():
    script = str(Path(__file__).parents[1] / "fakes" / "scripts" / "tune_batchnorm.py")
    with TrialRunner(script, worker_runner("tune"), None, dict(os.environ)) as runner:
        keras_bn = runner("start", TrialConfig(batch_size=64, input="tf.data", jit_compile=False))
        fused = runner("batch normalization", replace(keras_bn.config, batchnorm="fused"))
        assert runner.processes == 2  # the patch is process-wide: a child of its own
    assert keras_bn.batchnorm_layers == 1 and fused.outcome == "ok", fused.reason
    assert abs(fused.loss - keras_bn.loss) <= 1e-3 * abs(keras_bn.loss)  # the same training, step for step


def test_an_epoch_takes_at_most_max_epoch_steps_batches_of_the_data(tmp_path):
    """A real dataset's epoch can take hours: a trial's epochs use its first 200 batches, arrays or tf.data."""
    from tfgpu.probe.tune_worker import MAX_EPOCH_STEPS

    for pipeline in ("numpy", "tf.data"):
        data = one_trial(SCRIPT, {"batch_size": 4, "input": pipeline, "jit_compile": False})[0]
        assert data["timed_steps"] % MAX_EPOCH_STEPS == 0, data  # 2048 samples would be 512 steps
        epochs = data["timed_steps"] // MAX_EPOCH_STEPS
        assert round(data["samples_per_second"] * data["seconds"]) == 4 * MAX_EPOCH_STEPS * epochs
    filtered = tmp_path / "filtered.py"
    filtered.write_text(FILTERED.format(tail=""))
    capped = one_trial(str(filtered), {"batch_size": 4, "input": "tf.data", "jit_compile": False})[0]
    assert capped["timed_steps"] % MAX_EPOCH_STEPS == 0, capped  # the unknown length is counted after take()


def test_a_tf_data_trial_of_arrays_shuffles_every_epoch_as_fit_does():
    # issue 23: the tf.data rewrite dropped the per-epoch shuffle that fit(x, y) does (and skipped its cost)
    import numpy as np
    import tensorflow as tf

    from tfgpu.probe import tune_worker as worker

    x = np.arange(256, dtype=np.float32).reshape(256, 1)
    for pipeline in ("tf.data", "tf.data+cache"):
        arguments, count = worker.make_input(tf, (x, x), {"batch_size": 256, "input": pipeline})
        first, second = ([float(v) for v in next(iter(arguments["x"]))[0][:, 0]] for _ in range(2))
        assert count == 256 and sorted(first) == sorted(second) == list(range(256))
        assert first != second and first != list(range(256)), pipeline


@pytest.mark.timeout(600)
def test_piped_tune_shows_each_trial_as_it_ends():
    # issue 23: under `| tee` tune printed nothing for the whole budget (a block-buffered pipe)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tfgpu", "tune", SCRIPT, "--budget", "300"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
    )
    try:
        assert proc.stdout is not None
        line = ""
        for line in proc.stdout:
            if line.rstrip().endswith("s left"):
                break
        assert line.rstrip().endswith("s left"), "no trial row before the end"
        assert proc.poll() is None  # the row came while tune was still running, not at its exit
    finally:
        proc.kill()
        proc.communicate(timeout=30)
