"""tfgpu run's closing summary goes to stderr: coloured by what stderr is, not by stdout."""

from __future__ import annotations

import sys

import pytest
from tests.fakes.cli import mock_environment, run_cli


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("stderr_color", "escapes"), [(False, False), (True, True)])
def test_the_summary_is_coloured_only_when_stderr_is_a_terminal(stderr_color, escapes):
    env = mock_environment()
    env.color = True  # stdout on a terminal; stderr redirected to a log file in the first case
    env.stderr_color = stderr_color
    result = run_cli("run", "--", sys.executable, "-c", "pass", env=env)
    assert result.exit_status == 0 and "exit status 0" in result.stderr
    assert ("\x1b[" in result.stderr) is escapes
