"""The one choke point for external commands: argv lists, a timeout, no shell."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Protocol

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
            proc = start_in_session(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
            return CommandResult(None, "", str(exc), missing=True)
        try:
            out, err = proc.communicate(timeout=timeout_seconds)
        except subprocess.TimeoutExpired:
            kill_process_group(proc.pid)
            out, err = proc.communicate()
            return CommandResult(None, _text(out), _text(err), timed_out=True)
        return CommandResult(proc.returncode, _text(out), _text(err))


def start_in_session(
    argv: Sequence[str], *, stdout: int | IO[bytes], stderr: int | IO[bytes], env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start a child with no stdin in a session of its own, so kill_process_group can end it all.

    Raises:
        OSError: the program cannot be started.
    """
    return subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        env=dict(env) if env is not None else None,
        start_new_session=True,
    )


def kill_process_group(pid: int) -> None:
    """SIGKILL a child started with start_new_session=True, and everything it started."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


def stream_command(
    argv: tuple[str, ...], on_line: Callable[[str], None], timeout_seconds: float | None = None
) -> int | None:
    """Run a user's command with stdout and stderr merged, handing each line to ``on_line``.

    For ``tfgpu explain --run``: the command is the user's own (a training script), so the
    timeout is theirs to give. Returns the exit status, or None when the program is missing.
    A timeout kills the process group and returns -9.

    Raises:
        KeyboardInterrupt: after stopping the child, so the caller can report it.
    """
    try:
        proc = start_in_session(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except (FileNotFoundError, PermissionError, NotADirectoryError):
        return None
    assert proc.stdout is not None
    deadline = None if timeout_seconds is None else time.monotonic() + timeout_seconds
    try:
        for raw in proc.stdout:
            on_line(raw.decode("utf-8", errors="replace"))
            if deadline is not None and time.monotonic() > deadline:
                kill_process_group(proc.pid)
                break
        return proc.wait()
    except KeyboardInterrupt:
        kill_process_group(proc.pid)
        proc.wait()
        raise
