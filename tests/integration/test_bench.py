"""tfgpu bench on tensorflow-cpu: the real worker, tiny sizes."""

import json
import subprocess
import sys


def bench_json(suite: str) -> dict:
    """``tfgpu bench --suite SUITE --json`` in a child; it must exit 0."""
    result = subprocess.run(
        [sys.executable, "-m", "tfgpu", "bench", "--suite", suite, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


def test_bench_quick_json_on_the_cpu():
    doc = bench_json("quick")
    assert doc["schema_version"] == 1 and doc["gpu_name"] is None
    names = [e["name"] for e in doc["entries"]]
    assert "matmul bfloat16 256" in names and all(e["ok"] for e in doc["entries"])
    matmul = next(e for e in doc["entries"] if e["name"] == "matmul bfloat16 256")
    assert matmul["value"] > 0 and matmul["relative_error"] < 0.05


def test_scaling_suite_runs_mirrored_replicas_on_two_logical_cpus():
    entries = {e["name"]: e for e in bench_json("scaling")["entries"]}
    replicated = entries["mnist_cnn float32 b32 x2 reduce_to_one"]
    assert replicated["ok"] and replicated["value"] > 0 and replicated["scaling_efficiency"] > 0
