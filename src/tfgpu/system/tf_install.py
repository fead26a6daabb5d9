"""The installed TensorFlow, read from its files without importing it.

Importing TensorFlow takes 5-15 s and can crash or hang on a broken CUDA install, which is
exactly the machine the doctor must diagnose; so the build facts come from
``tensorflow/python/platform/build_info.py`` (what ``tf.sysconfig.get_build_info()`` returns)
and the library search path from the RUNPATH of TF's own shared objects.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

from tfgpu.model.facts import PackageFacts, TensorFlowFacts, TfBuildInfo
from tfgpu.model.unavailable import Unavailable
from tfgpu.system.elf import ElfError, expand_origin, read_dynamic
from tfgpu.system.files import read_regular
from tfgpu.system.packages import TF_DISTRIBUTIONS

# dso_loader.cc is compiled into libtensorflow_framework, and glibc's dlopen() searches the
# RUNPATH of the calling object: this one RUNPATH decides which CUDA libraries TF can find.
TF_SHARED_OBJECTS = ("libtensorflow_framework.so.2",)
BUILD_INFO = "python/platform/build_info.py"
MAX_SOURCE_BYTES = 1 << 20
"""build_info.py and setup.py are a few kB; more (or a FIFO, or a device) is not TensorFlow's file."""


def find_tensorflow_dir(search_path: list[str] | None = None) -> Path | None:
    """The ``tensorflow`` package directory, located without executing it."""
    if search_path is not None:
        for entry in search_path:
            candidate = Path(entry) / "tensorflow"
            if (candidate / "__init__.py").is_file():
                return candidate
        return None
    try:
        spec = importlib.util.find_spec("tensorflow")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent


def parse_build_info(source: str) -> TfBuildInfo:
    """The build facts from the text of build_info.py.

    Raises:
        ValueError: the file holds no readable ``build_info`` assignment.
    """
    values = _build_info_dict(source)
    raw = values.get("cuda_compute_capabilities") or []
    caps = (
        [c for c in re.split(r"[,\s]+", raw) if c]
        if isinstance(raw, str)
        else list(raw)
        if isinstance(raw, (list, tuple))
        else []
    )
    return TfBuildInfo(
        is_cuda_build=bool(values.get("is_cuda_build", False)),
        is_rocm_build=bool(values.get("is_rocm_build", False)),
        is_tensorrt_build=bool(values.get("is_tensorrt_build", False)),
        cuda_version=_opt_str(values.get("cuda_version")),
        cudnn_version=_opt_str(values.get("cudnn_version")),
        compute_capabilities=tuple(str(c) for c in caps),
    )


def _opt_str(value: object) -> str | None:
    return None if value in (None, "") else str(value)


def _build_info_dict(source: str) -> dict[str, object]:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        if not any(isinstance(t, ast.Name) and t.id == "build_info" for t in node.targets):
            continue
        value = node.value
        # collections.OrderedDict([...]) in TF 2.x, a dict literal in some builds.
        if isinstance(value, ast.Call) and value.args:
            value = value.args[0]
        literal = ast.literal_eval(value)
        return dict(literal) if isinstance(literal, dict) else dict(tuple(item) for item in literal)
    raise ValueError("no build_info assignment")


def read_runpaths(package_dir: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """RUNPATH (or RPATH) of TF's shared objects, ``$ORIGIN`` expanded, unreadable ones skipped."""
    out = []
    for rel in TF_SHARED_OBJECTS:
        path = package_dir / rel
        if not path.is_file():
            continue
        try:
            info = read_dynamic(str(path))
        except (ElfError, OSError):
            continue
        entries = info.runpath or info.rpath
        out.append((rel, tuple(expand_origin(e, str(path)) for e in entries)))
    return tuple(out)


def _files_version(package_dir: Path) -> str | None:
    setup = package_dir / "tools/pip_package/setup.py"
    try:
        text = read_regular(setup, MAX_SOURCE_BYTES).decode("utf-8", errors="replace")
        match = re.search(r"^_VERSION = '([^']+)'", text, re.M)
    except OSError:
        return None
    return match.group(1) if match else None


def collect_tensorflow(
    packages: PackageFacts | Unavailable, search_path: list[str] | None = None
) -> TensorFlowFacts | None:
    """The installed TensorFlow, or None when there is none.

    Source: ``importlib.util.find_spec("tensorflow")``, build_info.py, ELF dynamic sections.
    """
    package_dir = find_tensorflow_dir(search_path)
    dists = [] if isinstance(packages, Unavailable) else [packages.get(n) for n in TF_DISTRIBUTIONS]
    dist = next((d for d in dists if d is not None), None)
    if package_dir is None:
        return None
    build_file = package_dir / BUILD_INFO
    build: TfBuildInfo | Unavailable
    try:
        build = parse_build_info(read_regular(build_file, MAX_SOURCE_BYTES).decode("utf-8", errors="replace"))
    except OSError as exc:
        build = Unavailable(f"cannot read build_info.py: {exc.strerror or exc}", str(build_file))
    except (ValueError, SyntaxError) as exc:
        build = Unavailable(f"unreadable build_info.py: {exc}", str(build_file))
    return TensorFlowFacts(
        distribution=dist.name if dist else "unknown",
        version=(dist.version if dist else None) or _files_version(package_dir) or "unknown",
        package_dir=str(package_dir),
        build=build,
        runpaths=read_runpaths(package_dir),
    )
