"""Run ``worker.py`` by path in a child interpreter, with a timeout and the stderr tail kept.

Stderr goes to a temporary file, not a pipe, so a child that floods it cannot block or fill
memory; only its last ``STDERR_TAIL_BYTES`` are read back. The worker is found with
``importlib.resources`` and run by file path, never with ``-m``: the child does not execute
``tfgpu/__init__.py`` and needs no tfgpu installed (pip's ``__pip-runner__.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

from tfgpu.probe.protocol import SCHEMA_VERSION
from tfgpu.system.runner import kill_process_group, start_in_session

STDERR_TAIL_BYTES = 256 * 1024
DEFAULT_TIMEOUT_SECONDS = 180.0


@dataclass(frozen=True)
class ProbeRun:
    """What one child run gave back.

    ``status``: ``ok`` (an envelope was read), ``timed_out``, ``crashed`` or ``protocol_error``.
    """

    status: str
    python: str
    seconds: float
    timeout_seconds: float
    envelope: dict[str, Any] | None
    stderr: str
    returncode: int | None
    signal: int | None = None
    problem: str | None = None


class ProbeRunner(Protocol):
    """Runs one worker task in a child process."""

    def run(
        self,
        task: str,
        *,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        env: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
    ) -> ProbeRun:
        """Run ``task`` and return what came back; never raises for a failing child."""
        ...


def worker_path() -> str:
    """The file path of ``worker.py`` inside the installed package."""
    return str(resources.files("tfgpu.probe").joinpath("worker.py"))


class SubprocessProbeRunner:
    """The real ProbeRunner. ``python`` is the interpreter to probe (default: this one)."""

    def __init__(self, python: str | None = None, worker: str | None = None) -> None:
        self.python = python or sys.executable
        self.worker = worker or worker_path()

    def run(
        self,
        task: str,
        *,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        env: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
    ) -> ProbeRun:
        """Run the worker; kill its whole process group if it outlives ``timeout_seconds``."""
        with tempfile.TemporaryDirectory(prefix="tfgpu-probe-") as tmp:
            output = os.path.join(tmp, "result.json")
            err_path = os.path.join(tmp, "stderr.log")
            argv = [self.python, self.worker, task, "--output", output, *args]
            start = time.monotonic()
            with open(err_path, "wb") as err:
                try:
                    proc = start_in_session(argv, stdout=subprocess.DEVNULL, stderr=err, env=env)
                except OSError as exc:
                    return ProbeRun(
                        "crashed",
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
                    "timed_out",
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
                return ProbeRun("ok", self.python, seconds, timeout_seconds, envelope, stderr, rc, sig)
            status = (
                "crashed" if sig is not None or (rc not in (0, None) and problem == "no output") else "protocol_error"
            )
            return ProbeRun(status, self.python, seconds, timeout_seconds, None, stderr, rc, sig, problem)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    kill_process_group(proc.pid)
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _tail(path: str) -> str:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - STDERR_TAIL_BYTES))
        data = fh.read()
    text = data.decode("utf-8", errors="replace")
    return text if size <= STDERR_TAIL_BYTES else text.split("\n", 1)[-1]


def _read_envelope(path: str, task: str) -> tuple[dict[str, Any] | None, str]:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except FileNotFoundError:
        return None, "no output"
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"unreadable output: {exc}"
    if not isinstance(doc, dict) or doc.get("schema_version") != SCHEMA_VERSION or doc.get("task") != task:
        return (
            None,
            f"unexpected envelope (schema_version {doc.get('schema_version') if isinstance(doc, dict) else '?'})",
        )
    return doc, ""
