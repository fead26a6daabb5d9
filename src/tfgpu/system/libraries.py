"""Find the CUDA libraries TensorFlow needs the way its loader would, and their versions.

glibc's dlopen("libX.so.N") from libtensorflow_framework searches, in order: LD_LIBRARY_PATH,
the caller's RUNPATH, /etc/ld.so.cache, then /lib64, /usr/lib64, /lib, /usr/lib (ld.so(8)).
A copy anywhere else (a pip wheel directory missing from the RUNPATH, conda's lib/, a CUDA
toolkit not on LD_LIBRARY_PATH) is installed but invisible to TF: the doctor reports it with
the export line that makes it visible. A library that one of TF's libraries loads in turn
(cuDNN's libnvrtc) is searched the same way from that loader's RUNPATH. XLA finds ptxas and libdevice separately, through
``--xla_gpu_cuda_data_dir``, the pip ``nvidia/cuda_nvcc`` wheel, /usr/local/cuda and PATH.
"""

from __future__ import annotations

import glob
import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from tfgpu.knowledge.compat import version_key
from tfgpu.knowledge.libraries import Dependency, WantedLibrary, wheel_distribution
from tfgpu.model.facts import CudaLibrary, LibraryCopy, LibraryFacts, SearchDir
from tfgpu.model.unavailable import Unavailable
from tfgpu.system.elf import ElfError, expand_origin, read_dynamic, read_symbols
from tfgpu.system.files import read_regular_or_none
from tfgpu.system.owners import package_owners
from tfgpu.system.runner import CommandRunner

DEFAULT_DIRS = ("/lib64", "/usr/lib64", "/lib", "/usr/lib")
CUDA_ROOT_GLOBS = ("/usr/local/cuda", "/usr/local/cuda-*", "/opt/cuda")
_LDCONFIG_LINE = re.compile(r"^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S+)\s*$")
_FILE_VERSION = re.compile(r"\.so\.(\d+(?:\.\d+)+)$")
_DATA_DIR_FLAG = re.compile(r"--xla_gpu_cuda_data_dir=(\S+)")
_PTXAS_VERSION = re.compile(r"release (\d+\.\d+), V(\d+\.\d+\.\d+)")


def parse_ldconfig(text: str, machine: str = "x86-64") -> dict[str, list[str]]:
    r"""Soname → paths from ``ldconfig -p``, keeping entries of this machine's ABI.

    Examples:
        >>> parse_ldconfig("    libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1")
        {'libcuda.so.1': ['/usr/lib/x86_64-linux-gnu/libcuda.so.1']}
    """
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        match = _LDCONFIG_LINE.match(line)
        if match and (machine in match.group(2) or "," not in match.group(2)):
            out.setdefault(match.group(1), []).append(match.group(3))
    return out


def read_ld_cache(runner: CommandRunner) -> dict[str, list[str]] | Unavailable:
    """The ld.so cache, through ``ldconfig -p`` (tried on PATH, then /sbin)."""
    for argv in (("ldconfig", "-p"), ("/sbin/ldconfig", "-p")):
        result = runner.run(argv, 10)
        if result.ok:
            return parse_ldconfig(result.stdout)
        if result.timed_out:
            return Unavailable("ldconfig -p timed out", "ldconfig -p")
    return Unavailable("ldconfig not found", "ldconfig -p")


def loader_path_entries(value: str | None) -> list[str]:
    """LD_LIBRARY_PATH's entries as glibc's loader reads them: split at ``:`` and ``;``, an empty one is ``.``.

    An empty entry (a leading or doubled separator) makes the loader search the working directory.

    Examples:
        >>> loader_path_entries("/a;b::/c:")
        ['/a', 'b', '.', '/c', '.']
        >>> loader_path_entries("")
        []
    """
    if not value:
        return []
    return [entry or "." for entry in re.split("[:;]", value)]


def search_order(
    ld_library_path: str | None, runpath: Sequence[str], ld_cache_dirs: Sequence[str], root: str = "/"
) -> tuple[SearchDir, ...]:
    """The directories dlopen() searches from libtensorflow_framework, in order, deduplicated."""
    ordered: list[SearchDir] = []
    seen: set[str] = set()
    groups = (
        ("ld_library_path", loader_path_entries(ld_library_path)),
        ("runpath", list(runpath)),
        ("ld_cache", list(ld_cache_dirs)),
        ("default", [os.path.join(root, d.lstrip("/")) for d in DEFAULT_DIRS]),
    )
    for origin, paths in groups:
        for path in paths:
            norm = os.path.normpath(path)
            if norm not in seen:
                seen.add(norm)
                ordered.append(SearchDir(norm, origin))
    return tuple(ordered)


def other_install_dirs(site_dirs: Sequence[str], conda_prefix: str | None, root: str = "/") -> list[str]:
    """Places CUDA libraries are often installed that TF's loader does not search by itself."""
    dirs: list[str] = []
    for site in site_dirs:
        # glob.escape: a site-packages path with [ ] * ? in it must not be read as a pattern
        dirs.extend(sorted(glob.glob(os.path.join(glob.escape(site), "nvidia", "*", "lib"))))
    if conda_prefix:
        dirs.append(os.path.join(conda_prefix, "lib"))
    for pattern in CUDA_ROOT_GLOBS:
        for cuda in sorted(glob.glob(os.path.join(glob.escape(root), pattern.lstrip("/")))):
            dirs.extend([os.path.join(cuda, "lib64"), os.path.join(cuda, "targets", "x86_64-linux", "lib")])
    dirs.append(os.path.join(root, "usr/lib/wsl/lib"))
    return [d for d in dirs if os.path.isdir(d)]


def library_version(path: str, name: str, cuda_major: str) -> str | Unavailable:
    """The version of one library file: its real file name, its wheel, or the header installed beside it.

    The file is never loaded: a library's constructor would run inside tfgpu (one that aborts
    killed the doctor with no report; one that called ``_exit(0)`` made ``doctor --static`` exit 0
    with an empty report). TF's live probe, in a child, reports the version it loaded.
    """
    real = os.path.realpath(path)
    match = _FILE_VERSION.search(os.path.basename(real))
    if match and match.group(1).count(".") >= 1:
        return match.group(1)
    wheel = _wheel_version(real, cuda_major)
    if wheel:
        return wheel
    if name in HEADER_VERSIONS:
        return _header_version(real, name)
    return Unavailable("version not recorded in the file name or a wheel", path)


def _wheel_version(real: str, cuda_major: str) -> str | None:
    parts = Path(real).parts
    if len(parts) < 4 or parts[-2] != "lib" or parts[-4] != "nvidia":
        return None
    site = Path(*parts[:-4])
    dist = wheel_distribution(parts[-3], cuda_major).replace("-", "_")
    for info in sorted(site.glob(f"{dist}-*.dist-info")):
        return info.name[len(dist) + 1 : -len(".dist-info")]
    return None


HEADER_VERSIONS = {
    "cudnn": ("cudnn_version.h", ("CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL")),
    "cudart": ("cuda_runtime_api.h", ("CUDART_VERSION",)),
}
"""Where a system or conda install states the version of a library whose file name does not."""
MAX_HEADER_BYTES = 1 << 18
_DEFINE = re.compile(rb"^#define\s+(\w+)\s+(\d+)\s*$", re.M)


def _header_version(real: str, name: str) -> str | Unavailable:
    """The version in the header of the install the library belongs to (``lib/../include``), read, never run."""
    header, macros = HEADER_VERSIONS[name]
    lib_dir = os.path.dirname(real)
    for include in (os.path.join(lib_dir, "..", "include"), os.path.join(lib_dir, "..", "..", "include")):
        text = read_regular_or_none(os.path.join(include, header), MAX_HEADER_BYTES)
        if text is None:
            continue
        defined = {k.decode(): int(v) for k, v in _DEFINE.findall(text)}
        if name == "cudart" and "CUDART_VERSION" in defined:
            v = defined["CUDART_VERSION"]
            return f"{v // 1000}.{v % 1000 // 10}"
        if all(m in defined for m in macros):
            return ".".join(str(defined[m]) for m in macros)
    return Unavailable(
        f"version not recorded in the file name, a wheel or {header} beside it (tfgpu never loads a library to ask)",
        real,
    )


def locate(
    wanted: Sequence[WantedLibrary],
    order: Sequence[SearchDir],
    elsewhere_dirs: Sequence[str],
    ld_cache: Mapping[str, list[str]],
    cuda_major: str,
) -> tuple[CudaLibrary, ...]:
    """Every copy of each wanted library: on TF's search path (in order), then elsewhere."""
    out = []
    searched = {d.path for d in order}
    for lib in wanted:
        copies: list[LibraryCopy] = []
        seen: set[str] = set()
        for d in order:
            candidates = ld_cache.get(lib.soname, []) if d.origin == "ld_cache" else [os.path.join(d.path, lib.soname)]
            for path in candidates:
                if d.origin == "ld_cache" and os.path.dirname(path) != d.path:
                    continue
                if path not in seen and os.path.exists(path):
                    seen.add(path)
                    copies.append(LibraryCopy(path, d.origin, library_version(path, lib.name, cuda_major)))
        for directory in elsewhere_dirs:
            path = os.path.join(os.path.normpath(directory), lib.soname)
            if os.path.normpath(directory) not in searched and path not in seen and os.path.exists(path):
                seen.add(path)
                copies.append(LibraryCopy(path, "elsewhere", library_version(path, lib.name, cuda_major)))
        out.append(CudaLibrary(lib.name, lib.soname, lib.required, tuple(copies)))
    return tuple(out)


def loader_runpath(path: str) -> tuple[str, ...]:
    """The directories a library's own RUNPATH (or, without one, RPATH) adds, ``$ORIGIN`` expanded."""
    try:
        info = read_dynamic(path)
    except (OSError, ElfError):
        return ()
    return tuple(expand_origin(entry, path) for entry in (info.runpath or info.rpath))


def locate_dependencies(
    deps: Sequence[Dependency],
    direct: Sequence[CudaLibrary],
    ld_library_path: str | None,
    elsewhere_dirs: Sequence[str],
    ld_cache: Mapping[str, list[str]],
    cache_dirs: Sequence[str],
    cuda_major: str,
    root: str = "/",
) -> tuple[CudaLibrary, ...]:
    """Each dependency located as its loader's dlopen would find it, or nothing when the loader is not loaded.

    The loader file sits beside the TF-level library it belongs to (libcudnn_graph.so.9 beside
    libcudnn.so.9); its RUNPATH takes the place of TF's in the search order. A soname TF itself
    loads is already in the process, which satisfies the later dlopen. Each copy records the
    symbols the loader binds from it that it lacks: the copy is found, yet the loader fails.
    """
    by_name = {lib.name: lib for lib in direct}
    in_process = {lib.soname: lib.loaded for lib in direct if lib.loaded is not None}
    out = []
    for dep in deps:
        owner = by_name.get(dep.loader)
        if owner is None or owner.loaded is None:
            continue
        loader = os.path.join(os.path.dirname(owner.loaded.path), dep.loader_file)
        if not os.path.exists(loader):
            loader = owner.loaded.path
        runpath = loader_runpath(loader)
        already = in_process.get(dep.soname)
        if already is not None:
            copies: tuple[LibraryCopy, ...] = (LibraryCopy(already.path, "loaded", already.version),)
        else:
            order = search_order(ld_library_path, runpath, cache_dirs, root)
            wanted = WantedLibrary(dep.name, dep.soname, dep.wheel_dir)
            copies = locate([wanted], order, elsewhere_dirs, ld_cache, cuda_major)[0].copies
        binds = _symbols_needed(loader, dep.soname)
        copies = tuple(replace(c, lacks=_lacking(c.path, binds)) if binds else c for c in copies)
        out.append(CudaLibrary(dep.name, dep.soname, True, copies, loader, runpath, dep.needed_for))
    return tuple(out)


def _symbols_needed(loader: str, soname: str) -> frozenset[str]:
    """The symbols ``loader`` binds from ``soname`` (its version requirement names the file); none when unreadable."""
    try:
        return read_symbols(loader).needed.get(soname, frozenset())
    except (OSError, ElfError):
        return frozenset()


def _lacking(path: str, binds: frozenset[str]) -> tuple[str, ...]:
    """Which of ``binds`` the library at ``path`` does not define; none when it cannot be read (nothing measured)."""
    try:
        return tuple(sorted(binds - read_symbols(path).defined))
    except (OSError, ElfError):
        return ()


def cuda_roots(environ: Mapping[str, str], site_dirs: Sequence[str], root: str = "/") -> list[tuple[str, str]]:
    """(root, origin) of the CUDA directories XLA searches for libdevice, and for ptxas after PATH, in its order.

    XLA's tsl::CandidateCudaRoots: ``--xla_gpu_cuda_data_dir`` first, then /usr/local/cuda and
    /opt/cuda, then the nvidia-cuda-nvcc wheel beside TensorFlow (xla/tsl/platform/default/cuda_root_path.cc):
    a system CUDA shadows the wheel's.
    """
    roots: list[tuple[str, str]] = []
    flag = _DATA_DIR_FLAG.search(environ.get("XLA_FLAGS", ""))
    if flag:
        roots.append((flag.group(1), "xla_flags"))
    roots += [(os.path.join(root, "usr/local/cuda"), "default"), (os.path.join(root, "opt/cuda"), "default")]
    roots.extend((os.path.join(site, "nvidia", "cuda_nvcc"), "wheel") for site in site_dirs)
    return roots


PTXAS_MINIMUM = (11, 8)
PTXAS_EXCLUDED = ("12.3.103",)
"""XLA skips a ptxas older than 11.8 or of a version known to miscompile (FindPtxAsExecutable)."""


def locate_xla_tools(
    environ: Mapping[str, str], site_dirs: Sequence[str], runner: CommandRunner, root: str = "/"
) -> tuple[CudaLibrary, CudaLibrary]:
    """The ptxas (XLA compiles PTX with it) and libdevice.10.bc (math for XLA kernels) XLA would use.

    ptxas is looked for as XLA's FindCudaExecutable does: the data-dir flag, then every PATH
    entry, then the CUDA roots; the first one of at least 11.8 and not excluded is run. A copy XLA
    skips for its version, or whose version cannot be read, is recorded as ``elsewhere``.
    """
    roots = cuda_roots(environ, site_dirs, root)
    flag, rest = [r for r in roots if r[1] == "xla_flags"], [r for r in roots if r[1] != "xla_flags"]
    places = [(os.path.join(r, "bin"), o) for r, o in flag]
    places += [(p, "path") for p in environ.get("PATH", "").split(":") if p]
    places += [(os.path.join(r, "bin"), o) for r, o in rest]
    ptxas: list[LibraryCopy] = []
    deadline = time.monotonic() + PTXAS_BUDGET_SECONDS
    for directory, origin in places:
        candidate = os.path.join(directory, "ptxas")
        if os.path.isfile(candidate) and candidate not in [c.path for c in ptxas]:
            version = _ptxas_version(candidate, runner, deadline)
            usable = isinstance(version, str) and _ptxas_usable(version)
            ptxas.append(LibraryCopy(candidate, origin if usable else "elsewhere", version))
    libdevice: list[LibraryCopy] = []
    for directory, origin in roots:
        candidate = os.path.join(directory, "nvvm", "libdevice", "libdevice.10.bc")
        if os.path.isfile(candidate):
            libdevice.append(LibraryCopy(candidate, origin, Unavailable("libdevice has no version", candidate)))
    return (
        CudaLibrary("ptxas", "ptxas", False, tuple(ptxas)),
        CudaLibrary("libdevice", "libdevice.10.bc", False, tuple(libdevice)),
    )


def _ptxas_usable(version: str) -> bool:
    """Whether XLA would run a ptxas of this version.

    Examples:
        >>> _ptxas_usable("12.5.82"), _ptxas_usable("11.7.99"), _ptxas_usable("12.3.103")
        (True, False, False)
    """
    return version_key(version)[:2] >= PTXAS_MINIMUM and version not in PTXAS_EXCLUDED


PTXAS_BUDGET_SECONDS = 10.0
"""All the ``ptxas --version`` calls of one doctor share this: ten hanging copies on PATH took 100 s
one after another (issue 25); once it is spent, the copies left are named but not asked."""


def _ptxas_version(path: str, runner: CommandRunner, deadline: float) -> str | Unavailable:
    left = deadline - time.monotonic()
    if left <= 0:
        return Unavailable(f"not asked: the ptxas copies before it used the {PTXAS_BUDGET_SECONDS:.0f} s budget", path)
    result = runner.run((path, "--version"), left)
    match = _PTXAS_VERSION.search(result.stdout)
    return match.group(2) if match else Unavailable("ptxas --version gave no version", path)


def collect_libraries(
    wanted: Sequence[WantedLibrary],
    deps: Sequence[Dependency],
    cuda_major: str,
    runpath: Sequence[str],
    environ: Mapping[str, str],
    site_dirs: Sequence[str],
    conda_prefix: str | None,
    runner: CommandRunner,
    root: str = "/",
) -> LibraryFacts:
    """Locate every library and XLA tool a CUDA build of TF needs, and what its libraries load in turn.

    Source: ``ldconfig -p``, LD_LIBRARY_PATH, the RUNPATH of libtensorflow_framework.so.2,
    the file system, wheel metadata, and ``ptxas --version``. ``root`` prefixes the fixed system
    directories (tests point it at a recorded tree); PATH and LD_LIBRARY_PATH are taken as they are.
    """
    cache = read_ld_cache(runner)
    cache_map = {} if isinstance(cache, Unavailable) else cache
    cache_dirs = sorted({os.path.dirname(p) for paths in cache_map.values() for p in paths})
    order = search_order(environ.get("LD_LIBRARY_PATH"), runpath, cache_dirs, root)
    elsewhere = other_install_dirs(site_dirs, conda_prefix, root)
    libraries = locate(wanted, order, elsewhere, cache_map, cuda_major)
    chained = locate_dependencies(
        deps, libraries, environ.get("LD_LIBRARY_PATH"), elsewhere, cache_map, cache_dirs, cuda_major, root
    )
    tools = locate_xla_tools(environ, site_dirs, runner, root)
    found = with_owners(libraries + chained + tools, site_dirs, conda_prefix, root)
    return LibraryFacts(cuda_major, found, order, foreign_cudart(environ, cuda_major))


def with_owners(
    libraries: Sequence[CudaLibrary], site_dirs: Sequence[str], conda_prefix: str | None, root: str
) -> tuple[CudaLibrary, ...]:
    """Each copy with the package that installed it, where pip, conda or dpkg records one."""
    owners = package_owners((c.path for lib in libraries for c in lib.copies), site_dirs, conda_prefix, root)
    return tuple(
        replace(lib, copies=tuple(replace(c, owner=owners.get(c.path)) for c in lib.copies)) for lib in libraries
    )


def foreign_cudart(environ: Mapping[str, str], cuda_major: str) -> tuple[LibraryCopy, ...]:
    """CUDA runtimes of another major on LD_LIBRARY_PATH: the mark of a second CUDA install."""
    out = []
    for directory in loader_path_entries(environ.get("LD_LIBRARY_PATH")):
        for path in sorted(glob.glob(os.path.join(glob.escape(directory), "libcudart.so.*"))):
            major = path.rsplit(".so.", 1)[1].split(".")[0]
            if major != cuda_major and os.path.isfile(path):
                out.append(LibraryCopy(path, "ld_library_path", library_version(path, "cudart", major)))
    return tuple(out)
