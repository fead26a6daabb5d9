"""tfgpu bench on tensorflow-cpu: the real worker, tiny sizes."""

import json
import subprocess
import sys


def test_bench_quick_json_on_the_cpu():
    result = subprocess.run(
        [sys.executable, "-m", "tfgpu", "bench", "--suite", "quick", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == 1 and doc["gpu_name"] is None
    names = [e["name"] for e in doc["entries"]]
    assert "matmul bfloat16 256" in names and all(e["ok"] for e in doc["entries"])
    matmul = next(e for e in doc["entries"] if e["name"] == "matmul bfloat16 256")
    assert matmul["value"] > 0 and matmul["relative_error"] < 0.05


def test_scaling_suite_runs_mirrored_replicas_on_two_logical_cpus():
    result = subprocess.run(
        [sys.executable, "-m", "tfgpu", "bench", "--suite", "scaling", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    entries = {e["name"]: e for e in json.loads(result.stdout)["entries"]}
    replicated = entries["mnist_cnn float32 b32 x2 reduce_to_one"]
    assert replicated["ok"] and replicated["value"] > 0 and replicated["scaling_efficiency"] > 0
