"""Issue 25, class 8: output that cannot be written is an error, not a silent success."""

from __future__ import annotations

import subprocess
import sys

import pytest


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
