"""Do no harm, differentially (issue 23): each script shape run plainly and under ``tfgpu run`` with an option
gives the same stdout, stderr (tfgpu's own lines aside), exit status, sys.path, module files and seeded losses."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = str(Path(__file__).parents[1] / "fakes" / "scripts" / "differential.py")
TIMING = re.compile(rb"\b\d+(?:\.\d+)?(?:ms|us|s)(?:/step)?\b")
"""Keras prints each epoch's time: the one thing two runs of the same script never share."""
TFGPU_OWN = (b"tfgpu run:", b"tfgpu.setup:", b"  - ", b"  ! ")
ANSI = re.compile(rb"\x1b\[[0-9;]*m")
TF_RECORD_STAMP = re.compile(rb"(?m)^(?:[IWEF]\d{4} \d\d:\d\d:\d+\.\d+\s+\d+ |\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: )")
"""The time and thread id TF stamps on its own log records: where TF turns oneDNN on (seen on a development machine
with AVX-512 VNNI, not on CI's) it logs so at import despite TF_CPP_MIN_LOG_LEVEL=3, and two runs never share the
stamp; the message itself is still compared."""


def settled(output: bytes) -> bytes:
    """What a reader sees once each line has settled: Keras redraws its bar with \\r and backspaces as time
    passes, so even two plain runs differ in the redraws; the last state of each line and its text are compared."""
    lines = []
    for line in output.split(b"\n"):
        last = line.rsplit(b"\r", 1)[-1]
        while b"\b" in last:
            last = re.sub(rb"[^\b]?\b", b"", last, count=1)
        lines.append(TIMING.sub(b"T", ANSI.sub(b"", last)).rstrip())
    return b"\n".join(lines)


def run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(command, capture_output=True, timeout=300, env=env, check=False)


def own_stderr(stderr: bytes) -> bytes:
    """The script's stderr: tfgpu's lines before and its summary after the command are not the script's."""
    body = TF_RECORD_STAMP.sub(b"", stderr.split(b"\n[tfgpu run]", 1)[0])
    return b"".join(line for line in body.splitlines(keepends=True) if not line.startswith(TFGPU_OWN))


@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    ("mode", "extra_env"),
    [
        ("fit0", {}),
        ("fit1", {}),
        ("fit2", {}),
        ("loop", {}),
        ("keras_first", {}),
        ("crash", {}),
        ("streams", {}),
        ("fit2", {"TF_USE_LEGACY_KERAS": "1"}),
    ],
)
def test_a_script_under_tfgpu_run_behaves_as_without_it(mode, extra_env):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONHASHSEED="0", **extra_env)
    plain = run([sys.executable, SCRIPT, mode], env)
    for options in ([], ["--memory", "2GiB"], ["--xla-cache", "off"]):
        under = run([sys.executable, "-m", "tfgpu", "run", *options, "--", sys.executable, SCRIPT, mode], env)
        what = f"{mode} {extra_env} {options}"
        assert under.returncode == plain.returncode, (what, under.stderr[-2000:])
        assert settled(under.stdout) == settled(plain.stdout), what
        assert own_stderr(under.stderr) == own_stderr(plain.stderr), what
