"""Everything a command touches outside itself, injected (httpie's Environment)."""

from __future__ import annotations

import contextlib
import functools
import getpass
import io
import os
import socket
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from tfgpu.cli.streams import SafeStream
from tfgpu.model.errors import UsageError
from tfgpu.system.files import save_document, write_new
from tfgpu.system.runner import CommandRunner, SubprocessRunner

if TYPE_CHECKING:
    from rich.console import Console

    from tfgpu.doctor.collect import Sources
    from tfgpu.nvml.client import NvmlClient
    from tfgpu.probe.runner import Worker, WorkerRunner


def _pynvml_client() -> NvmlClient:
    # Imported on first use: `tfgpu --help` and `--from` never load NVML.
    from tfgpu.nvml.client import PynvmlClient

    return PynvmlClient()


def _subprocess_worker(worker: Worker, python: str | None) -> WorkerRunner:
    from tfgpu.probe.runner import worker_runner

    return worker_runner(worker, python)


def _user() -> str | None:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return None


MIN_COLUMNS = 40
MAX_COLUMNS = 1000
PIPED_COLUMNS = 160
"""Output no terminal shows (a pipe, a log file) is as wide as the widest table (bench's, tune's rows)."""


@dataclass
class CliEnvironment:
    """Streams, colour, the process environment and factories for the outside systems."""

    stdout: TextIO
    stderr: TextIO
    stdin: TextIO
    environ: Mapping[str, str]
    color: bool
    """Colour on stdout: a terminal, without NO_COLOR or TERM=dumb."""
    stderr_color: bool = False
    """The same for stderr, which may be a terminal while stdout is piped, or a log file while stdout is not."""
    runner_factory: Callable[[], CommandRunner] = SubprocessRunner
    nvml_factory: Callable[[], NvmlClient] = _pynvml_client
    worker_factory: Callable[[Worker, str | None], WorkerRunner] = _subprocess_worker
    """The TensorFlow children (doctor's probe, bench, burn, tune) with the interpreter to run them."""
    user: str | None = None
    host: str | None = None
    home: str | None = None
    """This user's home directory, which ``--markdown`` removes wherever it is (not only under /home)."""

    def sources(self) -> Sources:
        """The seams the doctor's collectors read this machine through (fakes in tests)."""
        from tfgpu.doctor.collect import Sources  # the collectors load only for the commands that read the machine

        return Sources(runner=self.runner_factory(), nvml=self.nvml_factory(), environ=self.environ)

    @functools.cached_property
    def console(self) -> Console:
        """The one rich console on stdout (made on first use: rich loads only for human output)."""
        return self._console(self.stdout, self.color)

    @functools.cached_property
    def error_console(self) -> Console:
        """The one rich console on stderr, coloured by stderr's own terminal (httpie's rich_error_console)."""
        return self._console(self.stderr, self.stderr_color)

    def _console(self, stream: TextIO, color: bool) -> Console:
        from tfgpu.report.text import make_console

        return make_console(stream, color=color, width=self.width(stream))

    def width(self, stream: TextIO, default: int = PIPED_COLUMNS) -> int:
        """Columns for output on ``stream``: $COLUMNS, else the terminal's width, else ``default`` (piped output).

        Output of a fixed width wrapped badly in narrow terminals and wasted wide ones.
        """
        columns = self.environ.get("COLUMNS", "")
        if columns.isascii() and columns.isdigit() and MIN_COLUMNS <= int(columns) <= MAX_COLUMNS:
            return int(columns)
        try:
            if stream.isatty():
                return max(MIN_COLUMNS, min(MAX_COLUMNS, os.get_terminal_size(stream.fileno()).columns))
        except (OSError, ValueError, AttributeError):  # not a real file (a test's StringIO) or no terminal
            pass
        return default

    def save(self, path: str, document: str) -> None:
        """Write a document the user asked for (``--json FILE``, ``--save FILE``): whole or not at all.

        Raises:
            UsageError: it cannot be written (nothing is left behind).
        """
        save_document(path, document)

    def create(self, path: str, text: str) -> None:
        """Create a new file the user named; one that exists is never replaced.

        Raises:
            UsageError: the file exists (nothing the user has is changed without asking) or cannot be written.
        """
        try:
            write_new(Path(path), text)
        except FileExistsError:
            raise UsageError(f"{path} exists; choose a new file name (tfgpu never overwrites)") from None
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None

    @contextlib.contextmanager
    def progress(self, message: str) -> Iterator[None]:
        """A spinner on stderr while a slow step runs, only when stderr is a terminal."""
        if not self.stderr_color:
            yield
            return
        with self.error_console.status(message):
            yield

    @classmethod
    def from_process(cls) -> CliEnvironment:
        """The real environment of this process; colour only on a TTY without NO_COLOR."""
        stdout, stderr = cast(TextIO, SafeStream(sys.stdout)), cast(TextIO, SafeStream(sys.stderr))
        allowed = "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"
        return cls(
            stdout=stdout,
            stderr=stderr,
            stdin=sys.stdin if sys.stdin is not None else io.StringIO(),
            environ=dict(os.environ),
            color=allowed and stdout.isatty(),
            stderr_color=allowed and stderr.isatty(),
            user=_user(),
            host=socket.gethostname(),
            home=os.path.expanduser("~"),
        )
