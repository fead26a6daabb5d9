"""GpuMonitor inside a real model.fit on tensorflow-cpu."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
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
