"""run_cli(): the CLI in-process with injected streams and seams (httpie's tests.utils.http)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from tests.fakes.nvml import FakeNvml
from tests.fakes.probe import FakeProbe
from tests.fakes.runner import FakeCommandRunner
from tfgpu.cli.environment import CliEnvironment
from tfgpu.cli.main import main


@dataclass
class CliResult:
    stdout: str
    stderr: str
    exit_status: int

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)


def mock_environment(
    nvml: FakeNvml | None = None, runner: FakeCommandRunner | None = None, probe: FakeProbe | None = None, **kwargs: Any
) -> CliEnvironment:
    return CliEnvironment(
        stdout=io.StringIO(),
        stderr=io.StringIO(),
        stdin=io.StringIO(),
        environ=kwargs.pop("environ", {"PATH": "/usr/bin"}),
        color=False,
        runner_factory=lambda: runner or FakeCommandRunner(),
        nvml_factory=lambda: nvml or FakeNvml.no_driver(),
        worker_factory=lambda worker, python: probe or FakeProbe(),
        user=kwargs.pop("user", "ada"),
        host=kwargs.pop("host", "ada-workstation"),
    )


def run_cli(*argv: str, env: CliEnvironment | None = None) -> CliResult:
    env = env or mock_environment()
    status = main(list(argv), env)
    assert isinstance(env.stdout, io.StringIO) and isinstance(env.stderr, io.StringIO)
    return CliResult(env.stdout.getvalue(), env.stderr.getvalue(), status)


def tfgpu_child(*args: str, timeout: float = 120, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``python -m tfgpu ARGS`` in a real child process, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "tfgpu", *args], capture_output=True, text=True, timeout=timeout, check=False, **kwargs
    )
