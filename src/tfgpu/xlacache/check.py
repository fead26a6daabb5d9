"""Questions for the interpreter that will train, asked in a child: its packages, and whether its XLA takes our flags.

XLA parses ``TF_XLA_FLAGS`` and ``XLA_FLAGS`` with "die if unknown" (xla/parse_flags_from_env.cc):
one flag an older TensorFlow lacks ends the user's process at its first compilation. So every
flag is tried first in a throwaway child of the same interpreter, and the answer is remembered
per set of package versions (one TensorFlow import per install, not per run).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tfgpu.system.files import read_regular, write_atomically
from tfgpu.system.runner import CommandRunner

VERSIONS_TIMEOUT_SECONDS = 30.0
FLAG_CHECK_TIMEOUT_SECONDS = 180.0
"""A TensorFlow import (13 s on the H200, 6-10 s on a 2-core machine) and one tiny CPU compilation."""
MAX_ANSWER_CHARS = 64 * 1024

PACKAGES = (
    "tensorflow",
    "tensorflow-cpu",
    "tf-nightly",
    "nvidia-cudnn-cu12",
    "nvidia-cublas-cu12",
    "nvidia-cuda-nvcc-cu12",
    "nvidia-cuda-runtime-cu12",
    "nvidia-nvjitlink-cu12",
)
"""The distributions whose versions decide what XLA builds: TF (its XLA), cuDNN and cuBLAS, ptxas."""

_VERSIONS_CODE = """
import importlib.metadata as m, json, platform, sys
out = {}
for name in sys.argv[1:]:
    try:
        out[name] = m.version(name)
    except Exception:
        pass
out["python"] = platform.python_implementation() + " " + platform.python_version()
print(json.dumps(out))
"""

_FLAGS_CODE = """
import json, os, sys
os.environ.update(json.loads(sys.argv[1]))
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
os.environ["CUDA_VISIBLE_DEVICES"] = ""
import tensorflow as tf
f = tf.function(lambda x: x * 2.0 + 1.0, jit_compile=True)
value = float(f(tf.constant(1.0)))
print(json.dumps({"value": value, "files": len(os.listdir(sys.argv[2]))}))
"""
"""The check: the flags set before TensorFlow starts, then one compilation on the CPU (XLA reads its
flags at its first compilation); the persistent cache must have written its program."""


def interpreter_versions(runner: CommandRunner, python: str) -> dict[str, str] | None:
    """The versions of PACKAGES in ``python``'s environment (stdlib only, ~0.1 s), None when it cannot say."""
    result = runner.run((python, "-c", _VERSIONS_CODE, *PACKAGES), timeout_seconds=VERSIONS_TIMEOUT_SECONDS)
    if not result.ok:
        return None
    try:
        answer = json.loads(result.stdout[:MAX_ANSWER_CHARS].strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    if not isinstance(answer, dict):
        return None
    return {str(k): str(v) for k, v in answer.items() if isinstance(v, str)}


@dataclass(frozen=True)
class FlagCheck:
    """Whether the interpreter's XLA took the flags; ``reason`` says why not."""

    accepted: bool
    reason: str = ""
    ran: bool = False
    """Whether a child was started for this answer (False: it was remembered)."""


_UNKNOWN = re.compile(r"Unknown flags? in \w+: ?(.{0,200})")


def _refusal(stderr: str) -> str:
    match = _UNKNOWN.search(stderr)
    if match:
        return f"unknown flag {match.group(1).strip()}"
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1][:200] if lines else "the check ended without an answer"


def run_flag_check(
    runner: CommandRunner, python: str, flags: Mapping[str, Sequence[tuple[str, str]]], scratch_parent: Path
) -> FlagCheck:
    """Start ``python`` with the flags (the cache pointed at a scratch directory) and compile once.

    ``flags`` maps a variable to (name, value) pairs; the persistent cache directory is replaced
    by the scratch one, so the check writes nothing where the real programs live.
    """
    scratch_parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="check-", dir=scratch_parent))
    try:
        variables = {
            variable: " ".join(
                f"--{name}={scratch if name == 'tf_xla_persistent_cache_directory' else value}"
                for name, value in pairs
                if name != "tf_xla_persistent_cache_read_only"  # read-only would write nothing to show
            )
            for variable, pairs in flags.items()
        }
        result = runner.run(
            (python, "-c", _FLAGS_CODE, json.dumps(variables), str(scratch)), timeout_seconds=FLAG_CHECK_TIMEOUT_SECONDS
        )
        if result.timed_out:
            return FlagCheck(False, f"the check took more than {FLAG_CHECK_TIMEOUT_SECONDS:.0f} s")
        if not result.ok:
            return FlagCheck(False, _refusal(result.stderr[-MAX_ANSWER_CHARS:]))
        try:
            answer = json.loads(result.stdout[-MAX_ANSWER_CHARS:].strip().splitlines()[-1])
        except (ValueError, IndexError):
            return FlagCheck(False, "the check printed no answer")
        if not isinstance(answer, dict) or answer.get("value") != 3.0:
            return FlagCheck(False, "the check computed a wrong value")
        if not answer.get("files"):
            return FlagCheck(False, "this TensorFlow wrote no program to the persistent cache")
        return FlagCheck(True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


CHECKED_FILE = "checked.json"
MAX_CHECKED = 64


def checked_flags(
    runner: CommandRunner,
    python: str,
    versions: Mapping[str, str],
    flags: Mapping[str, Sequence[tuple[str, str]]],
    root: Path,
    *,
    writable: bool,
) -> FlagCheck:
    """``run_flag_check``, remembered in ``root/checked.json`` per versions and flag names."""
    names = sorted(f"{variable}:{name}" for variable, pairs in flags.items() for name, _ in pairs)
    memo_key = hashlib.sha256(json.dumps([sorted(versions.items()), names]).encode()).hexdigest()[:16]
    memo_path = root / CHECKED_FILE
    memo = _read_memo(memo_path)
    if memo_key in memo:
        entry = memo[memo_key]
        return FlagCheck(bool(entry.get("accepted")), str(entry.get("reason", "")))
    # A read-only cache (shared by a team) is checked in a scratch directory elsewhere, and not remembered.
    check = replace(run_flag_check(runner, python, flags, root if writable else Path(tempfile.gettempdir())), ran=True)
    if writable and (check.accepted or "unknown flag" in check.reason):  # a timeout is asked again next time
        memo[memo_key] = {"accepted": check.accepted, "reason": check.reason, "checked_unix": time.time()}
        newest = sorted(memo.items(), key=lambda item: _when(item[1]))[-MAX_CHECKED:]
        _write_memo(memo_path, dict(newest))
    return check


def _when(entry: Mapping[str, object]) -> float:
    value = entry.get("checked_unix")
    return float(value) if isinstance(value, (int, float)) else 0.0


def _read_memo(path: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(read_regular(path, MAX_ANSWER_CHARS * 4))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, dict)}


def _write_memo(path: Path, memo: Mapping[str, object]) -> None:
    """Remember the checks; a cache that cannot be written asks again next time."""
    with contextlib.suppress(OSError):
        write_atomically(path, json.dumps(memo))
