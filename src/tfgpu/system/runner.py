"""The one choke point for external commands: argv lists, a timeout, no shell."""

from __future__ import annotations

import codecs
import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
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
        """Run ``argv`` without a shell, decoding output with replacement characters.

        The deadline covers reading too: a grandchild that keeps the pipes open (a daemonised
        helper of a fake or broken ``nvidia-smi``) cannot hold the doctor past it, and each
        stream keeps at most MAX_OUTPUT_BYTES (the rest is read and dropped).
        """
        try:
            proc = start_in_session(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
            return CommandResult(None, "", str(exc), missing=True)
        except OSError as exc:  # there but not runnable: a link loop (ELOOP), no #! line (ENOEXEC), a busy file
            return CommandResult(None, "", f"{argv[0]} cannot be started: {exc.strerror or exc}")
        out, err, finished = _read_bounded(proc, time.monotonic() + timeout_seconds)
        if not finished:
            kill_process_group(proc.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=1.0)
            return CommandResult(None, _text(out), _text(err), timed_out=True)
        return CommandResult(proc.returncode, _text(out), _text(err))


MAX_OUTPUT_BYTES = 8 * 2**20
MAX_LINE_CHARS = 64 * 1024
EXITED_GRACE_SECONDS = 0.5


def _read_bounded(proc: subprocess.Popen[bytes], deadline: float) -> tuple[bytes, bytes, bool]:
    """Both pipes until they close and the child has exited, or the deadline; at most MAX_OUTPUT_BYTES each.

    Returns (stdout, stderr, finished): ``finished`` is False when the deadline came first.
    """
    assert proc.stdout is not None and proc.stderr is not None
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    kept = {out_fd: bytearray(), err_fd: bytearray()}
    with selectors.DefaultSelector() as selector:
        for fd in kept:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map() and (left := deadline - time.monotonic()) > 0:
            if proc.poll() is not None:
                # The child is done; what still holds the pipes is a descendant it left behind.
                deadline = min(deadline, time.monotonic() + EXITED_GRACE_SECONDS)
            for key, _ in selector.select(timeout=min(left, 0.5)):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fd)
                else:
                    room = MAX_OUTPUT_BYTES - len(kept[key.fd])
                    kept[key.fd] += chunk[: max(room, 0)]
        closed = not selector.get_map()
    if closed:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    exited = proc.poll() is not None  # before the pipes close: closing them would end a writer by SIGPIPE
    proc.stdout.close()
    proc.stderr.close()
    return bytes(kept[out_fd]), bytes(kept[err_fd]), exited


def start_in_session(
    argv: Sequence[str],
    *,
    stdout: int | IO[bytes],
    stderr: int | IO[bytes],
    env: Mapping[str, str] | None = None,
    stdin: int | IO[bytes] = subprocess.DEVNULL,
) -> subprocess.Popen[bytes]:
    """Start a child (no stdin unless given one) in a session of its own, so kill_process_group can end it all.

    Raises:
        OSError: the program cannot be started.
    """
    return subprocess.Popen(
        list(argv),
        stdin=stdin,
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


READ_BYTES = 65536


def decoded_chunks(fd: int) -> Iterator[tuple[bytes, str]]:
    """A pipe's bytes as they arrive, each chunk with its text (UTF-8, invalid bytes replaced), until EOF.

    The text of a character split between two chunks comes with the second; what an unfinished
    character leaves at the end comes last, as a replacement character with no bytes.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    for chunk in iter(lambda: os.read(fd, READ_BYTES), b""):
        yield chunk, decoder.decode(chunk)
    rest = decoder.decode(b"", final=True)
    if rest:
        yield b"", rest


class LineSplitter:
    r"""Text in as it arrives, lines out as they complete (each with its newline).

    A line longer than ``max_chars`` comes out in pieces without a newline, so a command that
    never ends its line (a progress bar redrawn with ``\r``) cannot grow memory.
    """

    def __init__(self, max_chars: int = MAX_LINE_CHARS) -> None:
        self.max_chars = max_chars
        self.pending = ""

    def push(self, text: str) -> list[str]:
        """The lines (and over-long pieces) that ``text`` completes."""
        parts = (self.pending + text).split("\n")
        self.pending = parts.pop()
        out = [part + "\n" for part in parts]
        while len(self.pending) > self.max_chars:
            out.append(self.pending[: self.max_chars])
            self.pending = self.pending[self.max_chars :]
        return out

    def rest(self) -> list[str]:
        """What is left at the end of the stream (a last line without a newline)."""
        rest, self.pending = self.pending, ""
        return [rest] if rest else []


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
    lines = LineSplitter()
    try:
        for _, text in decoded_chunks(proc.stdout.fileno()):
            for line in lines.push(text):
                on_line(line)
            if deadline is not None and time.monotonic() > deadline:
                kill_process_group(proc.pid)
                break
        for line in lines.rest():
            on_line(line)
        return proc.wait()
    except KeyboardInterrupt:
        kill_process_group(proc.pid)
        proc.wait()
        raise
