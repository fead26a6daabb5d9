"""tfgpu burn --tiny on tensorflow-cpu: the real worker, checked products, PASS."""

import json
import os
import subprocess
import sys


def test_burn_tiny_passes_and_reports_json():
    result = subprocess.run(
        [sys.executable, "-m", "tfgpu", "burn", "--tiny", "--minutes", "0.05", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (cpu,) = json.loads(result.stdout)["gpus"]
    assert cpu["passed"] and cpu["iterations"] > 0 and cpu["mismatches"] == 0


def test_burn_without_a_gpu_falls_back_to_the_cpu_and_says_so():
    from tests.fakes.cli import mock_environment, run_cli
    from tests.fakes.nvml import FakeNvml

    from tfgpu.probe.runner import worker_runner

    env = mock_environment(nvml=FakeNvml.no_driver())
    env.worker_factory = worker_runner  # in process, with the real worker in its child
    result = run_cli("burn", "--minutes", "0.05", env=env)
    assert result.exit_status == 0 and "burning the CPU with small products instead" in result.stderr
    assert result.stdout.startswith("PASS CPU:") and "GPU" not in result.stdout


def test_burn_without_tensorflow_says_so_and_blames_no_device(tmp_path):
    # issue 23: it exited 4 (a failed device) and printed only "The burn on the CPU failed"
    stand_in = tmp_path / "tensorflow"
    stand_in.mkdir()
    (stand_in / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'tensorflow'\", name='tensorflow')\n"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-m", "tfgpu", "burn", "--tiny", "--minutes", "0.05"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "TensorFlow is not installed in the Python that runs the burn" in result.stdout
    assert "No module named 'tensorflow'" in result.stdout
