"""tfgpu bench on tensorflow-cpu: the CLI in process, the real worker in its child, tiny sizes."""

import os
import sys

from tests.fakes.cli import mock_environment, run_cli
from tests.fakes.nvml import FakeNvml

from tfgpu.probe.runner import worker_runner


def bench_json(suite: str) -> dict:
    """``tfgpu bench --suite SUITE --json`` on this machine's CPU; it must exit 0."""
    env = mock_environment(nvml=FakeNvml.no_driver())
    env.worker_factory = worker_runner
    result = run_cli("bench", "--suite", suite, "--json", env=env)
    assert result.exit_status == 0, result.stderr[-2000:]
    return result.json


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


def test_a_fused_batchnorm_workload_runs_in_a_child_with_the_patch():
    """The bench worker loads configure/batchnorm.py by path and refuses a fused spec without it."""
    from tfgpu.bench.run import run_benchmark

    spec = {"kind": "model", "model": "resnet50", "batch": 1, "steps": 1, "batchnorm": "fused"}
    result = run_benchmark("models", [spec], worker_runner("bench"), gpu_name=None, environ=dict(os.environ))
    (entry,) = result.entries
    assert entry.ok and entry.value and entry.name == "resnet50 float32 b1 fused-bn", entry.error
    unpatched = run_benchmark("models", [spec], _WithoutPatch(), gpu_name=None, environ=dict(os.environ))
    assert not unpatched.entries[0].ok and "without TFGPU_FUSED_BATCHNORM" in unpatched.entries[0].error


class _WithoutPatch:
    """The real worker, started without the variable the parent sets: the spec must fail, not run unfused."""

    def __init__(self):
        self.runner = worker_runner("bench")

    def run(self, task, *, timeout_seconds=0, env=None, args=()):
        env = {k: v for k, v in (env or {}).items() if k != "TFGPU_FUSED_BATCHNORM"}
        return self.runner.run(task, timeout_seconds=timeout_seconds, env=env, args=args)


def test_an_xla_workload_compiles_into_tfgpus_xla_cache_as_tfgpu_run_would(tmp_path):
    from tfgpu.bench.run import run_benchmark
    from tfgpu.system.runner import SubprocessRunner

    spec = {"kind": "model", "model": "mnist_cnn", "batch": 8, "steps": 2, "xla": True}
    environ = dict(os.environ, TFGPU_CACHE_DIR=str(tmp_path), TF_CPP_MIN_LOG_LEVEL="2")
    result = run_benchmark(
        "models",
        [spec],
        worker_runner("bench"),
        gpu_name=None,
        environ=environ,
        python=sys.executable,
        command_runner=SubprocessRunner(),
    )
    (entry,) = result.entries
    assert entry.ok, entry.error
    assert list((tmp_path / "xla").rglob("*.pb")), "the child compiled nothing into the cache"
