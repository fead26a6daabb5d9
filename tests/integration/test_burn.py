"""tfgpu burn --tiny on tensorflow-cpu: the real worker, checked products, PASS."""

import json
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
    result = subprocess.run(
        [sys.executable, "-m", "tfgpu", "burn", "--minutes", "0.05"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0 and "burning the CPU with small products instead" in result.stderr
    assert result.stdout.startswith("PASS CPU:") and "GPU" not in result.stdout
