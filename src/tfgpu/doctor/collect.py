"""Gather the whole Facts snapshot, one guarded collector at a time.

A collector that raises becomes ``Unavailable`` with the exception in its reason, and the
checks turn that into a finding: the doctor's input is a broken machine, so no collector may
take the report down (collect_env's "Could not collect").
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from tfgpu.knowledge.libraries import dependencies, wanted_libraries
from tfgpu.model.errors import NvmlUnavailable
from tfgpu.model.facts import (
    DriverFacts,
    Facts,
    GpuFacts,
    HostFacts,
    LibraryFacts,
    NvmlStatus,
    PackageFacts,
    TensorFlowFacts,
)
from tfgpu.model.unavailable import Unavailable
from tfgpu.nvml.client import NvmlClient
from tfgpu.nvml.collect import collect_driver_facts, collect_gpu_facts
from tfgpu.system.environ import collect_environ
from tfgpu.system.libraries import collect_libraries
from tfgpu.system.nvidia_smi import collect_with_nvidia_smi
from tfgpu.system.packages import collect_packages
from tfgpu.system.platform import collect_host_facts
from tfgpu.system.runner import CommandRunner
from tfgpu.system.tf_install import collect_tensorflow

T = TypeVar("T")


@dataclass(frozen=True)
class Sources:
    """The seams the collectors read through; tests pass fakes here."""

    runner: CommandRunner
    nvml: NvmlClient
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    root: Path = Path("/")
    search_path: list[str] | None = None
    """Where Python packages are looked for; None means this interpreter's sys.path."""

    @property
    def site_dirs(self) -> list[str]:
        """Directories that may hold site-packages (for the pip nvidia-* wheels)."""
        return [p for p in (self.search_path if self.search_path is not None else sys.path) if p.endswith("-packages")]


def _host(s: Sources) -> HostFacts:
    return collect_host_facts(s.root, s.environ)


def _packages(s: Sources) -> PackageFacts:
    return collect_packages(s.search_path)


def _tensorflow(s: Sources, packages: PackageFacts | Unavailable) -> TensorFlowFacts | None:
    return collect_tensorflow(packages, s.search_path)


def _libraries(
    s: Sources, tf: TensorFlowFacts | Unavailable | None, host: HostFacts | Unavailable
) -> LibraryFacts | None:
    if tf is None or isinstance(tf, Unavailable) or isinstance(tf.build, Unavailable):
        return None
    build = tf.build
    if not build.is_cuda_build or not build.cuda_version:
        return None
    runpath = next((entries for obj, entries in tf.runpaths if obj.startswith("libtensorflow_framework")), ())
    sites = [str(Path(tf.package_dir).parent), *s.site_dirs]
    conda = None if isinstance(host, Unavailable) else host.conda_prefix
    wanted = wanted_libraries(build.cuda_version, build.cudnn_version)
    return collect_libraries(
        wanted,
        dependencies(build.cuda_version, build.cudnn_version),
        build.cuda_version.split(".")[0],
        runpath,
        s.environ,
        list(dict.fromkeys(sites)),
        conda,
        s.runner,
        str(s.root),
    )


def _gpus(s: Sources) -> tuple[NvmlStatus, DriverFacts | Unavailable, tuple[GpuFacts, ...] | Unavailable]:
    try:
        driver = collect_driver_facts(s.nvml)
        gpus = collect_gpu_facts(s.nvml)
        return NvmlStatus(True), driver, gpus
    except NvmlUnavailable as exc:
        status = NvmlStatus(False, exc.kind, exc.reason)
    smi = collect_with_nvidia_smi(s.runner)
    if isinstance(smi, Unavailable):
        why = Unavailable(status.reason or smi.reason, "nvml")
        return status, why, why
    return status, smi[0], smi[1]


def _environ(s: Sources) -> tuple[tuple[str, str], ...]:
    return collect_environ(s.environ)


@dataclass(frozen=True)
class Collectors:
    """The collector functions, replaceable one by one (the fault-injection tests do)."""

    host: Callable[[Sources], HostFacts] = _host
    packages: Callable[[Sources], PackageFacts] = _packages
    tensorflow: Callable[[Sources, PackageFacts | Unavailable], TensorFlowFacts | None] = _tensorflow
    libraries: Callable[
        [Sources, TensorFlowFacts | Unavailable | None, HostFacts | Unavailable], LibraryFacts | None
    ] = _libraries
    gpus: Callable[[Sources], tuple[NvmlStatus, DriverFacts | Unavailable, tuple[GpuFacts, ...] | Unavailable]] = _gpus
    environ: Callable[[Sources], tuple[tuple[str, str], ...]] = _environ


COLLECTOR_NAMES = ("host", "packages", "tensorflow", "libraries", "gpus", "environ")


STATIC_DEADLINE_SECONDS = 45.0
"""All the collectors of one doctor share this deadline, NVML calls, ELF reads and commands included: a
hung driver, file system or program costs at most this, never the whole run (the static doctor
takes ~0.3 s on an ordinary machine)."""


def _guard(name: str, fn: Callable[[], T], deadline: float, seconds: float) -> T | Unavailable:
    """``fn()`` on a daemon thread until ``deadline`` (monotonic, ``seconds`` after the start); a crash or a hang becomes Unavailable."""
    outcome: list[T] = []
    crash: list[Exception] = []

    def collect() -> None:
        try:
            outcome.append(fn())
        except Exception as exc:  # noqa: BLE001 - a broken machine must not crash the doctor
            crash.append(exc)

    left = deadline - time.monotonic()
    if left > 0:
        worker = threading.Thread(target=collect, name=f"tfgpu-collect-{name}", daemon=True)
        worker.start()
        worker.join(left)
    if outcome:
        return outcome[0]
    if crash:
        exc = crash[0]
        return Unavailable(f"collector crashed: {type(exc).__name__}: {exc}", f"tfgpu:{name}")
    return Unavailable(
        f"not collected within the doctor's {seconds:g} s deadline "
        "(a hung driver, file system or program on this machine)",
        f"tfgpu:{name}",
    )


def for_interpreter(host: HostFacts | Unavailable, interpreter: Mapping[str, Any] | None) -> HostFacts | Unavailable:
    """Host facts with the Python of another interpreter (``doctor --python``) in place of ours."""
    if interpreter is None or isinstance(host, Unavailable):
        return host
    prefix, base = interpreter.get("prefix"), interpreter.get("base_prefix")
    return replace(
        host,
        python_version=str(interpreter.get("version", host.python_version)),
        python_executable=str(interpreter.get("executable", host.python_executable)),
        venv_prefix=str(prefix) if prefix and prefix != base else None,
        externally_managed=bool(interpreter.get("externally_managed", False)),
        conda_prefix=str(prefix)
        if prefix and os.path.isdir(os.path.join(str(prefix), "conda-meta"))
        else host.conda_prefix,
    )


def collect_facts(
    sources: Sources,
    collectors: Collectors = Collectors(),
    tfgpu_version: str = "",
    interpreter: Mapping[str, Any] | None = None,
    deadline_seconds: float = STATIC_DEADLINE_SECONDS,
) -> Facts:
    """Run every collector within one deadline; each failure or hang is kept as ``Unavailable`` in its place.

    ``interpreter`` (from the probe's ``interpreter`` task) describes the Python being diagnosed
    when it is not this one; ``sources.search_path`` should then be its sys.path.
    """
    end = time.monotonic() + deadline_seconds

    def guard(name: str, fn: Callable[[], T]) -> T | Unavailable:
        return _guard(name, fn, end, deadline_seconds)

    environ = guard("environ", lambda: collectors.environ(sources))  # instant: first, so a hang elsewhere keeps it
    host = guard("host", lambda: for_interpreter(collectors.host(sources), interpreter))
    packages = guard("packages", lambda: collectors.packages(sources))
    tf = guard("tensorflow", lambda: collectors.tensorflow(sources, packages))
    libraries = guard("libraries", lambda: collectors.libraries(sources, tf, host))
    gpus_result = guard("gpus", lambda: collectors.gpus(sources))
    nvml: NvmlStatus
    driver: DriverFacts | Unavailable
    gpus: tuple[GpuFacts, ...] | Unavailable
    if isinstance(gpus_result, Unavailable):
        nvml, driver, gpus = NvmlStatus(False, None, gpus_result.reason), gpus_result, gpus_result
    else:
        nvml, driver, gpus = gpus_result
    return Facts(
        host=host,
        packages=packages,
        tensorflow=tf,
        libraries=libraries,
        driver=driver,
        gpus=gpus,
        environ=environ,
        nvml=nvml,
        tfgpu_version=tfgpu_version,
    )
