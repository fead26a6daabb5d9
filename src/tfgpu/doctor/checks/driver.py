"""The GPU hardware and the NVIDIA driver: present, loaded, new enough for TF's CUDA runtime.

Sources: CUDA Toolkit release notes, Tables 2 and 3 (knowledge/data/cuda_driver.csv);
the NVIDIA container toolkit and CUDA-on-WSL user guides for the container and WSL rules.
"""

from __future__ import annotations

import re
import shlex

from tfgpu.knowledge.compat import driver_requirement, version_key
from tfgpu.model.facts import DriverFacts, Facts, HostFacts, PackageManager, TensorFlowFacts
from tfgpu.model.findings import Finding, Section, Severity
from tfgpu.model.unavailable import Unavailable

H = Section.HARDWARE
DRIVER_DOCS = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html#cuda-driver"
WSL_DOCS = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html"
CONTAINER_DOCS = "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html"
ROCM_DOCS = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/3rd-party/tensorflow-install.html"
INTEL_DOCS = "https://intel.github.io/intel-extension-for-tensorflow/latest/get_started.html"


def _nvidia_on_bus(host: HostFacts | Unavailable) -> bool:
    return not isinstance(host, Unavailable) and any(d.vendor_id == "0x10de" for d in host.pci_devices)


def no_nvidia_gpu(facts: Facts) -> bool:
    """Whether this machine has no NVIDIA GPU for TensorFlow, so that its CUDA stack cannot matter.

    No driver answers and the PCI bus shows no NVIDIA device, outside a container or WSL (whose
    GPUs do not show on the bus); or it is a Mac.
    """
    host = facts.host
    if not isinstance(host, HostFacts) or isinstance(facts.driver, DriverFacts):
        return False
    return host.os_name == "Darwin" or not (host.container or host.wsl or _nvidia_on_bus(host))


def check_driver(facts: Facts) -> list[Finding]:
    """Is there an NVIDIA GPU and a working driver?

    Finding ids: ``nvidia-driver`` (ok), ``nvidia-driver-missing``, ``nvidia-driver-not-loaded``,
    ``nvidia-driver-mismatch``, ``nvml-binding-missing``, ``no-nvidia-gpu``,
    ``container-without-gpu``, ``wsl-gpu-driver-missing``, ``wsl-linux-driver-inside``, ``nvidia-smi-failed``.
    """
    host, driver = facts.host, facts.driver
    out: list[Finding] = []
    if facts.nvml.error_kind in ("BindingMissing", "BadBinding"):
        out.append(
            Finding(
                "nvml-binding-missing",
                Severity.WARNING,
                H,
                "The NVML Python binding cannot be used",
                detail=f"{facts.nvml.reason}; GPU facts come from nvidia-smi instead.",
                hint="pip install --force-reinstall nvidia-ml-py",
            )
        )
    if isinstance(driver, DriverFacts):
        out.append(_driver_ok(driver))
        out.extend(_kernel_module_mismatch(host, driver))
        return out
    out.append(_no_driver(facts, host, driver))
    return out


def _driver_ok(driver: DriverFacts) -> Finding:
    cuda = driver.cuda_driver_version
    supports = "" if isinstance(cuda, Unavailable) else f", supports CUDA up to {cuda}"
    return Finding("nvidia-driver", Severity.OK, H, f"NVIDIA driver {driver.driver_version}{supports}")


def _kernel_module_mismatch(host: HostFacts | Unavailable, driver: DriverFacts) -> list[Finding]:
    if isinstance(host, Unavailable) or isinstance(host.kernel_module_version, Unavailable):
        return []
    module_line = host.kernel_module_version
    if driver.driver_version and driver.driver_version not in module_line:
        return [
            Finding(
                "nvidia-driver-mismatch",
                Severity.ERROR,
                H,
                "The loaded NVIDIA kernel module is not the driver version of the libraries",
                detail=f"Kernel module: {module_line.strip()}; user-space driver: {driver.driver_version}.",
                hint="Reboot (or reload the nvidia kernel modules) after the driver upgrade.",
            )
        ]
    return []


def _no_driver(facts: Facts, host: HostFacts | Unavailable, driver: Unavailable) -> Finding:
    kind = facts.nvml.error_kind
    reason = facts.nvml.reason or driver.reason
    if kind == "NVMLError_DriverNotLoaded":
        return Finding(
            "nvidia-driver-not-loaded",
            Severity.ERROR,
            H,
            "The NVIDIA driver is installed but not loaded",
            detail=reason,
            hint="sudo modprobe nvidia  (if it fails, check `dmesg | grep -i nvidia`: Secure Boot may refuse the module)",
        )
    if kind == "NVMLError_LibRmVersionMismatch":
        return Finding(
            "nvidia-driver-mismatch",
            Severity.ERROR,
            H,
            "Driver libraries and kernel module differ in version",
            detail=reason,
            hint="Reboot so the kernel module matches the upgraded driver.",
        )
    if isinstance(host, HostFacts):
        special = _environment_without_gpu(host, reason)
        if special:
            return special
    if _nvidia_on_bus(host):
        return Finding(
            "nvidia-driver-missing",
            Severity.ERROR,
            H,
            "An NVIDIA GPU is on the PCI bus but no driver is installed",
            detail=reason,
            hint="Install the NVIDIA driver: `sudo ubuntu-drivers install` (Ubuntu) or your distribution's nvidia-driver package, then reboot.",
            link=DRIVER_DOCS,
        )
    if kind in ("BindingMissing", "BadBinding") and driver.source == "nvml":
        return Finding(
            "nvidia-smi-failed",
            Severity.ERROR,
            H,
            "Neither NVML nor nvidia-smi could be used",
            detail=driver.reason,
            hint="Check that the NVIDIA driver is installed: run `nvidia-smi`.",
        )
    return _other_hardware(host, reason)


def _wsl_driver_unreachable(host: HostFacts, reason: str) -> Finding:
    """WSL2 passes the GPU through (/dev/dxg) but NVML fails: a Linux driver inside WSL, named when found."""
    found = host.wsl_linux_driver
    if not found:
        return Finding(
            "wsl-gpu-driver-missing",
            Severity.ERROR,
            H,
            "WSL2 has /dev/dxg but NVML cannot reach the driver",
            detail=f"{reason}. No Linux driver library was found inside WSL; the Windows driver may be too old "
            "for WSL2's GPU support.",
            hint="Update the NVIDIA driver on Windows, then run `wsl --update` and `wsl --shutdown`.",
            link=WSL_DOCS,
        )
    copies = "; ".join(
        f"{c.path}" + (f" ({c.owner})" if c.owner else " (no package: a run-file install)") for c in found
    )
    packages = sorted({c.owner.name for c in found if c.owner and c.owner.manager is PackageManager.DEB})
    hint = (
        f"sudo apt-get remove --purge {' '.join(shlex.quote(p) for p in packages)}"
        if packages
        else "sudo nvidia-uninstall   (the run file's uninstaller)"
    )
    return Finding(
        "wsl-linux-driver-inside",
        Severity.ERROR,
        H,
        "A Linux NVIDIA driver is installed inside WSL2 and hides the Windows driver",
        detail=f"{reason}. Found: {copies}. These are found before /usr/lib/wsl/lib, where WSL2 puts the Windows "
        "driver's libraries; NVIDIA's CUDA-on-WSL guide says not to install a Linux driver inside WSL.",
        hint=hint + "   then: sudo ldconfig",
        link=WSL_DOCS,
    )


def _environment_without_gpu(host: HostFacts, reason: str) -> Finding | None:
    if host.wsl and not any(n == "/dev/dxg" for n in host.device_nodes):
        return Finding(
            "wsl-gpu-driver-missing",
            Severity.ERROR,
            H,
            "WSL2 sees no GPU",
            detail=f"{reason}. In WSL2 the GPU comes from the Windows NVIDIA driver through /dev/dxg and /usr/lib/wsl/lib.",
            hint="Install the current NVIDIA driver on Windows (not inside WSL), then run `wsl --update` and `wsl --shutdown`.",
            link=WSL_DOCS,
        )
    if host.wsl:
        return _wsl_driver_unreachable(host, reason)
    if host.container and not any(n.startswith("/dev/nvidia") for n in host.device_nodes):
        return Finding(
            "container-without-gpu",
            Severity.ERROR,
            H,
            f"This {host.container} container was started without GPU access",
            detail=f"{reason}; no /dev/nvidia* device exists inside the container.",
            hint="Start it with `docker run --gpus all …` (NVIDIA Container Toolkit on the host; Kubernetes: request nvidia.com/gpu).",
            link=CONTAINER_DOCS,
        )
    return None


def _other_hardware(host: HostFacts | Unavailable, reason: str) -> Finding:
    vendors = set() if isinstance(host, Unavailable) else {d.vendor_id for d in host.pci_devices}
    nodes = () if isinstance(host, Unavailable) else host.device_nodes
    if isinstance(host, HostFacts) and host.os_name == "Darwin":
        return Finding(
            "no-nvidia-gpu",
            Severity.ERROR,
            H,
            "macOS has no CUDA: TensorFlow uses Apple GPUs through tensorflow-metal",
            detail="NVIDIA GPUs and CUDA are not supported on macOS.",
            hint="pip install tensorflow tensorflow-metal",
            link="https://developer.apple.com/metal/tensorflow-plugin/",
        )
    if "0x1002" in vendors or "/dev/kfd" in nodes:
        return Finding(
            "no-nvidia-gpu",
            Severity.ERROR,
            H,
            "This machine has an AMD GPU, not an NVIDIA one",
            detail=f"{reason}. TensorFlow's CUDA build cannot use AMD GPUs.",
            hint="Use the ROCm build: pip install tensorflow-rocm (with ROCm installed).",
            link=ROCM_DOCS,
        )
    if any(n.startswith("/dev/davinci") for n in nodes) or "0x19e5" in vendors:
        return Finding(
            "no-nvidia-gpu",
            Severity.ERROR,
            H,
            "This machine has a Huawei Ascend NPU, not an NVIDIA GPU",
            detail=f"{reason}. Ascend NPUs need Huawei's CANN stack and its TensorFlow adapter, not CUDA.",
            hint="Install CANN and the Ascend TensorFlow adapter (npu_bridge) for this TF version.",
            link="https://www.hiascend.com/software/cann",
        )
    if "0x8086" in vendors:
        return Finding(
            "no-nvidia-gpu",
            Severity.ERROR,
            H,
            "This machine has only an Intel GPU, not an NVIDIA one",
            detail=f"{reason}. TensorFlow's CUDA build cannot use Intel GPUs.",
            hint="pip install --upgrade intel-extension-for-tensorflow[xpu]",
            link=INTEL_DOCS,
        )
    return Finding(
        "no-nvidia-gpu",
        Severity.ERROR,
        H,
        "No NVIDIA GPU found: TensorFlow will run on the CPU",
        detail=f"{reason}.",
        hint="Run on a machine with an NVIDIA GPU (a cloud GPU instance or Colab), or accept CPU training.",
    )


CUDA_COMPAT_DOCS = "https://docs.nvidia.com/deploy/cuda-compatibility/"
_REQUIRED_CUDA = re.compile(r"(?:^|\s)cuda>=(\d+\.\d+)")


def check_container_image(facts: Facts) -> list[Finding]:
    """A CUDA container image's own requirement (NVIDIA_REQUIRE_CUDA) against the host's driver.

    NVIDIA's CUDA images (and NGC's TensorFlow images built on them) say the CUDA they need in
    NVIDIA_REQUIRE_CUDA, ``cuda>=12.8 brand=tesla,driver>=535,driver<536 …``: a space is an OR,
    so data-center GPUs on the listed driver branches run it through CUDA's forward-compatibility
    package, and every other GPU needs a driver for that CUDA. Finding id: ``container-needs-newer-driver``.
    """
    required = _REQUIRED_CUDA.search(facts.env("NVIDIA_REQUIRE_CUDA") or "")
    driver = facts.driver
    if not required or not isinstance(driver, DriverFacts) or not isinstance(driver.cuda_driver_version, str):
        return []
    need, have = required.group(1), driver.cuda_driver_version
    if version_key(have)[:2] >= version_key(need)[:2]:
        return []
    ngc = facts.env("NVIDIA_TENSORFLOW_VERSION")
    image = f"NVIDIA's NGC TensorFlow {ngc} image" if ngc else "This container image"
    return [
        Finding(
            "container-needs-newer-driver",
            Severity.WARNING,
            H,
            f"{image} needs CUDA {need}; the host's driver {driver.driver_version} supports CUDA up to {have}",
            detail="Its NVIDIA_REQUIRE_CUDA asks for cuda>=" + need + ". Data-center GPUs on the driver branches "
            "that variable lists run it through CUDA's forward-compatibility package; other GPUs fail with "
            "'CUDA driver version is insufficient for CUDA runtime version'.",
            hint=f"Upgrade the host's NVIDIA driver to one for CUDA {need}, or run an image built for CUDA {have} or older.",
            link=CUDA_COMPAT_DOCS,
        )
    ]


def check_driver_for_cuda(facts: Facts) -> list[Finding]:
    """Is the driver new enough for the CUDA runtime TF was built with?

    Rule: a CUDA 12.x runtime needs the toolkit's own minimum driver, or >= 525 under minor
    version compatibility (which does not cover PTX newer than the driver, so XLA and PTX JIT
    still need the full minimum). Finding ids: ``driver-too-old-for-cuda``,
    ``driver-older-than-cuda-runtime``.
    """
    tf, driver = facts.tensorflow, facts.driver
    if not isinstance(tf, TensorFlowFacts) or isinstance(tf.build, Unavailable) or not isinstance(driver, DriverFacts):
        return []
    cuda = tf.build.cuda_version
    if not tf.build.is_cuda_build or not cuda:
        return []
    need = driver_requirement(cuda)
    if need is None:
        return []
    windows = not isinstance(facts.host, Unavailable) and facts.host.os_name == "Windows"
    full_min = need.windows_min_driver if windows else need.linux_min_driver
    have = version_key(driver.driver_version)
    compat_min = need.minor_compat_min_driver
    if full_min and have >= version_key(full_min):
        return []
    if compat_min and have >= version_key(compat_min):
        return [
            Finding(
                "driver-older-than-cuda-runtime",
                Severity.WARNING,
                H,
                f"Driver {driver.driver_version} is older than CUDA {cuda}'s own driver ({full_min})",
                detail=(
                    f"TF {tf.version} runs on it through CUDA minor version compatibility, but PTX from CUDA {cuda} "
                    "cannot be JIT-compiled by it: XLA (jit_compile=True) and GPUs that need PTX JIT fail with "
                    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION."
                ),
                hint=f"Upgrade the NVIDIA driver to {full_min} or newer.",
                link=need.source_url,
            )
        ]
    return [
        Finding(
            "driver-too-old-for-cuda",
            Severity.ERROR,
            H,
            f"Driver {driver.driver_version} is too old for TF {tf.version}'s CUDA {cuda}",
            detail=f"CUDA {cuda} needs driver >= {compat_min or full_min} (minor version compatibility) or >= {full_min}.",
            hint=f"Install NVIDIA driver {full_min} or newer (e.g. `sudo ubuntu-drivers install`), then reboot.",
            link=need.source_url,
        )
    ]
