from __future__ import annotations

import io
import json

from tests.fakes.cli import mock_environment, run_cli

from tfgpu.cli.exit_status import ExitStatus

MISMATCH = "E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.\n"
BENIGN = "I tensorflow/core/util/port.cc:153] oneDNN custom operations are on.\n"


def test_explain_file_reports_problem_first_and_harmless_lines(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(BENIGN + MISMATCH)
    result = run_cli("explain", str(log), "--no-facts")
    assert result.exit_status == ExitStatus.FINDINGS_ERROR
    assert result.stdout.index("cuDNN 8.0.5") < result.stdout.index("Harmless")
    assert "line 2" in result.stdout and "nvidia-cudnn-cu12" in result.stdout


def test_explain_only_harmless_lines_exits_0(tmp_path):
    log = tmp_path / "ok.log"
    log.write_text(BENIGN)
    result = run_cli("explain", str(log), "--no-facts")
    assert result.exit_status == ExitStatus.SUCCESS and "No known problem" in result.stdout


def test_explain_json_is_versioned(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(MISMATCH)
    doc = run_cli("explain", str(log), "--json", "--no-facts").json
    assert doc["schema_version"] == 3 and doc["command"] == "explain"  # 3: why the facts were set aside
    assert doc["facts_set_aside"] is None  # --no-facts: there were none to set aside
    assert doc["problems"][0]["id"] == "cudnn-version-mismatch" and doc["problems"][0]["lines"][0]["line_number"] == 1
    assert doc["problems"][0]["reading"] == "as_written"


def test_explain_stdin():
    env = mock_environment()
    env.stdin = io.TextIOWrapper(io.BytesIO(MISMATCH.encode()))
    result = run_cli("explain", "-", "--json", "--no-facts", env=env)
    assert json.loads(result.stdout)["problems"][0]["category"] == "cudnn_version_mismatch"


def test_bad_inputs_are_usage_errors_with_a_message(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    binary = tmp_path / "model.bin"
    binary.write_bytes(bytes(range(256)) * 100)
    for args, words in (
        ((str(tmp_path / "missing.log"),), "cannot read"),
        ((str(tmp_path),), "directory"),
        ((str(empty),), "empty"),
        ((str(binary),), "binary"),
    ):
        result = run_cli("explain", *args, "--no-facts")
        assert result.exit_status == ExitStatus.USAGE and words in result.stderr and "Traceback" not in result.stderr
    assert run_cli("explain", "a.log", "--run", "--", "true").exit_status == ExitStatus.USAGE
    assert run_cli("explain", "--run").exit_status == ExitStatus.USAGE
    assert run_cli("explain", "--", "true").exit_status == ExitStatus.USAGE
