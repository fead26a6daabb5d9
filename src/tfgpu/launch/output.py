"""Read a training command's output as it streams past (``tfgpu run``): problems, epochs, XLA.

``tfgpu run`` must judge how the script ended, not only how busy the GPU was: a script that
crashed in its first step left the GPU idle, and "waits for input" would be the wrong verdict.
Each line goes through explain's streaming matcher (bounded memory, whatever the length of the
run) and a reader of Keras's progress bar, whose finished-epoch lines give the epoch times
from which the compile share of the run is named.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import IO, TextIO

from tfgpu.knowledge.scanner import LogScanner, strip_ansi
from tfgpu.system.runner import MAX_LINE_CHARS, LineSplitter, decoded_chunks

MAX_EPOCHS = 100_000
_BREAK = re.compile(r"[\r\n]")
_EPOCH = re.compile(r"^Epoch (\d+)/(\d+)\s*$")
# Keras 3 at the end of an epoch: "750/750 ━━━━ 62s 80ms/step - ..." (verbose=1) or
# "750/750 - 62s - 80ms/step - ..." (verbose=2); before it, "N/N ━━━━ 0s" is the ETA.
_EPOCH_DONE = re.compile(r"^\s*(\d+)/(\d+) (?:━+ |- )(\d+)s\b")
_XLA = "Compiled cluster using XLA"
_TRACEBACK = "Traceback (most recent call last):"
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)(?::\s|$)")
MAX_EXCEPTION_LINES = 12
MAX_EXCEPTION_CHARS = 2000
_EXCEPTION_END = ("Arguments received by", "During handling of the above exception", "The above exception was")


class OutputWatch:
    """Fed every output line of the child (from the pump threads); read once the child is done."""

    def __init__(self) -> None:
        self._scanner: LogScanner | None = None
        self.epoch_seconds: list[float] = []
        self.xla_seen = False
        self.traceback_seen = False
        self.exception: list[str] = []
        """The last traceback's exception, whole: Keras 3 explains a shape mismatch over several lines."""
        self._in_traceback = False
        self._collecting = False
        self._lock = threading.RLock()  # feed() holds it when it first asks for the scanner

    @property
    def scanner(self) -> LogScanner:
        """Explain's matcher, built on first use: ``tfgpu run`` starts the command first (the base takes ~0.3 s to load)."""
        with self._lock:
            if self._scanner is None:
                self._scanner = LogScanner()
            return self._scanner

    def feed(self, line: str) -> None:
        r"""One line of output, split at ``\n`` or ``\r``.

        Keras redraws its progress bar with ``\r`` and backspaces: each redraw is a line here,
        and the last one of an epoch is the finished epoch with its time.
        """
        last = line.replace("\b", "") if "\b" in line else line
        with self._lock:
            self.scanner.feed(last)
            text = strip_ansi(last).strip()
            self._follow_exception(strip_ansi(last).rstrip())
            if _TRACEBACK in text:
                self.traceback_seen = True
            if _XLA in text:
                self.xla_seen = True
            elif text.startswith("Epoch "):
                if _EPOCH.match(text) and len(self.epoch_seconds) < MAX_EPOCHS:
                    self.epoch_seconds.append(0.0)
            elif self.epoch_seconds and "/" in text:  # inside an epoch
                done = _EPOCH_DONE.match(text)
                if done and done.group(1) == done.group(2):
                    self.epoch_seconds[-1] = float(done.group(3))  # the last such line is the finished one

    def _follow_exception(self, line: str) -> None:
        """After a traceback's frames, keep its exception line and the message lines under it."""
        if _TRACEBACK in line:
            self._in_traceback, self._collecting = True, False
        elif self._in_traceback and _EXCEPTION.match(line):
            self.exception, self._in_traceback, self._collecting = [line], False, True
        elif self._collecting:
            if line.startswith(_EXCEPTION_END) or len(self.exception) >= MAX_EXCEPTION_LINES:
                self._collecting = False
            elif sum(map(len, self.exception)) < MAX_EXCEPTION_CHARS:
                self.exception.append(line)

    def exception_text(self) -> str | None:
        """The script's last exception with its message lines (blank lines dropped), None when it raised none."""
        lines = [line.strip() for line in self.exception if line.strip()]
        return "\n".join(lines)[:MAX_EXCEPTION_CHARS] if lines else None

    def finished_epochs(self) -> tuple[float, ...]:
        """Seconds of each epoch whose end Keras printed."""
        return tuple(s for s in self.epoch_seconds if s > 0)


def pump(stream: IO[bytes], out: TextIO, watch: OutputWatch, prefix: str = "") -> None:
    r"""Copy the child's output to ``out`` as it comes, and feed its lines to ``watch``.

    Alone, the bytes reach ``out`` unchanged (through its ``write_bytes`` where it has one: invalid
    UTF-8 and ``\r`` redraws stay as the command wrote them). With a ``prefix`` (one of several
    workers sharing ``out``) whole lines are written, each with the prefix, so two workers never
    interleave inside a line. A line longer than MAX_LINE_CHARS is handled in pieces, and a
    closed ``out`` (``tfgpu run ... | head -1``) stops the copying but not the reading, so the
    child never blocks on a full pipe.
    """
    lines = LineSplitter(MAX_LINE_CHARS)
    raw: Callable[[bytes], None] | None = getattr(out, "write_bytes", None)
    writing = True

    def show(text: str, data: bytes | None = None) -> None:
        nonlocal writing
        if writing and (text or data):
            try:
                if data is not None and raw is not None:
                    if data:
                        raw(data)
                else:
                    out.write(text)
                    out.flush()
            except (OSError, ValueError):  # a closed pipe or file: keep draining the child
                writing = False

    def handle(complete: list[str]) -> None:
        if prefix:  # each line whole and marked, so workers never interleave inside one
            show("".join(f"{prefix}{line}" if line.endswith("\n") else f"{prefix}{line}\n" for line in complete))
        for line in complete:
            for part in _BREAK.split(line[:-1] if line.endswith("\n") else line):
                watch.feed(part)

    for chunk, text in decoded_chunks(stream.fileno()):
        if not prefix:
            show(text, chunk)
        handle(lines.push(text))
    handle(lines.rest())
