"""SubprocessRunner with real child processes: output, exit codes, timeouts, missing programs."""

import sys

import pytest

from tfgpu.system.runner import SubprocessRunner


def test_runner_captures_output_and_exit_code():
    r = SubprocessRunner().run(
        (sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)")
    )
    assert (r.returncode, r.stdout.strip(), r.stderr.strip(), r.ok) == (3, "out", "err", False)


@pytest.mark.timeout(45)  # the children sleep 60 s: only the group kill ends the test in time
def test_runner_kills_the_whole_process_group_on_timeout():
    code = "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    r = SubprocessRunner().run((sys.executable, "-c", code), timeout_seconds=1)
    assert r.timed_out and r.returncode is None


def test_runner_reports_missing_program():
    r = SubprocessRunner().run(("definitely-not-a-program-tfgpu",))
    assert r.missing and not r.ok


def test_runner_decodes_invalid_utf8_with_replacement():
    r = SubprocessRunner().run((sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'\\xff\\xfeok')"))
    assert r.stdout.endswith("ok") and "\ufffd" in r.stdout
