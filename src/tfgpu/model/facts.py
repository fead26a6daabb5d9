"""The immutable snapshot the doctor decides on: everything collected about one machine.

Each part is ``T | Unavailable``: a collector that failed leaves the reason in place of the
value, so the checks can turn the failure itself into a finding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from tfgpu.model.documents import SCHEMA_VERSIONS, Document
from tfgpu.model.probe import ProbeFacts
from tfgpu.model.unavailable import Unavailable


@dataclass(frozen=True)
class PciDevice:
    """A display or accelerator device on the PCI bus (``/sys/bus/pci/devices``).

    Lets the doctor tell "no NVIDIA GPU" from "an NVIDIA GPU whose driver is not loaded",
    and recognise AMD, Intel and other accelerators.
    """

    address: str
    vendor_id: str
    device_id: str
    class_code: str
    driver: str | None


class ContainerImage(str, Enum):
    """Container images the doctor recognises, for their known faults."""

    OFFICIAL_TENSORFLOW = "tensorflow/tensorflow"
    NGC_TENSORFLOW = "nvcr.io/nvidia/tensorflow"


@dataclass(frozen=True)
class HostFacts:
    """The operating system, the Python interpreter and the container or WSL around them."""

    os_name: str
    os_release: str
    kernel: str
    machine: str
    libc: str
    wsl: bool
    container: str | None
    cpu: str
    python_version: str
    python_executable: str
    venv_prefix: str | None
    conda_prefix: str | None
    pci_devices: tuple[PciDevice, ...] = ()
    device_nodes: tuple[str, ...] = ()
    kernel_module_version: str | Unavailable = Unavailable("not read", "/proc/driver/nvidia/version")
    externally_managed: bool = False
    """The interpreter is a distribution's, marked EXTERNALLY-MANAGED (PEP 668): pip refuses to install into it."""
    image: ContainerImage | None = None
    """The container image, where it names itself: its known faults are checked."""
    wsl_linux_driver: tuple[LibraryCopy, ...] = ()
    """Inside WSL2: a Linux NVIDIA driver's libcuda / libnvidia-ml in the system's library directory,
    with the package that installed them; found before the Windows driver's /usr/lib/wsl/lib."""


@dataclass(frozen=True)
class Distribution:
    """One installed Python distribution that matters for TensorFlow on GPUs."""

    name: str
    version: str
    location: str
    pins: tuple[str, ...] = ()
    """Its exact pins of NVIDIA wheels on this platform (``nvidia-cudnn-cu12==9.1.0.70``): what it makes pip install."""
    installer: str | None = None
    """What installed it (the dist-info's INSTALLER: ``pip``, ``uv``, ``conda``): which tool the fix must use."""


@dataclass(frozen=True)
class PackageFacts:
    """The relevant installed distributions (tensorflow*, keras, tf-keras, nvidia-*)."""

    distributions: tuple[Distribution, ...]

    def get(self, name: str) -> Distribution | None:
        """The distribution of that normalized name, or None."""
        for dist in self.distributions:
            if dist.name == name:
                return dist
        return None


@dataclass(frozen=True)
class TfBuildInfo:
    """What TensorFlow was built for, read from ``tensorflow/python/platform/build_info.py``.

    The same values ``tf.sysconfig.get_build_info()`` returns, without importing TensorFlow.
    """

    is_cuda_build: bool
    is_rocm_build: bool
    is_tensorrt_build: bool
    cuda_version: str | None
    cudnn_version: str | None
    compute_capabilities: tuple[str, ...]


@dataclass(frozen=True)
class TensorFlowFacts:
    """The installed TensorFlow, found on disk, never imported."""

    distribution: str
    version: str
    package_dir: str
    build: TfBuildInfo | Unavailable
    runpaths: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(shared object, its RUNPATH entries with ``$ORIGIN`` expanded), for TF's own libraries."""


@dataclass(frozen=True)
class SearchDir:
    """One directory of the dynamic loader's search order, and why it is searched."""

    path: str
    origin: str
    """``ld_library_path``, ``runpath``, ``ld_cache``, ``default``, ``loaded`` (a dependency whose soname
    TF already loaded) or, outside the loader's search, ``elsewhere``."""


class PackageManager(str, Enum):
    """The tool that installed a file, and so the one a fix must use."""

    PIP = "pip"
    CONDA = "conda"
    DEB = "deb"


@dataclass(frozen=True)
class PackageOwner:
    """The package that installed a file: ``pip nvidia-cudnn-cu12 9.3.0.75``, ``deb libcudnn8 8.9.6.50-1+cuda12.2``."""

    manager: PackageManager
    name: str
    version: str = ""

    def __str__(self) -> str:
        return f"{self.manager.value} {self.name} {self.version}".strip()


@dataclass(frozen=True)
class LibraryCopy:
    """One file that provides a needed library, and the directory origin that reaches it."""

    path: str
    origin: str
    """A SearchDir origin when TF's loader searches that directory, else ``elsewhere``."""
    version: str | Unavailable
    owner: PackageOwner | None = None
    """The package that installed it, where a package manager records it: the tool a fix must use."""
    lacks: tuple[str, ...] = ()
    """For a dependency: the symbols its loader binds from this soname that this copy does not define
    (read from both files' dynamic symbols); the loader fails to load beside it ("undefined symbol")."""


@dataclass(frozen=True)
class CudaLibrary:
    """Every copy found of one library (or XLA tool) TensorFlow needs, in loader order.

    The first copy whose origin is not ``elsewhere`` is the one TF would load; copies after it
    on the search path are shadowed; ``elsewhere`` copies are installed but invisible to TF.
    """

    name: str
    soname: str
    required: bool
    copies: tuple[LibraryCopy, ...] = ()
    loaded_by: str | None = None
    """For a library one of TF's libraries loads in turn: that loader's path (its RUNPATH, not
    TF's, is searched; origin ``loaded`` means TF has the soname in the process already)."""
    loader_runpath: tuple[str, ...] = ()
    """The loader's own RUNPATH, ``$ORIGIN`` expanded: where it looks after LD_LIBRARY_PATH."""
    needed_for: str = ""
    """What fails without it (dependencies only)."""

    @property
    def loaded(self) -> LibraryCopy | None:
        """The copy TF's loader would pick, or None when it finds none."""
        return next((c for c in self.copies if c.origin != "elsewhere"), None)

    @property
    def elsewhere(self) -> tuple[LibraryCopy, ...]:
        """Copies installed outside every directory TF searches."""
        return tuple(c for c in self.copies if c.origin == "elsewhere")

    @property
    def unbindable(self) -> LibraryCopy | None:
        """The copy the loader picks when it lacks symbols the loader binds (loading fails: 'undefined symbol')."""
        loaded = self.loaded
        return loaded if loaded is not None and loaded.lacks else None

    @property
    def bindable(self) -> LibraryCopy | None:
        """The first copy on the loader's search path that defines every symbol it binds, or None."""
        return next((c for c in self.copies if c.origin != "elsewhere" and not c.lacks), None)


@dataclass(frozen=True)
class LibraryFacts:
    """The CUDA libraries TensorFlow needs, located the way its loader would search."""

    cuda_major: str
    libraries: tuple[CudaLibrary, ...]
    search_order: tuple[SearchDir, ...]
    foreign_cudart: tuple[LibraryCopy, ...] = ()
    """CUDA runtimes of another major version on LD_LIBRARY_PATH (a second CUDA install)."""

    def get(self, name: str) -> CudaLibrary | None:
        """The library of that short name (``cudart``, ``cudnn``, ``ptxas``…), or None."""
        for lib in self.libraries:
            if lib.name == name:
                return lib
        return None


@dataclass(frozen=True)
class NvmlStatus:
    """Whether NVML could be used, and the NVML error class when not."""

    available: bool
    error_kind: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class DriverFacts:
    """The NVIDIA driver as NVML (or nvidia-smi) reports it."""

    driver_version: str
    cuda_driver_version: str | Unavailable
    """Newest CUDA version the driver supports, as ``12.4`` (nvidia-smi's "CUDA Version")."""
    source: str


@dataclass(frozen=True)
class GpuProcess:
    """A process holding memory on a GPU."""

    pid: int
    name: str
    used_memory_bytes: int | None


@dataclass(frozen=True)
class GpuLink:
    """How a GPU reaches one peer: "nvlink", or a PCIe level of TOPOLOGY_LEVELS (nvml/client.py)."""

    peer: int
    via: str


@dataclass(frozen=True)
class GpuFacts:
    """One NVIDIA GPU. Fields mirror ``nvidia-smi --query-gpu`` keys named in their docstrings."""

    index: int
    name: str
    uuid: str | Unavailable
    pci_bus_id: str | Unavailable
    compute_capability: str | Unavailable
    memory_total_bytes: int | Unavailable
    memory_used_bytes: int | Unavailable
    utilization_percent: int | Unavailable = Unavailable("not read", "nvml")
    temperature_celsius: int | Unavailable = Unavailable("not read", "nvml")
    slowdown_temperature_celsius: int | Unavailable = Unavailable("not read", "nvml")
    power_draw_watts: float | Unavailable = Unavailable("not read", "nvml")
    power_limit_watts: float | Unavailable = Unavailable("not read", "nvml")
    sm_clock_mhz: int | Unavailable = Unavailable("not read", "nvml")
    max_sm_clock_mhz: int | Unavailable = Unavailable("not read", "nvml")
    throttle_reasons: tuple[str, ...] | Unavailable = Unavailable("not read", "nvml")
    persistence_mode: bool | Unavailable = Unavailable("not read", "nvml")
    mig_mode: bool | Unavailable = Unavailable("not read", "nvml")
    ecc_enabled: bool | Unavailable = Unavailable("not read", "nvml")
    processes: tuple[GpuProcess, ...] | Unavailable = Unavailable("not read", "nvml")
    nvlinks_active: int | Unavailable = Unavailable("not read", "nvml")
    links: tuple[GpuLink, ...] | Unavailable = ()
    """To every other GPU; empty on a one-GPU machine."""


@dataclass(frozen=True)
class Facts:
    """Everything the static doctor knows about one machine.

    ``tensorflow`` is None when no TensorFlow distribution is installed.
    """

    host: HostFacts | Unavailable
    packages: PackageFacts | Unavailable
    tensorflow: TensorFlowFacts | Unavailable | None
    libraries: LibraryFacts | Unavailable | None
    driver: DriverFacts | Unavailable
    gpus: tuple[GpuFacts, ...] | Unavailable
    environ: tuple[tuple[str, str], ...] | Unavailable
    nvml: NvmlStatus = NvmlStatus(available=False, reason="not queried")
    probe: ProbeFacts | None = None
    """What starting TensorFlow in a child showed; None for a static diagnosis."""
    schema_version: int = SCHEMA_VERSIONS[Document.DOCTOR]
    """The doctor document's version: saved facts are read back only inside that document."""
    tfgpu_version: str = field(default="")

    def env(self, name: str) -> str | None:
        """The value of one collected environment variable, or None when unset."""
        if isinstance(self.environ, Unavailable):
            return None
        return dict(self.environ).get(name)


@dataclass(frozen=True)
class EnvFix:
    """What ``tfgpu env`` and ``doctor --fix-env`` print: the lines that make TF find its libraries.

    ``lines`` are shell lines to eval or source (empty when none is needed or none can help);
    ``nothing_to_fix`` says why there are none; ``notes`` say what the lines leave undone.
    """

    lines: tuple[str, ...]
    nothing_to_fix: str
    notes: tuple[str, ...] = ()
