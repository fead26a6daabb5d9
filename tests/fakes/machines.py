"""Whole fake machines on disk: a root tree and a site-packages laid out like the real ones.

The TensorFlow GPU site-packages is rebuilt from the file list, build_info.py and RUNPATH
recorded from the real tensorflow 2.21.0 and nvidia-*-cu12 wheels (tests/fixtures/tf/), so the
real collectors run over it exactly as over an install.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from tests.fakes.elf import write_elf
from tests.fakes.nvml import FakeNvml
from tests.fakes.runner import FakeCommandRunner
from tfgpu.doctor.collect import Sources, collect_facts
from tfgpu.doctor.diagnose import diagnose
from tfgpu.model.results import Diagnosis
from tfgpu.system.runner import CommandResult

TF_FIXTURES = Path(__file__).parent.parent / "fixtures" / "tf"
_DIST_INFO = re.compile(r"^(?P<name>[A-Za-z0-9_.]+)-(?P<version>[^-]+)\.dist-info$")
NVJITLINK_SYMBOLS = json.loads((TF_FIXTURES / "symbols-nvjitlink-cu12.json").read_text())
"""Recorded from the wheels: what cuSPARSE 12.5 binds from libnvJitLink.so.12, what nvJitLink 12.5 and 12.1 define."""
_SYMBOLS = {
    "libcusparse.so.12": {
        "binds": {"libnvJitLink.so.12": tuple(NVJITLINK_SYMBOLS["cusparse-12.5.1.3-binds-from-libnvJitLink.so.12"])}
    },
    "libnvJitLink.so.12": {"defines": tuple(NVJITLINK_SYMBOLS["nvjitlink-12.5.82-defines"])},
}
PTXAS_VERSION = "ptxas: NVIDIA (R) Ptx optimizing assembler\nCuda compilation tools, release 12.5, V12.5.82\n"


def _dist_info(site: Path, name: str, version: str) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def tf_gpu_site(site: Path, *, drop: tuple[str, ...] = ()) -> Path:
    """The site-packages of `pip install tensorflow[and-cuda]==2.21.0` (the staged subset).

    The nvidia libraries are ELF files with the RUNPATH and NEEDED recorded from the wheels, so
    the dependency search reads their real RUNPATH (cuDNN's ``$ORIGIN/../../nvrtc/lib``);
    cuSPARSE and nvJitLink also carry the symbols recorded from them, so the loader check reads real ones.
    """
    for line in (TF_FIXTURES / "site-2.21.0-gpu-files.txt").read_text().splitlines():
        match = _DIST_INFO.match(line)
        if match:
            _dist_info(site, match["name"].replace("_", "-"), match["version"])
            continue
        if any(d in line for d in drop):
            continue
        path = site / line
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    for line in (TF_FIXTURES / "runpath-nvidia-cu12-wheels.txt").read_text().splitlines():
        if line.startswith("#"):
            continue
        path, runpath, needed = line.split("\t")
        if (site / path).exists():
            write_elf(
                site / path,
                soname=Path(path).name,
                needed=tuple(filter(None, needed.split(","))),
                runpath=runpath or None,
                **_SYMBOLS.get(Path(path).name, {}),
            )
    tf = site / "tensorflow"
    (tf / "python/platform").mkdir(parents=True, exist_ok=True)
    (tf / "__init__.py").write_text("")
    (tf / "python/platform/build_info.py").write_text((TF_FIXTURES / "build_info-2.21.0-gpu.py").read_text())
    runpath = ":".join((TF_FIXTURES / "runpath-2.21.0-gpu-libtensorflow_framework.txt").read_text().split())
    write_elf(
        tf / "libtensorflow_framework.so.2",
        soname="libtensorflow_framework.so.2",
        needed=("libc.so.6",),
        runpath=runpath,
    )
    _dist_info(site, "keras", "3.15.1")
    return site


def tf_cpu_site(site: Path) -> Path:
    """The site-packages of `pip install tensorflow-cpu==2.21.0`: is_cuda_build False, no RUNPATH."""
    tf = site / "tensorflow"
    (tf / "python/platform").mkdir(parents=True, exist_ok=True)
    (tf / "__init__.py").write_text("")
    (tf / "python/platform/build_info.py").write_text(
        "import collections\n\nbuild_info = collections.OrderedDict([('is_cuda_build', False), "
        "('is_rocm_build', False), ('is_tensorrt_build', False)])\n"
    )
    write_elf(tf / "libtensorflow_framework.so.2", soname="libtensorflow_framework.so.2")
    _dist_info(site, "tensorflow-cpu", "2.21.0")
    _dist_info(site, "keras", "3.15.1")
    return site


def linux_root(root: Path, *, gpu: bool = True, container: bool = False, wsl: bool = False) -> Path:
    """/etc, /proc, /sys and /dev of an Ubuntu host with (or without) one NVIDIA GPU."""
    (root / "etc").mkdir(parents=True, exist_ok=True)
    (root / "etc/os-release").write_text('PRETTY_NAME="Ubuntu 22.04.4 LTS"\n')
    (root / "proc/1").mkdir(parents=True, exist_ok=True)
    kernel = "5.15.153.1-microsoft-standard-WSL2" if wsl else "6.8.0-45-generic"
    (root / "proc/version").write_text(f"Linux version {kernel} (gcc 12)\n")
    (root / "proc/1/cgroup").write_text("0::/system.slice/docker-abc.scope\n" if container else "0::/init.scope\n")
    (root / "dev").mkdir(exist_ok=True)
    if container:
        (root / ".dockerenv").write_text("")
    if gpu and not wsl:
        dev = root / "sys/bus/pci/devices/0000:00:05.0"
        dev.mkdir(parents=True)
        for name, value in (("vendor", "0x10de"), ("device", "0x2335"), ("class", "0x030200")):
            (dev / name).write_text(value + "\n")
        if not container:
            for node in ("nvidia0", "nvidiactl", "nvidia-uvm"):
                (root / "dev" / node).write_text("")
    if wsl and gpu:
        (root / "dev/dxg").write_text("")
    return root


@dataclass
class Machine:
    """A fake machine: call ``diagnose()`` to run the real collectors and checks over it."""

    tmp: Path
    nvml: FakeNvml = field(default_factory=FakeNvml)
    environ: dict[str, str] = field(default_factory=lambda: {"PATH": "/usr/bin:/bin"})
    runner: FakeCommandRunner = field(default_factory=lambda: FakeCommandRunner.from_recording("cpu-vm-no-driver"))
    site: Path | None = None

    @property
    def root(self) -> Path:
        return self.tmp / "root"

    def sources(self) -> Sources:
        if self.site is not None:
            ptxas = self.site / "nvidia/cuda_nvcc/bin/ptxas"
            self.runner.results[(str(ptxas), "--version")] = CommandResult(0, PTXAS_VERSION, "")
        search = [str(self.site)] if self.site is not None else [str(self.tmp / "empty-site-packages")]
        return Sources(self.runner, self.nvml, self.environ, self.root, search)

    def diagnose(self) -> Diagnosis:
        return diagnose(collect_facts(self.sources(), tfgpu_version="test"))


def gpu_machine(tmp: Path, *, tf: str | None = "gpu", drop: tuple[str, ...] = (), **root_kwargs: bool) -> Machine:
    """An H200 host; ``tf`` is "gpu" (tensorflow[and-cuda] 2.21), "cpu" (tensorflow-cpu) or None."""
    linux_root(tmp / "root", **root_kwargs)
    site = tmp / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    if tf == "gpu":
        tf_gpu_site(site, drop=drop)
    elif tf == "cpu":
        tf_cpu_site(site)
    return Machine(tmp, site=site)


def lib_dir(machine: Machine, wheel: str) -> str:
    assert machine.site is not None
    return os.path.join(str(machine.site), "nvidia", wheel, "lib")
