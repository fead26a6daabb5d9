from __future__ import annotations

import json

from tests.fakes.cli import mock_environment, run_cli
from tests.fakes.nvml import FakeNvml

from tfgpu.cli.exit_status import ExitStatus
from tfgpu.model.documents import SCHEMA_VERSIONS, Document


def test_doctor_without_driver_exits_3_with_a_report():
    result = run_cli("doctor")
    assert result.exit_status == ExitStatus.FINDINGS_ERROR
    assert "Hardware & driver" in result.stdout and "TensorFlow" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_doctor_json_is_versioned_and_round_trips_through_from(tmp_path):
    result = run_cli("doctor", "--json", env=mock_environment(FakeNvml.single_gpu()))
    doc = result.json
    assert doc["schema_version"] == SCHEMA_VERSIONS[Document.DOCTOR] and doc["tool"] == "tfgpu"
    assert doc["facts"]["gpus"][0]["name"] == "NVIDIA H200"
    saved = tmp_path / "report.json"
    saved.write_text(result.stdout)
    again = run_cli("doctor", "--json", "--from", str(saved))
    assert again.json["findings"] == doc["findings"]
    assert again.exit_status == result.exit_status


def test_doctor_markdown_is_redacted():
    env = mock_environment(FakeNvml.single_gpu(), environ={"PATH": "/home/ada/bin", "TF_VAR_api_token": "s3cr3t-value"})
    out = run_cli("doctor", "--markdown", env=env).stdout
    assert out.startswith("### tfgpu doctor report")
    assert "GPU-8b3a1f2e" not in out and "GPU-<uuid>" in out
    assert "/home/ada" not in out and "s3cr3t-value" not in out and "ada-workstation" not in out


def test_doctor_strict_counts_warnings():
    env = mock_environment(FakeNvml.single_gpu(), environ={"PATH": "/usr/bin", "TF_GPU_ALLOCATOR": "bogus"})
    loose = run_cli("doctor", "--json", env=env)
    assert any(f["id"] == "tf-gpu-allocator-invalid" for f in loose.json["findings"])
    env2 = mock_environment(FakeNvml.single_gpu(), environ={"PATH": "/usr/bin", "TF_GPU_ALLOCATOR": "bogus"})
    assert run_cli("doctor", "--strict", env=env2).exit_status == ExitStatus.FINDINGS_ERROR


def test_doctor_from_missing_file_is_a_usage_error(tmp_path):
    result = run_cli("doctor", "--from", str(tmp_path / "nope.json"))
    assert result.exit_status == ExitStatus.USAGE
    assert "cannot read" in result.stderr and "Traceback" not in result.stderr


def test_doctor_from_garbage_is_a_usage_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\x00\xffnot json")
    assert run_cli("doctor", "--from", str(bad)).exit_status == ExitStatus.USAGE
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"tool": "something-else"}))
    result = run_cli("doctor", "--from", str(other))
    assert result.exit_status == ExitStatus.USAGE and "not a tfgpu" in result.stderr


def test_unknown_option_is_usage_and_no_command_prints_help():
    assert run_cli("doctor", "--no-such-flag").exit_status == ExitStatus.USAGE
    result = run_cli()
    assert result.exit_status == ExitStatus.USAGE and "doctor" in result.stdout


def test_json_and_markdown_are_exclusive():
    assert run_cli("doctor", "--json", "--markdown").exit_status == ExitStatus.USAGE


def test_issue_19_exit_zero_replay_banner_and_an_empty_fix_env_write(tmp_path):
    assert run_cli("doctor").exit_status == ExitStatus.FINDINGS_ERROR
    assert run_cli("doctor", "--exit-zero").exit_status == ExitStatus.SUCCESS
    saved = tmp_path / "report.json"
    saved.write_text(run_cli("doctor", "--json").stdout)
    replay = run_cli("doctor", "--from", str(saved))
    assert replay.stdout.startswith(f"Replayed from {saved}: facts collected by tfgpu")
    target = tmp_path / "tf-env.sh"
    result = run_cli("doctor", "--fix-env", "--write", str(target))
    assert result.exit_status == ExitStatus.SUCCESS and not target.exists() and "nothing to write" in result.stderr


def test_output_follows_columns():
    """Issue 23: output ignored the terminal's width (COLUMNS, stty cols); fixes still never wrap."""
    widths = {}
    for columns in ("60", "150"):
        env = mock_environment(environ={"PATH": "/usr/bin", "COLUMNS": columns})
        out = run_cli("doctor", "--static", env=env).stdout
        prose = [line for line in out.splitlines() if "fix:" not in line and "http" not in line]
        widths[columns] = max(map(len, prose))
    assert widths["60"] <= 60 < widths["150"] <= 150
