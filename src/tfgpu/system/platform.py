"""OS, kernel, libc, CPU, Python, virtual environments, WSL and containers."""

from __future__ import annotations

import os
import platform
import sys
import sysconfig
from collections.abc import Mapping
from pathlib import Path

from tfgpu.model.facts import ContainerImage, HostFacts, LibraryCopy, PciDevice
from tfgpu.model.unavailable import Unavailable
from tfgpu.system.files import read_regular_or_none
from tfgpu.system.owners import package_owners

# PCI vendor ids (pci.ids): what the doctor recognises on the bus.
VENDORS = {"0x10de": "NVIDIA", "0x1002": "AMD", "0x8086": "Intel", "0x19e5": "Huawei"}
# PCI class 0x03xxxx is a display controller, 0x12xxxx a processing accelerator.
_ACCELERATOR_CLASSES = ("0x03", "0x12")
DEVICE_NODE_GLOBS = ("nvidia*", "dxg", "kfd", "davinci*", "dri/renderD*")


MAX_SYSTEM_FILE_BYTES = 1 << 20


def _read(path: Path) -> str | None:
    """A /proc, /sys or /etc file, read only if it is a regular one and within MAX_SYSTEM_FILE_BYTES."""
    data = read_regular_or_none(path, MAX_SYSTEM_FILE_BYTES)
    return data.decode("utf-8", errors="replace") if data is not None else None


def detect_wsl(proc_version: str | None, environ: Mapping[str, str]) -> bool:
    """WSL2 kernels say "microsoft" in /proc/version; WSL sets WSL_DISTRO_NAME.

    Examples:
        >>> detect_wsl("Linux version 5.15.153.1-microsoft-standard-WSL2", {})
        True
    """
    return "microsoft" in (proc_version or "").lower() or "WSL_DISTRO_NAME" in environ


def detect_container(root: Path, cgroup: str | None, environ: Mapping[str, str]) -> str | None:
    """The container runtime this process runs in, or None on bare metal or a VM."""
    if (root / ".dockerenv").exists():
        return "docker"
    if (root / "run/.containerenv").exists():
        return "podman"
    if "KUBERNETES_SERVICE_HOST" in environ:
        return "kubernetes"
    text = cgroup or ""
    for marker in ("docker", "kubepods", "containerd", "lxc"):
        if marker in text:
            return marker
    return None


def detect_image(root: Path, environ: Mapping[str, str]) -> ContainerImage | None:
    """The TensorFlow container image this runs in, from what the image itself leaves behind.

    NGC's TensorFlow images set NVIDIA_TENSORFLOW_VERSION; TensorFlow's official images
    (tensorflow/build, tensorflow_runtime_dockerfiles) install an /etc/bash.bashrc whose prompt
    says ``tf-docker``.
    """
    if environ.get("NVIDIA_TENSORFLOW_VERSION"):
        return ContainerImage.NGC_TENSORFLOW
    if "tf-docker" in (_read(root / "etc/bash.bashrc") or ""):
        return ContainerImage.OFFICIAL_TENSORFLOW
    return None


def os_release(root: Path) -> str:
    """PRETTY_NAME of /etc/os-release, or the platform's own description."""
    text = _read(root / "etc/os-release") or ""
    for line in text.splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip().strip('"')
    # Not platform.platform(): it asks `uname -p` through a subprocess, without a timeout.
    return f"{platform.system()} {platform.release()}"


def cpu_model(root: Path) -> str:
    """The CPU model name from /proc/cpuinfo, or the machine type (never ``platform.processor()``, which forks)."""
    for line in (_read(root / "proc/cpuinfo") or "").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.machine()


def pci_devices(root: Path) -> tuple[PciDevice, ...]:
    """Display controllers and accelerators on the PCI bus (sysfs).

    Source: ``/sys/bus/pci/devices/*/{vendor,device,class}``; ``lspci -nn`` shows the same.
    """
    out = []
    base = root / "sys/bus/pci/devices"
    if not base.is_dir():
        return ()
    for dev in sorted(base.iterdir()):
        vendor, device, klass = (_read(dev / name) for name in ("vendor", "device", "class"))
        if vendor is None or device is None or klass is None:
            continue
        if not klass.strip().startswith(_ACCELERATOR_CLASSES) or vendor.strip() not in VENDORS:
            continue
        driver_link = dev / "driver"
        driver = os.path.basename(os.readlink(driver_link)) if driver_link.is_symlink() else None
        out.append(PciDevice(dev.name, vendor.strip(), device.strip(), klass.strip(), driver))
    return tuple(out)


def device_nodes(root: Path) -> tuple[str, ...]:
    """GPU device files present: /dev/nvidia*, /dev/dxg (WSL2), /dev/kfd (ROCm), /dev/davinci* (Ascend)."""
    dev = root / "dev"
    found: set[str] = set()
    for pattern in DEVICE_NODE_GLOBS:
        found.update("/dev/" + str(p.relative_to(dev)) for p in dev.glob(pattern))
    return tuple(sorted(found))


LINUX_DRIVER_LIBRARIES = ("libcuda.so.1", "libnvidia-ml.so.1")
LINUX_LIBRARY_DIRS = ("usr/lib/x86_64-linux-gnu", "usr/lib64", "usr/lib/aarch64-linux-gnu")


def wsl_linux_driver(root: Path) -> tuple[LibraryCopy, ...]:
    """A Linux driver's libcuda / libnvidia-ml in the system's library directories, with their package.

    Under WSL2 these come only from a Linux driver package or run file installed inside WSL
    (NVIDIA's CUDA-on-WSL guide: never install one there); the Windows driver's are in /usr/lib/wsl/lib.
    """
    paths = [
        str(path)
        for directory in LINUX_LIBRARY_DIRS
        for name in LINUX_DRIVER_LIBRARIES
        if (path := root / directory / name).exists()
    ]
    owners = package_owners(paths, (), None, str(root)) if paths else {}
    return tuple(
        LibraryCopy(
            "/" + os.path.relpath(path, root),
            "elsewhere",
            _driver_version(path),
            owners.get(path),
        )
        for path in paths
    )


def _driver_version(path: str) -> str | Unavailable:
    """The driver release in the real file's name (libcuda.so.535.183.01)."""
    name = os.path.basename(os.path.realpath(path))
    _, _, version = name.partition(".so.")
    return version if version.count(".") >= 1 else Unavailable("no release in the file name", path)


def collect_host_facts(root: Path = Path("/"), environ: Mapping[str, str] | None = None) -> HostFacts:
    """Facts about this host and interpreter. ``root`` lets tests point at a recorded tree.

    Source: ``platform``, ``sys``, /etc/os-release, /proc/version, /proc/1/cgroup,
    /proc/driver/nvidia/version, /sys/bus/pci/devices.
    """
    env = os.environ if environ is None else environ
    libc_name, libc_version = platform.libc_ver()
    module = _read(root / "proc/driver/nvidia/version")
    in_venv = sys.prefix != getattr(sys, "base_prefix", sys.prefix)
    managed = not in_venv and (Path(sysconfig.get_path("stdlib")) / "EXTERNALLY-MANAGED").is_file()
    conda = env.get("CONDA_PREFIX") or (sys.prefix if (Path(sys.prefix) / "conda-meta").is_dir() else None)
    return HostFacts(
        os_name=platform.system(),
        os_release=os_release(root),
        kernel=platform.release(),
        machine=platform.machine(),
        libc=f"{libc_name} {libc_version}".strip() or "unknown",
        wsl=(wsl := detect_wsl(_read(root / "proc/version"), env)),
        wsl_linux_driver=wsl_linux_driver(root) if wsl else (),
        container=detect_container(root, _read(root / "proc/1/cgroup"), env),
        image=detect_image(root, env),
        cpu=cpu_model(root),
        python_version=platform.python_version(),
        python_executable=sys.executable,
        venv_prefix=sys.prefix if in_venv else None,
        conda_prefix=conda,
        pci_devices=pci_devices(root),
        device_nodes=device_nodes(root),
        externally_managed=managed,
        kernel_module_version=(
            module.strip().splitlines()[0]
            if module
            else Unavailable("no NVIDIA kernel module loaded", "/proc/driver/nvidia/version")
        ),
    )
