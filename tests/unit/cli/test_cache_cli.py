import json

from tests.fakes.cli import mock_environment, run_cli

from tfgpu.model.xla_cache import CacheRun, CacheUse
from tfgpu.xlacache.key import key_for
from tfgpu.xlacache.store import key_directory, record_run, write_key


def filled(tmp_path):
    root = tmp_path / "xla"
    key = key_for({"tensorflow": "2.21.0", "gpus": "NVIDIA H200 sm_90"})
    directory = key_directory(root, key)
    write_key(directory, key)
    (directory / "xla_compile_cache__1__2__GPU.pb").write_bytes(b"x" * 2048)
    record_run(root, CacheRun(1.7e9, key.digest, "python train.py", CacheUse(3, 0, 56.0)))
    return key


def test_cache_json_lists_keys_sizes_and_runs(tmp_path):
    key = filled(tmp_path)
    result = run_cli("cache", "--json", env=mock_environment(environ={"TFGPU_CACHE_DIR": str(tmp_path)}))
    assert result.exit_status == 0
    doc = json.loads(result.stdout)
    assert (doc["command"], doc["mode"], doc["size_bytes"]) == ("cache", "on", 2048)
    assert doc["keys"][0]["digest"] == key.digest
    assert doc["keys"][0]["parts"]["tensorflow"] == "2.21.0"
    assert doc["runs"][0]["use"]["first_epoch_seconds"] == 56.0


def test_cache_human_output_names_the_tensorflow_and_gpu(tmp_path):
    filled(tmp_path)
    result = run_cli("cache", env=mock_environment(environ={"TFGPU_CACHE_DIR": str(tmp_path)}))
    assert "tensorflow 2.21.0" in result.stdout
    assert "NVIDIA H200 sm_90" in result.stdout
    assert "2.0 KiB" in result.stdout


def test_cache_clear_removes_the_programs(tmp_path):
    filled(tmp_path)
    result = run_cli("cache", "--clear", "--json", env=mock_environment(environ={"TFGPU_CACHE_DIR": str(tmp_path)}))
    doc = json.loads(result.stdout)
    assert (doc["removed_bytes"], doc["keys"], doc["runs"]) == (2048, [], [])


def test_cache_clear_of_a_read_only_cache_refuses_and_keeps_it(tmp_path):
    filled(tmp_path)
    environ = {"TFGPU_CACHE_DIR": str(tmp_path), "TFGPU_XLA_CACHE": "read-only"}
    doc = json.loads(run_cli("cache", "--clear", "--json", env=mock_environment(environ=environ)).stdout)
    assert doc["size_bytes"] == 2048
    assert any("read-only" in p for p in doc["problems"])


def test_cache_with_nothing_cached_says_what_fills_it(tmp_path):
    result = run_cli("cache", env=mock_environment(environ={"TFGPU_CACHE_DIR": str(tmp_path)}))
    assert result.exit_status == 0
    assert "nothing cached yet" in result.stdout


def test_cache_with_a_bad_mode_variable_is_a_usage_error(tmp_path):
    environ = {"TFGPU_CACHE_DIR": str(tmp_path), "TFGPU_XLA_CACHE": "maybe"}
    result = run_cli("cache", env=mock_environment(environ=environ))
    assert result.exit_status == 2
    assert "TFGPU_XLA_CACHE" in result.stderr
