"""Decide how a run uses the cache: the key, the directory, the checked flags merged with the user's."""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from tfgpu.model.xla_cache import CacheMode, CachePlan
from tfgpu.nvml.client import NvmlClient
from tfgpu.system.runner import CommandRunner
from tfgpu.xlacache.check import checked_flags, interpreter_versions
from tfgpu.xlacache.devices import gpu_identity
from tfgpu.xlacache.flags import flag_names, merge_flags, safe_value
from tfgpu.xlacache.key import cpu_model, key_for, key_parts
from tfgpu.xlacache.levers import LEVER_NOTE, compile_levers
from tfgpu.xlacache.location import cache_limit_bytes, cache_mode, cache_root
from tfgpu.xlacache.store import evict, key_directory, write_key

TF_FLAGS = "TF_XLA_FLAGS"
DIRECTORY_FLAG = "tf_xla_persistent_cache_directory"
READ_ONLY_FLAG = "tf_xla_persistent_cache_read_only"
TENSORFLOWS = ("tensorflow", "tensorflow-cpu", "tf-nightly")


def cache_flags(directory: Path, mode: CacheMode) -> dict[str, list[tuple[str, str]]]:
    """TF's persistent executable cache (tensorflow/compiler/jit/flags.cc), read-only when asked."""
    flags = [(DIRECTORY_FLAG, str(directory))]
    if mode is CacheMode.READ_ONLY:
        flags.append((READ_ONLY_FLAG, "true"))
    return {TF_FLAGS: flags}


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(directory, os.W_OK | os.X_OK)


def plan_cache(
    mode: CacheMode,
    *,
    python: str | None,
    environ: Mapping[str, str],
    driver: str | None,
    gpus: Sequence[str],
    runner: CommandRunner,
    cpu: str | None = None,
    levers: bool = True,
) -> CachePlan:
    """How the run that ``python`` will execute uses the cache; never raises for a machine's state.

    The user's own persistent cache directory in TF_XLA_FLAGS wins; a cache that cannot be
    written is used read-only; flags this TensorFlow refuses are not set (the note says so).
    ``levers``: also the first-compile flags measured for these GPUs (xlacache/levers.py), part
    of the key because TF's cache does not tell programs compiled with other XLA flags apart;
    refused by this TensorFlow, the plan is made again without them.
    """
    if mode is CacheMode.OFF:
        return CachePlan(mode, None, None)
    if DIRECTORY_FLAG in flag_names(environ.get(TF_FLAGS, "")):
        theirs = re.search(rf"--{DIRECTORY_FLAG}=(\S+)", environ.get(TF_FLAGS, ""))
        where = theirs.group(1).strip("'\"") if theirs else None
        return CachePlan(mode, where, None, notes=(f"XLA cache: {where} (from your {TF_FLAGS}, kept as it is)",))
    if python is None:
        return CachePlan(
            mode,
            None,
            None,
            notes=(
                "XLA cache not used: the command is not a Python interpreter tfgpu can ask (tfgpu run -- python train.py)",
            ),
        )
    versions = interpreter_versions(runner, python)
    if versions is None or not any(name in versions for name in TENSORFLOWS):
        return CachePlan(mode, None, None)  # no TensorFlow there: no XLA to cache
    root = cache_root(environ)
    lever_flags = compile_levers(gpus) if levers else {}
    parts = key_parts(
        versions, driver=driver, gpus=gpus, environ=environ, cpu=cpu or cpu_model(), tfgpu_flags=lever_flags
    )
    key = key_for(parts)
    directory = key_directory(root, key)
    notes: list[str] = []
    if not safe_value(str(directory)):
        return CachePlan(
            mode, None, key, notes=(f"XLA cache not used: its directory {directory} holds spaces or quotes",)
        )
    if mode is CacheMode.ON and not _writable(directory):
        mode = CacheMode.READ_ONLY
        notes.append(f"the XLA cache {directory} cannot be written: used read-only")
    if mode is CacheMode.ON:
        try:
            write_key(directory, key)
        except OSError as exc:
            return CachePlan(mode, None, key, notes=(f"XLA cache not used: {exc}",))
    flags = {**cache_flags(directory, mode), **lever_flags}
    started = time.monotonic()
    check = checked_flags(runner, python, versions, flags, root, writable=mode is CacheMode.ON)
    if check.ran:
        notes.append(
            f"the XLA cache flags were checked against this TensorFlow in {time.monotonic() - started:.0f} s "
            "(once per install)"
        )
    if not check.accepted and lever_flags:
        return plan_cache(
            mode, python=python, environ=environ, driver=driver, gpus=gpus, runner=runner, cpu=cpu, levers=False
        )
    if not check.accepted:
        return CachePlan(mode, None, key, notes=(*notes, f"XLA cache not used: {check.reason}"))
    merged = merge_flags(environ, flags)
    notes.extend(f"your {flag} is kept (tfgpu's value not set)" for flag in merged.kept)
    if lever_flags and not merged.kept_any(lever_flags):
        notes.append(LEVER_NOTE)
    if mode is CacheMode.ON:
        evict(root, cache_limit_bytes(environ), keep=directory)
    return CachePlan(mode, str(directory), key, tuple(merged.variables.items()), tuple(notes))


def plan_for_interpreter(
    asked: CacheMode | None,
    *,
    python: str | None,
    environ: Mapping[str, str],
    nvml: NvmlClient | None,
    runner: CommandRunner,
    levers: bool = True,
) -> CachePlan:
    """``plan_cache`` with the mode the option or the environment picks and the driver and GPUs NVML names."""
    driver, gpus = gpu_identity(nvml)
    return plan_cache(
        cache_mode(environ, asked),
        python=python,
        environ=environ,
        driver=driver,
        gpus=gpus,
        runner=runner,
        levers=levers,
    )


_PYTHON = re.compile(r"(python|pypy)[0-9.]*")


def training_python(argv: Sequence[str], environ: Mapping[str, str]) -> str | None:
    """The interpreter a command runs TensorFlow in: ``python …`` itself, or a script's ``#!`` line.

    Examples:
        >>> training_python(["/usr/bin/python3", "train.py"], {})
        '/usr/bin/python3'
        >>> training_python(["bash", "run.sh"], {"PATH": "/bin"}) is None
        True
    """
    if not argv:
        return None
    path = environ.get("PATH")
    program = argv[0]
    if _PYTHON.fullmatch(os.path.basename(program)):
        return shutil.which(program, path=path) or (program if os.sep in program else None)
    located = shutil.which(program, path=path) if os.sep not in program else program
    if not located:
        return None
    try:
        with open(located, "rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    if words and _PYTHON.fullmatch(os.path.basename(words[0])):
        return shutil.which(words[0], path=path) or None
    return None
