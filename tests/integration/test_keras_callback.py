"""GpuMonitor inside a real model.fit on tensorflow-cpu."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.fakes.nvml import FakeNvml


def _tiny_model():
    import keras

    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
    model.compile(loss="sparse_categorical_crossentropy", optimizer="sgd")
    return model


def test_gpu_metrics_reach_history_with_the_nvml_fake():
    from tfgpu.integrations.keras import GpuMonitor

    x, y = np.random.rand(256, 4).astype("float32"), np.random.randint(0, 3, 256)
    monitor = GpuMonitor(interval_seconds=0.01, nvml=FakeNvml.from_recording("h200", "under_load"), verbose=False)
    history = _tiny_model().fit(x, y, epochs=2, batch_size=32, verbose=0, callbacks=[monitor])
    assert history.history["gpu0/utilization_mean_percent"] and len(history.history["gpu0/power_mean_watts"]) == 2
    assert monitor.verdicts and monitor.verdicts[0].id == "gpu-busy"


def test_log_dir_writes_tensorboard_scalars_without_the_tensorboard_package(tmp_path):
    """TF 2.21 no longer installs tensorboard; the scalars are TF's own summary records that TensorBoard reads."""
    import tensorflow as tf

    from tfgpu.integrations.keras import GpuMonitor

    x, y = np.random.rand(256, 4).astype("float32"), np.random.randint(0, 3, 256)
    monitor = GpuMonitor(
        interval_seconds=0.01, nvml=FakeNvml.from_recording("h200", "under_load"), verbose=False, log_dir=str(tmp_path)
    )
    _tiny_model().fit(x, y, epochs=2, batch_size=32, verbose=0, callbacks=[monitor])
    written = {}
    for path in (tmp_path / "gpu").iterdir():
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            for value in event.summary.value:
                written.setdefault(value.tag, []).append(
                    (event.step, value.metadata.plugin_data.plugin_name, float(tf.make_ndarray(value.tensor)))
                )
    steps = written["gpu0/utilization_mean_percent"]
    assert [(step, plugin) for step, plugin, _ in steps] == [(0, "scalars"), (1, "scalars")]
    assert all(0 <= figure <= 100 for _, _, figure in steps)


def test_the_textfile_carries_the_gpus_and_the_trainings_pace(tmp_path):
    from prometheus_client.parser import text_string_to_metric_families

    from tfgpu.integrations.keras import GpuMonitor

    x, y = np.random.rand(256, 4).astype("float32"), np.random.randint(0, 3, 256)
    path = tmp_path / "training.prom"
    monitor = GpuMonitor(
        interval_seconds=0.01,
        nvml=FakeNvml.from_recording("h200", "under_load"),
        verbose=False,
        textfile=str(path),
        batch_size=32,
    )
    _tiny_model().fit(x, y, epochs=2, batch_size=32, verbose=0, callbacks=[monitor])
    families = {f.name: f for f in text_string_to_metric_families(path.read_text())}
    assert families["tfgpu_training_epoch"].samples[0].value == 2
    step = families["tfgpu_training_step_seconds"].samples[0].value
    assert 0 < step <= families["tfgpu_training_epoch_seconds"].samples[0].value / 8  # 8 steps of 32 in an epoch
    assert families["DCGM_FI_DEV_GPU_UTIL"].samples[0].labels["modelName"] == "NVIDIA H200"
    epoch = families["tfgpu_training_epoch_seconds"].samples[0].value
    assert families["tfgpu_training_samples_per_second"].samples[0].value == pytest.approx(256 / epoch)


def test_on_a_cpu_machine_it_says_no_gpu_is_monitored_and_training_goes_on():
    code = (
        "import numpy as np, keras\n"
        "from tfgpu.integrations.keras import GpuMonitor\n"
        "m = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])\n"
        "m.compile(loss='mse', optimizer='sgd')\n"
        "h = m.fit(np.zeros((64, 4)), np.zeros((64, 2)), epochs=1, verbose=0, callbacks=[GpuMonitor()])\n"
        "print('EPOCHS', len(h.history['loss']))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert "EPOCHS 1" in result.stdout, result.stderr[-2000:]
    assert "no GPU is monitored" in result.stdout


def test_importing_the_integration_loads_no_keras():
    code = "import sys, tfgpu.integrations.keras; print([m for m in ('keras', 'tensorflow') if m in sys.modules])"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "[]"


def test_a_plot_without_matplotlib_is_refused_when_the_callback_is_made(capsys, monkeypatch):
    import importlib.util

    from tfgpu.integrations.keras import GpuMonitor

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    monitor = GpuMonitor(plot="run.png", nvml=FakeNvml.single_gpu())
    assert monitor.plot is None and "needs matplotlib (pip install 'tfgpu[plot]')" in capsys.readouterr().out


def _conv_bn_model():
    import keras

    model = keras.Sequential(
        [
            keras.Input(shape=(8, 8, 3)),
            keras.layers.Conv2D(4, 3),
            keras.layers.BatchNormalization(),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(8),
            keras.layers.BatchNormalization(),  # rank 2: cuDNN's fused kernel is for NHWC images, not counted
            keras.layers.Dense(3, activation="softmax"),
        ]
    )
    model.compile(loss="sparse_categorical_crossentropy", optimizer="sgd", jit_compile=False)
    return model


def test_a_busy_gpu_running_keras3_unfused_batch_norm_is_told_the_fused_kernel_first():
    """Issue 16: "busy" was the verdict for Keras 3's ResNet-50 at 0.27 of PyTorch; its batch norm was half the step."""
    from tfgpu.integrations.keras import GpuMonitor

    x, y = np.random.rand(64, 8, 8, 3).astype("float32"), np.random.randint(0, 3, 64)
    monitor = GpuMonitor(interval_seconds=0.01, nvml=FakeNvml.from_recording("h200", "under_load"), verbose=False)
    _conv_bn_model().fit(x, y, epochs=1, batch_size=16, verbose=0, callbacks=[monitor])
    first = monitor.verdicts[0]
    assert first.id == "keras3-batchnorm-unfused" and first.summary.startswith("1 BatchNormalization layers")
    assert any("tfgpu.setup(batchnorm='fused')" in a for a in first.advice)
    assert any(a.startswith("or, unchanged: tfgpu run --batchnorm fused") for a in first.advice)
    assert monitor.verdicts[1].id == "gpu-busy"


def test_after_setup_fused_no_layer_is_counted_unfused():
    code = (
        "import tfgpu, keras\n"
        "from tfgpu.configure.batchnorm import unfused_batchnorm_layers\n"
        "m = keras.Sequential([keras.Input(shape=(8, 8, 3)), keras.layers.Conv2D(4, 3), keras.layers.BatchNormalization()])\n"
        "before = unfused_batchnorm_layers(m)\n"
        "tfgpu.setup(batchnorm='fused')\n"
        "print('COUNTS', before, unfused_batchnorm_layers(m))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert "COUNTS 1 0" in result.stdout, result.stderr[-2000:]


def test_under_tf_keras_it_is_a_working_callback():
    # issue 23: a Keras 3 subclass crashed tf_keras's fit (AttributeError: _implements_train_batch_hooks)
    code = (
        "import numpy as np, tensorflow as tf\n"
        "from tests.fakes.nvml import FakeNvml\n"
        "from tfgpu.integrations.keras import GpuMonitor\n"
        "m = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(2)])\n"
        "m.compile(loss='mse', optimizer='sgd')\n"
        "monitor = GpuMonitor(interval_seconds=0.01, nvml=FakeNvml.from_recording('h200', 'under_load'), verbose=False)\n"
        "h = m.fit(np.zeros((4096, 4)), np.zeros((4096, 2)), epochs=2, batch_size=8, verbose=0, callbacks=[monitor])\n"
        "print('KERAS', type(m).__module__.split('.')[0])\n"
        "print('EPOCHS', len(h.history['loss']), len(h.history['gpu0/power_mean_watts']))\n"
        "print('VERDICT', monitor.verdicts[0].id)\n"
    )
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="2")
    root = str(Path(__file__).parents[2])
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env, cwd=root
    )
    assert "KERAS tf_keras" in result.stdout, result.stderr[-2000:]
    assert "EPOCHS 2 2" in result.stdout and "VERDICT gpu-busy" in result.stdout


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "256"])
def test_a_batch_size_that_is_not_one_is_refused_in_words(bad):
    from tfgpu.integrations.keras import GpuMonitor
    from tfgpu.model.errors import DiagnosticError

    with pytest.raises(DiagnosticError, match="positive integer"):
        GpuMonitor(nvml=FakeNvml.from_recording("h200"), verbose=False, batch_size=bad)


XLA_FIT = (
    "import sys, numpy as np, keras\n"
    "from tests.fakes.nvml import FakeNvml\n"
    "from tfgpu.integrations.keras import GpuMonitor\n"
    "x, y = np.random.rand(256, 4).astype('float32'), np.random.randint(0, 3, 256)\n"
    "m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation='relu'), keras.layers.Dense(3)])\n"
    "m.compile('adam', keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)\n"
    "monitor = GpuMonitor(interval_seconds=0.01, nvml=FakeNvml.from_recording('h200', 'under_load'),\n"
    "                     verbose=False, textfile=sys.argv[1])\n"
    "m.fit(x, y, epochs=2, batch_size=32, verbose=0, callbacks=[monitor])\n"
)


def test_the_textfile_counts_xla_compiles_then_cache_loads_across_two_runs(tmp_path):
    """A real XLA persistent cache (TF writes it for XLA on the CPU too): the first run compiles, the second loads."""
    from prometheus_client.parser import text_string_to_metric_families

    cache = tmp_path / "xla"
    cache.mkdir()
    env = dict(os.environ, TF_XLA_FLAGS=f"--tf_xla_persistent_cache_directory={cache}", TF_CPP_MIN_LOG_LEVEL="2")
    root = str(Path(__file__).parents[2])
    counts = []
    for run in ("first", "second"):
        path = tmp_path / f"{run}.prom"
        result = subprocess.run(
            [sys.executable, "-c", XLA_FIT, str(path)], capture_output=True, text=True, timeout=300, env=env, cwd=root
        )
        assert result.returncode == 0, result.stderr[-2000:]
        families = {f.name: f for f in text_string_to_metric_families(path.read_text())}
        counts.append(
            tuple(families[f"tfgpu_xla_cache_programs_{kind}"].samples[0].value for kind in ("compiled", "loaded"))
        )
        assert families["tfgpu_training_bottleneck"].samples  # the epoch's verdict, from the fake's readings
        assert 0 <= families["tfgpu_training_gpu_idle_ratio"].samples[0].value <= 1
    (compiled, loaded), (compiled_again, loaded_again) = counts
    assert compiled >= 1 and loaded == 0
    assert compiled_again == 0 and loaded_again >= 1
