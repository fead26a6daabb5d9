"""The one choke point for external commands: argv lists, a timeout, no shell."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from dataclasses import dataclass
from typing import Protocol

DEFAULT_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class CommandResult:
    """What a command did. ``missing`` means the program does not exist on this machine."""

    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    missing: bool = False

    @property
    def ok(self) -> bool:
        """The command ran to completion and exited 0."""
        return self.returncode == 0 and not self.timed_out and not self.missing


class CommandRunner(Protocol):
    """Runs one command to completion. Never raises for a failing or missing program."""

    def run(self, argv: tuple[str, ...], timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS) -> CommandResult:
        """Run ``argv`` and return its outcome."""
        ...


class SubprocessRunner:
    """The real runner: a new session per child, so a timeout kills the whole process group.

    ``nvidia-smi`` can hang for minutes on a wedged driver; collect_env's missing timeouts
    are the anti-pattern this avoids.
    """

    def run(self, argv: tuple[str, ...], timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS) -> CommandResult:
        """Run ``argv`` without a shell, decoding output with replacement characters."""
        try:
            proc = subprocess.Popen(
                list(argv),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
            return CommandResult(None, "", str(exc), missing=True)
        try:
            out, err = proc.communicate(timeout=timeout_seconds)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            out, err = proc.communicate()
            return CommandResult(None, _text(out), _text(err), timed_out=True)
        return CommandResult(proc.returncode, _text(out), _text(err))


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")
