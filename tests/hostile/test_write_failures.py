"""Issue 25, class 8: output that cannot be written is an error, not a silent success."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.fakes.cli import mock_environment, run_cli
from tests.fakes.nvml import FakeNvml

from tfgpu.system.files import write_new


@pytest.mark.timeout(120)
def test_a_full_disk_under_stdout_is_exit_1_with_the_reason():
    with open("/dev/full", "w") as full:  # every write fails with ENOSPC, as on a full disk
        result = subprocess.run(
            [sys.executable, "-m", "tfgpu", "doctor", "--static", "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 1
    assert "the output could not be written: No space left on device" in result.stderr


@pytest.mark.timeout(120)
def test_a_reader_that_stops_early_is_not_a_failure():
    result = subprocess.run(
        f"{sys.executable} -m tfgpu doctor --static --json | head -c 1 >/dev/null; echo ${{PIPESTATUS[0]}}",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.stdout.strip() in ("0", "3")  # the doctor's own status
    assert "could not be written" not in result.stderr


@pytest.mark.timeout(120)
def test_run_returns_its_commands_status_whatever_happens_to_the_output():
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "tfgpu", "run", "--", sys.executable, "-c", "import sys; sys.exit(7)"],
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    assert result.returncode == 7


def _monitor(*args: str):
    return run_cli(
        "monitor", "--interval", "0.01", "--duration", "0.03", *args, env=mock_environment(FakeNvml.single_gpu())
    )


def test_monitor_csv_to_a_full_device_is_an_error_with_the_reason_not_an_internal_error():
    result = _monitor("--csv", "/dev/full")
    assert (
        result.exit_status == 1 and "cannot write /dev/full" in result.stderr and "internal error" not in result.stderr
    )


def test_monitor_csv_refuses_a_symbolic_link_and_a_second_run_appends_rows_only(tmp_path):
    target = tmp_path / "victim.txt"
    target.write_text("keep me\n")
    link = tmp_path / "gpu.csv"
    link.symlink_to(target)
    refused = _monitor("--csv", str(link))
    assert refused.exit_status == 2 and "symbolic link" in refused.stderr and target.read_text() == "keep me\n"
    log = tmp_path / "real.csv"
    _monitor("--csv", str(log))
    _monitor("--csv", str(log))
    lines = log.read_text().splitlines()
    assert lines.count(lines[0]) == 1 and len(lines) >= 3  # one header, the rows of both runs


def test_bench_save_replaces_a_symbolic_link_instead_of_writing_through_it(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    saved = tmp_path / "bench.json"
    saved.symlink_to(victim)
    result = run_cli("bench", "--save", str(saved), env=mock_environment())
    assert victim.read_text() == "keep me\n"
    assert "internal error" not in result.stderr and not saved.is_symlink() and '"entries"' in saved.read_text()


@pytest.mark.timeout(60)
def test_fix_env_write_on_a_full_disk_leaves_nothing_that_blocks_the_retry(tmp_path):
    target = tmp_path / "tfgpu-env.sh"
    code = (
        "import resource, sys; from pathlib import Path; from tfgpu.system.files import write_new\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))  # writes past 16 bytes fail (EFBIG), like a full disk\n"
        f"write_new(Path({str(target)!r}), 'export LD_LIBRARY_PATH=/x\\n' * 10)\n"
    )
    failed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=False)
    assert failed.returncode != 0 and "File too large" in failed.stderr
    assert list(tmp_path.iterdir()) == []  # no empty file, no temporary one
    write_new(target, "export LD_LIBRARY_PATH=/x\n")
    assert target.read_text() == "export LD_LIBRARY_PATH=/x\n"
    with pytest.raises(FileExistsError):
        write_new(target, "other\n")  # never replaces what is there
