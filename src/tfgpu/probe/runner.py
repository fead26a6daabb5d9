"""Run ``worker.py`` by path in a child interpreter, with a timeout and the stderr tail kept.

A worker can also serve many requests from one child (``WorkerSession``): importing TensorFlow
and initialising the GPU take ~13 s on the H200, which a tuning trial of a few seconds should not
pay again each time.

Stderr goes to a temporary file, not a pipe, so a child that floods it cannot block or fill
memory; only its last ``STDERR_TAIL_BYTES`` are read back. The worker is found with
``importlib.resources`` and run by file path, never with ``-m``: the child does not execute
``tfgpu/__init__.py`` and needs no tfgpu installed (pip's ``__pip-runner__.py``).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from importlib import resources
from typing import Any, Literal, Protocol

from tfgpu.model.probe import PROBE_TIMEOUT_SECONDS
from tfgpu.probe.child_envelope import SCHEMA_VERSION
from tfgpu.system.files import read_regular
from tfgpu.system.runner import kill_process_group, start_in_session

STDERR_TAIL_BYTES = 256 * 1024


def worker_environ(env: Mapping[str, str] | None) -> dict[str, str]:
    """The child's environment: ``env`` (default: this process's) without PYTHONSAFEPATH.

    A worker run by path imports ``child_envelope`` from its own directory, which Python puts on
    ``sys.path`` only when PYTHONSAFEPATH is unset; the setting is the user's and concerns their
    scripts, not tfgpu's worker.
    """
    return {k: v for k, v in (os.environ if env is None else env).items() if k != "PYTHONSAFEPATH"}


class RunStatus(str, Enum):
    """How one request to a worker child ended: an answer was read, or why not."""

    OK = "ok"
    TIMED_OUT = "timed_out"
    CRASHED = "crashed"
    PROTOCOL_ERROR = "protocol_error"


def failed_status(returncode: int | None) -> RunStatus:
    """The one crash rule for both ways of running a worker.

    A child that a signal ended, or that exited non-zero, crashed; one that exited 0 without a
    readable answer broke the protocol.

    Examples:
        >>> [failed_status(rc).value for rc in (-11, 1, 0)]
        ['crashed', 'crashed', 'protocol_error']
    """
    return RunStatus.CRASHED if returncode not in (0, None) else RunStatus.PROTOCOL_ERROR


@dataclass(frozen=True)
class ProbeRun:
    """What one child run gave back: ``status`` says whether an envelope was read."""

    status: RunStatus
    python: str
    seconds: float
    timeout_seconds: float
    envelope: dict[str, Any] | None
    stderr: str
    returncode: int | None
    signal: int | None = None
    problem: str | None = None


class WorkerSession:
    """One worker child answering many requests (``python WORKER task --serve ARGS``).

    A request is one line of JSON on the child's stdin, ``{"spec": PATH, "output": PATH}``; the
    child writes the envelope to ``output`` (atomically) and reads the next line; EOF ends it.
    A request that outlives its timeout kills the child, and a child that died stays dead:
    whoever holds the session starts another, since a CUDA error or a hang can leave a
    process unusable and nothing is retried in it.

    Raises:
        OSError: the interpreter cannot be started (from the constructor).
    """

    def __init__(self, python: str, worker: str, task: str, env: Mapping[str, str] | None, args: Sequence[str]) -> None:
        self.python, self.task = python, task
        # The child runs the user's code, which may delete this directory: cleaning up after it is not an error.
        self._tmp = tempfile.TemporaryDirectory(prefix=f"tfgpu-{task}-serve-", ignore_cleanup_errors=True)
        self._err_path = os.path.join(self._tmp.name, "stderr.log")
        self._requests = 0
        with open(self._err_path, "wb") as err:
            try:
                self._proc = start_in_session(
                    [python, worker, task, "--serve", *args],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    env=worker_environ(env),
                )
            except OSError:
                self._tmp.cleanup()
                raise

    @property
    def alive(self) -> bool:
        """The child is running and can take a request."""
        return self._proc.poll() is None

    def request(self, spec: Any, timeout_seconds: float, poll_seconds: float = 0.05) -> ProbeRun:
        """Send ``spec`` and wait for its envelope; never raises for a failing child."""
        self._requests += 1
        spec_path = os.path.join(self._tmp.name, f"spec-{self._requests}.json")
        output = os.path.join(self._tmp.name, f"result-{self._requests}.json")
        start = time.monotonic()
        try:
            with open(spec_path, "w", encoding="utf-8") as fh:
                json.dump(spec, fh)
        except OSError as exc:  # the user's code removed tfgpu's working directory
            _kill(self._proc)
            self._proc.wait()
            return self._ended(
                RunStatus.PROTOCOL_ERROR, start, timeout_seconds, f"the child's working files are gone ({exc})"
            )
        try:
            assert self._proc.stdin is not None
            self._proc.stdin.write((json.dumps({"spec": spec_path, "output": output}) + "\n").encode())
            self._proc.stdin.flush()
        except OSError:
            pass  # the child is gone: reported below, with its exit status
        try:
            while not os.path.exists(output) and self._proc.poll() is None:
                if time.monotonic() - start > timeout_seconds:
                    _kill(self._proc)
                    return self._ended(
                        RunStatus.TIMED_OUT, start, timeout_seconds, f"no answer within {timeout_seconds:.0f} s"
                    )
                time.sleep(poll_seconds)
        except KeyboardInterrupt:
            self.close()
            raise
        envelope, problem = _read_envelope(output, self.task)
        if envelope is not None:
            rc = self._proc.returncode
            return ProbeRun(RunStatus.OK, self.python, time.monotonic() - start, timeout_seconds, envelope, "", rc)
        self._proc.wait()
        status = failed_status(self._proc.returncode)
        return self._ended(
            status, start, timeout_seconds, "the worker died" if status is RunStatus.CRASHED else problem
        )

    def _ended(self, status: RunStatus, start: float, timeout: float, problem: str) -> ProbeRun:
        """The failed request's run, with the child's stderr tail; the child is gone, and so are its files."""
        rc = self._proc.returncode
        sig = -rc if rc is not None and rc < 0 else None
        run = ProbeRun(
            status, self.python, time.monotonic() - start, timeout, None, _tail(self._err_path), rc, sig, problem
        )
        self.close()
        return run

    def close(self, grace_seconds: float = 10.0) -> None:
        """End the child (EOF first, so it can free the GPU; killed after ``grace_seconds``) and its files."""
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        if self._proc.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=grace_seconds)
        _kill(self._proc)
        self._tmp.cleanup()


class ProbeRunner(Protocol):
    """Runs one worker task in a child process."""

    def run(
        self,
        task: str,
        *,
        timeout_seconds: float = PROBE_TIMEOUT_SECONDS,
        env: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
    ) -> ProbeRun:
        """Run ``task`` and return what came back; never raises for a failing child."""
        ...


Worker = Literal["probe", "bench", "tune"]
WORKER_FILES: dict[Worker, str] = {"probe": "worker.py", "bench": "bench_worker.py", "tune": "tune_worker.py"}
"""The doctor's probe, bench's and burn's workloads, tune's trials: each a file run by path."""


def worker_path(worker: Worker = "probe") -> str:
    """The file path of a worker inside the installed package."""
    return str(resources.files("tfgpu.probe").joinpath(WORKER_FILES[worker]))


class ServingRunner(Protocol):
    """Starts a worker that answers many requests (``WorkerSession``) with the interpreter ``python``."""

    python: str

    def serve(self, task: str, *, env: Mapping[str, str] | None = None, args: Sequence[str] = ()) -> WorkerSession:
        """Start the child; raises OSError when it cannot start."""
        ...


class WorkerRunner(ProbeRunner, ServingRunner, Protocol):
    """Both ways to run a worker: one task per child, or many from one child."""


class SubprocessProbeRunner:
    """The real WorkerRunner. ``python`` is the interpreter to probe (default: this one)."""

    def __init__(self, python: str | None = None, worker: str | None = None) -> None:
        self.python = python or sys.executable
        self.worker = worker or worker_path()

    def serve(self, task: str, *, env: Mapping[str, str] | None = None, args: Sequence[str] = ()) -> WorkerSession:
        """Start ``task`` as a serving child (see WorkerSession)."""
        return WorkerSession(self.python, self.worker, task, env, args)

    def run(
        self,
        task: str,
        *,
        timeout_seconds: float = PROBE_TIMEOUT_SECONDS,
        env: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
    ) -> ProbeRun:
        """Run the worker; kill its whole process group if it outlives ``timeout_seconds``."""
        with tempfile.TemporaryDirectory(prefix="tfgpu-probe-", ignore_cleanup_errors=True) as tmp:
            output = os.path.join(tmp, "result.json")
            err_path = os.path.join(tmp, "stderr.log")
            argv = [self.python, self.worker, task, "--output", output, *args]
            start = time.monotonic()
            with open(err_path, "wb") as err:
                try:
                    proc = start_in_session(argv, stdout=subprocess.DEVNULL, stderr=err, env=worker_environ(env))
                except OSError as exc:
                    return ProbeRun(
                        RunStatus.CRASHED,
                        self.python,
                        0.0,
                        timeout_seconds,
                        None,
                        "",
                        None,
                        problem=f"cannot start {self.python}: {exc}",
                    )
                timed_out = False
                try:
                    proc.wait(timeout=timeout_seconds)
                except KeyboardInterrupt:
                    # The child has its own session and did not see Ctrl-C: stop it with us.
                    _kill(proc)
                    raise
                except subprocess.TimeoutExpired:
                    timed_out = True
                    _kill(proc)
            seconds = time.monotonic() - start
            stderr = _tail(err_path)
            rc = proc.returncode
            sig = -rc if rc is not None and rc < 0 else None
            if timed_out:
                return ProbeRun(
                    RunStatus.TIMED_OUT,
                    self.python,
                    seconds,
                    timeout_seconds,
                    None,
                    stderr,
                    None,
                    problem=f"no answer within {timeout_seconds:.0f} s",
                )
            envelope, problem = _read_envelope(output, task)
            if envelope is not None:
                return ProbeRun(RunStatus.OK, self.python, seconds, timeout_seconds, envelope, stderr, rc, sig)
            return ProbeRun(failed_status(rc), self.python, seconds, timeout_seconds, None, stderr, rc, sig, problem)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    kill_process_group(proc.pid)
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _tail(path: str) -> str:
    """The last STDERR_TAIL_BYTES of the child's stderr file; empty when the child's code removed it."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - STDERR_TAIL_BYTES))
            data = fh.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    return text if size <= STDERR_TAIL_BYTES else text.split("\n", 1)[-1]


MAX_ENVELOPE_BYTES = 64 << 20
"""A probe's answer is a few kB; the child is not trusted to keep it so (read within this, regular files only)."""


def _read_envelope(path: str, task: str) -> tuple[dict[str, Any] | None, str]:
    try:
        doc = json.loads(read_regular(path, MAX_ENVELOPE_BYTES).decode("utf-8"))
    except FileNotFoundError:
        return None, "no output"
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        return None, f"unreadable output: {exc}"
    if not isinstance(doc, dict) or doc.get("schema_version") != SCHEMA_VERSION or doc.get("task") != task:
        return (
            None,
            f"unexpected envelope (schema_version {doc.get('schema_version') if isinstance(doc, dict) else '?'})",
        )
    return doc, ""


def worker_runner(worker: Worker, python: str | None = None) -> SubprocessProbeRunner:
    """The real runner of one of the workers, with ``python`` (default: this interpreter)."""
    return SubprocessProbeRunner(python, worker=worker_path(worker))
