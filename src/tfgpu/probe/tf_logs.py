"""Parse the TensorFlow log lines that say which libraries loaded, which GPUs TF created, and why not.

Each pattern is tolerant of the prefixes TF has used (``2023-06-19 17:03:27.840554: W file.cc:64]``,
``W0000 00:00:1753232013.685876   24341 file.cc:2431]``), CRLF, ANSI colour and curly quotes.
The corpus lines these were written against are in tests/fixtures/tf_logs/.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tfgpu.model.probe import LogEvent

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_Q = "['‘’\"]?"

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "dso_failed",
        re.compile(
            rf"Could not load dynamic library {_Q}(?P<library>[^'‘’\";\s]+){_Q};?\s*(?:dlerror:\s*(?P<detail>.*))?"
        ),
    ),
    (
        "library_load_failed",
        re.compile(r"Could not load library (?P<library>[^\s'\"]+?)\.?\s+Error: (?P<detail>.*)"),
    ),
    ("autotuner_no_config", re.compile(r"Autotuner could not find any supported configs")),
    ("dso_loaded", re.compile(r"[Ss]uccessfully opened (?:dynamic|CUDA) library (?P<library>\S+)")),
    ("cannot_dlopen", re.compile(r"Cannot dlopen some GPU libraries")),
    ("cuda_drivers_not_found", re.compile(r"Could not find cuda drivers on your machine")),
    ("cuinit_failed", re.compile(r"failed call to cuInit: (?P<detail>CUDA_ERROR_\w+(?:: [^\r\n]*)?)")),
    (
        "device_created",
        re.compile(
            r"Created (?:TensorFlow )?device \(?(?P<library>/job:\S+?/device:GPU:\d+) with (?P<detail>\d+) MB memory\)?"
        ),
    ),
    (
        "device_ignored",
        re.compile(
            r"Ignoring visible gpu device .*?compute capability:? (?P<library>\d+\.\d+)\)?.*?minimum required Cuda capability is (?P<detail>\d+\.\d+)"
        ),
    ),
    (
        "ptx_jit",
        re.compile(r"not built with CUDA kernel binaries compatible with compute capability (?P<library>\d+\.\d+)"),
    ),
    (
        "cudnn_mismatch",
        re.compile(
            r"Loaded runtime CuDNN library: (?P<library>\d+(?:\.\d+)*) but source was compiled with: (?P<detail>\d+(?:\.\d+)*)"
        ),
    ),
    ("cudnn_loaded", re.compile(r"Loaded cuDNN version (?P<library>\d+)")),
    (
        "libdevice_missing",
        re.compile(
            r"libdevice not found|Can't find libdevice directory|libdevice is required by this HLO module but was not found"
        ),
    ),
    ("ptxas_missing", re.compile(r"Couldn't (?:find|get) ptxas|ptxas (?:binary )?not found|Can't find ptxas")),
    (
        "driver_older_than_ptx",
        re.compile(
            r"driver's CUDA version is (?P<library>[\d.]+) which is older than the PTX compiler version (?P<detail>[\d.]+)"
        ),
    ),
    (
        "cuda_error",
        re.compile(
            r"(?P<library>CUDA_ERROR_(?:UNSUPPORTED_PTX_VERSION|INVALID_PTX|INVALID_HANDLE|NO_BINARY_FOR_GPU|OUT_OF_MEMORY))"
        ),
    ),
)


def clean(line: str) -> str:
    """A log line without ANSI colour and trailing CR/LF."""
    return _ANSI.sub("", line).rstrip("\r\n")


def parse_lines(lines: Iterable[str]) -> tuple[LogEvent, ...]:
    """Every known event, in order, with its 1-based line number; one event per line at most."""
    events = []
    for number, raw in enumerate(lines, 1):
        line = clean(raw)
        if len(line) > 20000:  # a binary blob or a runaway line: keep the head only
            line = line[:20000]
        for kind, pattern in PATTERNS:
            match = pattern.search(line)
            if match:
                groups = match.groupdict()
                detail = groups.get("detail")
                events.append(
                    LogEvent(kind, number, line.strip(), groups.get("library"), detail.strip() if detail else None)
                )
                break
    return tuple(events)


def parse_log(text: str) -> tuple[LogEvent, ...]:
    """Events of a whole log text."""
    return parse_lines(text.splitlines())


def failed_libraries(events: Iterable[LogEvent]) -> list[str]:
    """Library names TF could not dlopen, in order, without repeats."""
    return list(dict.fromkeys(e.library for e in events if e.kind == "dso_failed" and e.library))


def failed_dependencies(events: Iterable[LogEvent]) -> list[str]:
    """Library names TF's libraries could not load later (cuDNN: "Could not load library libnvrtc.so.12")."""
    return list(dict.fromkeys(e.library for e in events if e.kind == "library_load_failed" and e.library))


_ERROR_NOISE = re.compile(r"^(?:Graph execution error:|Detected at node|Node: |Hint: |\[\[|\[Op:|File \"|Traceback )")


def summarize_error(message: str) -> str:
    """The line of a TensorFlow error message that says what went wrong.

    A ``Graph execution error`` starts with boilerplate and the Python frames that built the
    node; the cause (OOM, "Failed to determine best cudnn convolution algorithm", an XLA
    INTERNAL status) comes after them, followed by ``[[{{node …}}]]`` and hints.
    """
    lines = [line.strip() for line in _ANSI.sub("", message).splitlines()]
    indented = {i for i, raw in enumerate(message.splitlines()) if raw[:1] in (" ", "\t")}
    for i, line in enumerate(lines):
        if line and i not in indented and not _ERROR_NOISE.match(line):
            return line
    return next((line for line in lines if line), "")
