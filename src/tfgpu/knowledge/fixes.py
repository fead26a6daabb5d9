"""Fix commands written for the machine at hand (its interpreter, its TensorFlow version)."""

from __future__ import annotations

import os
import re
import shlex

from tfgpu.knowledge.compat import major_minor, newest_release, newest_release_for_python, version_key
from tfgpu.knowledge.libraries import dependency_wheel, wheel_distribution
from tfgpu.model.facts import CudaLibrary, Facts, HostFacts, LibraryCopy, LibraryFacts, PackageFacts, TensorFlowFacts
from tfgpu.model.unavailable import Unavailable

TF_INSTALL_DOCS = "https://www.tensorflow.org/install/pip"
AND_CUDA_SINCE = (2, 14)
"""The first TensorFlow with the ``and-cuda`` extra (TF 2.14.0's release notes); pip ignores it for older ones."""
_BEFORE_AND_CUDA = f"TF before {'.'.join(map(str, AND_CUDA_SINCE))} does not look in site-packages"
REPLACED_BY_TENSORFLOW = ("tensorflow-gpu", "tensorflow-cpu")
"""Distributions that write the same tensorflow/ package as ``tensorflow``: left installed, the two overwrite each other."""


def python(facts: Facts) -> str:
    """The interpreter to run pip with: the one the facts were collected from."""
    if isinstance(facts.host, Unavailable):
        return "python3"
    return shlex.quote(facts.host.python_executable)


def pip(facts: Facts, *args: str) -> str:
    """``<python> -m pip <args>``, each argument quoted for a POSIX shell."""
    return " ".join([python(facts), "-m", "pip", *(shlex.quote(a) for a in args)])


def target_tf_version(facts: Facts) -> str:
    """The TF major.minor to recommend: the installed one if it is a known GPU release, else the newest for this Python."""
    tf = facts.tensorflow
    if isinstance(tf, TensorFlowFacts) and tf.version != "unknown":
        return major_minor(tf.version)
    return _newest_for_python(facts)


def _newest_for_python(facts: Facts) -> str:
    py = None if isinstance(facts.host, Unavailable) else facts.host.python_version
    release = newest_release_for_python(py) if py else None
    return major_minor((release or newest_release()).version)


def install_tf_with_cuda(facts: Facts, version: str | None = None, uninstalling: tuple[str, ...] = ()) -> str:
    """``pip install "tensorflow[and-cuda]==X.Y.*"`` for this interpreter, or into a new venv.

    A distribution's Python marked EXTERNALLY-MANAGED (PEP 668: Debian 12, Ubuntu 23.04 and
    later) refuses ``pip install``, so the fix creates a virtual environment from it instead.
    The extra exists from TF 2.14: an installed TF older than that is upgraded to the newest release
    for this Python (a tensorflow-gpu 2.10 with ``[and-cuda]==2.10.*`` got no CUDA at all), and an
    older version asked for by name is installed without the extra. ``tensorflow-gpu`` and
    ``tensorflow-cpu`` (and ``uninstalling``) are removed first, in the same interpreter.
    """
    if version is None:
        version = target_tf_version(facts)
        if version_key(version) < AND_CUDA_SINCE:
            version = _newest_for_python(facts)
    extra = "[and-cuda]" if version_key(version) >= AND_CUDA_SINCE else ""
    install = _install(facts, f"tensorflow{extra}=={version}.*")
    packages = facts.packages
    stale = [n for n in REPLACED_BY_TENSORFLOW if isinstance(packages, PackageFacts) and packages.get(n)]
    remove = list(dict.fromkeys([*uninstalling, *stale]))
    if not remove or (isinstance(facts.host, HostFacts) and facts.host.externally_managed):
        return install  # a new venv starts clean
    return f"{pip(facts, 'uninstall', '-y', *remove)} && {install}"


def install_tf_for_cpu(facts: Facts) -> str:
    """``pip install "tensorflow==X.Y.*"`` without the CUDA wheels (3 GB that a machine without an NVIDIA GPU never loads)."""
    return _install(facts, f"tensorflow=={target_tf_version(facts)}.*")


def _install(facts: Facts, spec: str) -> str:
    """``pip install SPEC`` for this interpreter, or into a new venv where the interpreter is externally managed."""
    if isinstance(facts.host, HostFacts) and facts.host.externally_managed:
        venv = "~/tf-gpu"
        return f"{python(facts)} -m venv {venv} && {venv}/bin/python -m pip install {shlex.quote(spec)}"
    return pip(facts, "install", spec)


def install_dependencies(facts: Facts, sonames: list[str], cuda_major: str) -> str:
    """``pip install`` of the wheels that ship these dependency sonames (TF's own extra when none is known)."""
    wheels = list(dict.fromkeys(w for w in (dependency_wheel(s, cuda_major) for s in sonames) if w))
    return pip(facts, "install", *wheels) if wheels else install_tf_with_cuda(facts)


def upgrade_dependency(facts: Facts, soname: str, cuda_major: str) -> str:
    """``pip install --upgrade`` of the wheel that ships this dependency.

    pip can resolve one older than its loader needs (NVIDIA/cuvs#1794); only a newer copy defines the symbols it binds.
    """
    wheel = dependency_wheel(soname, cuda_major)
    return pip(facts, "install", "--upgrade", wheel) if wheel else install_tf_with_cuda(facts)


CUDA_WHEELS_FROM = 11
"""NVIDIA publishes its CUDA libraries as pip wheels (``nvidia-cudnn-cu11``, ``-cu12``) from CUDA 11: none for CUDA 10."""


def nvidia_wheel_install(
    pip_command: str,
    wheel_dir: str,
    label: str,
    cuda: str,
    *,
    windows: bool = False,
    pin: str = "",
    finds_wheels: bool | None = None,
) -> str:
    """How to install the NVIDIA wheel of ``site-packages/nvidia/<wheel_dir>`` for a TF's CUDA ("12.5", "11.2", "10.0").

    TF from 2.14 (its ``and-cuda`` extra: CUDA 11.8 wheels for 2.14, CUDA 12 from 2.15) finds the wheels in
    site-packages by itself (``finds_wheels``); an older TF does not look there, so the wheel needs its lib
    directory on LD_LIBRARY_PATH (TF 2.12's own install guide did that: https://github.com/tensorflow/docs/pull/2214).
    ``finds_wheels`` None is a TF of unknown release. CUDA 10 has no wheels, and TF on native Windows loads DLLs
    from PATH, not from pip's wheels.

    Examples:
        >>> nvidia_wheel_install("python -m pip", "cudnn", "cuDNN", "12.5", finds_wheels=True)
        'python -m pip install --upgrade nvidia-cudnn-cu12'
        >>> nvidia_wheel_install("python -m pip", "cudnn", "cuDNN", "11.8", pin="==8.*", finds_wheels=False)
        "python -m pip install 'nvidia-cudnn-cu11==8.*', then its lib directory on LD_LIBRARY_PATH: TF before 2.14 does not look in site-packages"
        >>> nvidia_wheel_install("python -m pip", "cudnn", "cuDNN", "10.0")
        "NVIDIA's cuDNN for CUDA 10.0; no pip wheel exists for CUDA 10"
    """
    major = version_key(cuda)[0] if version_key(cuda) else 12
    if windows:
        return f"NVIDIA's {label} for CUDA {cuda}, its bin directory on PATH; TF on native Windows does not load pip's NVIDIA wheels"
    if major < CUDA_WHEELS_FROM:
        return f"NVIDIA's {label} for CUDA {cuda}; no pip wheel exists for CUDA {major}"
    wheel = shlex.quote(wheel_distribution(wheel_dir, str(major)) + pin)
    if finds_wheels:
        return f"{pip_command} install --upgrade {wheel}"
    if finds_wheels is False:
        return f"{pip_command} install {wheel}, then its lib directory on LD_LIBRARY_PATH: {_BEFORE_AND_CUDA}"
    return (
        f"{pip_command} install --upgrade {wheel}, and if TF does not find it, its lib directory on LD_LIBRARY_PATH: "
        + _BEFORE_AND_CUDA
    )


def export_line(dirs: list[str]) -> str:
    """The LD_LIBRARY_PATH line that puts ``dirs`` first, keeping what was there.

    Examples:
        >>> export_line(["/sp/nvidia/cusolver/lib"])
        'export LD_LIBRARY_PATH=/sp/nvidia/cusolver/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}'
    """
    joined = ":".join(shlex.quote(d) for d in dict.fromkeys(dirs))
    return f"export LD_LIBRARY_PATH={joined}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"


def export_var(name: str, value: str) -> str:
    """``export NAME=value`` with the value quoted for a POSIX shell: pasting it sets that one variable.

    Examples:
        >>> export_var("CUDA_VISIBLE_DEVICES", "0,1")
        'export CUDA_VISIBLE_DEVICES=0,1'
        >>> export_var("CUDA_VISIBLE_DEVICES", "GPU-a;touch /tmp/x")
        "export CUDA_VISIBLE_DEVICES='GPU-a;touch /tmp/x'"
    """
    if not name.isidentifier() or not name.isascii():
        raise ValueError(f"not an environment variable name: {name!r}")
    return f"export {name}={shlex.quote(value)}"


_POSIX_EXPORT = re.compile(r"\bexport (?P<name>(?!LD_LIBRARY_PATH\b)[A-Za-z_]\w*)=(?P<value>[\w.,:/=+-]*[\w/])")
"""A fix's ``export NAME=value`` of a plain value; LD_LIBRARY_PATH is left, as no Windows loader reads it."""


def for_windows(fix: str) -> str:
    """The fix with each ``export NAME=value`` written for Windows's two shells.

    Windows has no ``export``: cmd (and the Anaconda Prompt) sets a variable with ``set NAME=value``,
    PowerShell with ``$env:NAME="value"``, and PowerShell's own ``set`` makes a shell variable TF never
    sees, so both spellings are given.

    Examples:
        >>> for_windows("export TF_FORCE_GPU_ALLOW_GROWTH=true; if it persists, ...")
        'set TF_FORCE_GPU_ALLOW_GROWTH=true (PowerShell: $env:TF_FORCE_GPU_ALLOW_GROWTH="true"); if it persists, ...'
        >>> for_windows("install tf-keras and export TF_USE_LEGACY_KERAS=1, or port the code")
        'install tf-keras and set TF_USE_LEGACY_KERAS=1 (PowerShell: $env:TF_USE_LEGACY_KERAS="1"), or port the code'
    """
    return _POSIX_EXPORT.sub(
        lambda m: f'set {m["name"]}={m["value"]} (PowerShell: $env:{m["name"]}="{m["value"]}")', fix
    )


def unreachable_dirs(libraries: LibraryFacts) -> list[str]:
    """Directories holding required libraries that their loader cannot reach or cannot use (for ``tfgpu env``).

    TF's own libraries come first, then the ones they load in turn, each once. A library whose
    first copy lacks symbols its loader binds (CUDA 12.1's nvJitLink on LD_LIBRARY_PATH ahead of
    the wheel's) gets the directory of the first copy that has them: put first, it is the one
    loaded, and the user's LD_LIBRARY_PATH keeps every directory it had. A directory whose name
    holds control characters is never offered: a line to paste must not carry them.
    """
    return [d for d in _invisible_dirs(libraries) if d.isprintable() and not unnameable(d)]


def unnameable_dirs(libraries: LibraryFacts) -> list[str]:
    """The directories a line would have to name but cannot: the loader splits LD_LIBRARY_PATH inside them."""
    return [d for d in _invisible_dirs(libraries) if unnameable(d)]


def unnameable(directory: str) -> bool:
    """Whether LD_LIBRARY_PATH cannot name the directory: glibc splits the variable at ``:`` and at ``;``.

    Examples:
        >>> unnameable("/home/a:b/site-packages/nvidia/cudnn/lib"), unnameable("/opt/env/lib")
        (True, False)
    """
    return ":" in directory or ";" in directory


def _invisible_dirs(libraries: LibraryFacts) -> list[str]:
    dirs = [
        os.path.dirname(lib.elsewhere[0].path)
        for lib in libraries.libraries
        if lib.required and lib.loaded is None and lib.elsewhere
    ]
    for lib in libraries.libraries:
        if lib.unbindable is not None and (usable := lib.bindable) is not None:
            dirs.append(os.path.dirname(usable.path))
    return list(dict.fromkeys(dirs))


def fix_env_lines(facts: Facts) -> list[str]:
    """The shell lines that make TF find installed-but-invisible libraries (empty when none are needed)."""
    libs = facts.libraries
    dirs = unreachable_dirs(libs) if isinstance(libs, LibraryFacts) else []
    return [export_line(dirs)] if dirs else []


def nothing_to_fix(facts: Facts) -> str:
    """Why no environment line is needed: TF finds everything, or what it lacks is not installed at all."""
    if facts.libraries is None:
        return "no CUDA build of TensorFlow is installed here (run `tfgpu doctor`)"
    if not isinstance(facts.libraries, LibraryFacts):
        return f"TF's libraries could not be read ({facts.libraries.reason}): run `tfgpu doctor`"
    return not_installed(facts) or unnameable_note(facts) or unbindable_note(facts) or "TF finds every library it needs"


def unnameable_note(facts: Facts) -> str | None:
    """Directories TF needs that no LD_LIBRARY_PATH line can name (the loader splits at ``:`` and ``;`` in them)."""
    dirs = unnameable_dirs(facts.libraries) if isinstance(facts.libraries, LibraryFacts) else []
    if not dirs:
        return None
    return (
        f"no line can point at {', '.join(dirs)}: the loader splits LD_LIBRARY_PATH at ':' and ';', and a line "
        "naming it would add other, relative directories instead; install the environment under a path without them"
    )


def unbindable_note(facts: Facts) -> str | None:
    """Libraries whose every copy lacks symbols their loader binds: no line can help, only a newer copy."""
    libs = facts.libraries
    if not isinstance(libs, LibraryFacts):
        return None
    stuck = lacking_everywhere(libs)
    if not stuck:
        return None
    return "; ".join(
        f"{_lacking_everywhere_said(lib, copy)}, which no line can fix: "
        f"{upgrade_dependency(facts, lib.soname, libs.cuda_major)}"
        for lib, copy in stuck
    )


def unbindable_here(facts: Facts) -> str | None:
    """Each library whose loaded copy lacks symbols its loader binds, said with the copy that has them, if any.

    TF's "Cannot dlopen some GPU libraries" names no library when a dependency failed to bind (set t on
    the H100: CUDA 12.1's nvJitLink first on LD_LIBRARY_PATH); the facts say which.
    """
    libs = facts.libraries
    if not isinstance(libs, LibraryFacts):
        return None
    return (
        "; ".join(
            f"{copy.path} is found first and lacks symbols {loader_name(lib)} binds; {usable.path} defines them"
            if (usable := lib.bindable) is not None
            else _lacking_everywhere_said(lib, copy)
            for lib in libs.libraries
            if (copy := lib.unbindable) is not None
        )
        or None
    )


def _lacking_everywhere_said(lib: CudaLibrary, copy: LibraryCopy) -> str:
    """``copy``, the one loaded, lacks symbols the loader binds, and no copy here has them: said once for both notes."""
    return f"{copy.path} lacks symbols {loader_name(lib)} binds and no copy here defines them"


def load_fix_lines(facts: Facts) -> list[str]:
    """What makes TF load every library it needs: ``tfgpu env``'s line, and a wheel's upgrade where no copy will do."""
    libs = facts.libraries
    if not isinstance(libs, LibraryFacts):
        return []
    upgrades = [upgrade_dependency(facts, lib.soname, libs.cuda_major) for lib, _ in lacking_everywhere(libs)]
    return fix_env_lines(facts) + upgrades


def loader_name(lib: CudaLibrary) -> str:
    """The file name of the library that loads ``lib`` in turn (libcusparse.so.12 for nvJitLink), for a message."""
    return os.path.basename(lib.loaded_by or "") or "its loader"


def lacking_everywhere(libs: LibraryFacts) -> list[tuple[CudaLibrary, LibraryCopy]]:
    """Each library whose loaded copy lacks symbols its loader binds and no copy here defines them, with that copy."""
    return [(lib, copy) for lib in libs.libraries if (copy := lib.unbindable) is not None and lib.bindable is None]


def not_installed(facts: Facts) -> str | None:
    """The libraries TF needs that no line can make visible, because no copy is installed, and how to install them."""
    if not isinstance(facts.libraries, LibraryFacts):
        return None
    missing = [lib.soname for lib in facts.libraries.libraries if lib.required and not lib.copies]
    if not missing:
        return None
    return (
        f"{len(missing)} librar{'y' if len(missing) == 1 else 'ies'} TF needs "
        f"{'is' if len(missing) == 1 else 'are'} not installed, which no line can fix ({', '.join(missing)}): "
        f"install {'it' if len(missing) == 1 else 'them'} with {install_tf_with_cuda(facts)}"
    )
