"""Turn the matcher's hits into problems with fixes written for the machine at hand."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import BinaryIO, TextIO

from tfgpu.explain.reader import LogReader, NotALogError
from tfgpu.knowledge.archs import parse_cc
from tfgpu.knowledge.compat import major_minor, newest_release, releases_built_for_cuda, tf_release, version_key
from tfgpu.knowledge.fixes import (
    AND_CUDA_SINCE,
    export_line,
    for_windows,
    install_tf_with_cuda,
    load_fix_lines,
    nvidia_wheel_install,
    pip,
    target_tf_version,
    unbindable_here,
    unreachable_dirs,
)
from tfgpu.knowledge.gpu_memory import memory_in_use
from tfgpu.knowledge.log_facts import cuda_version_of
from tfgpu.knowledge.scanner import LogScanner
from tfgpu.knowledge.signatures import Hit, ScanContext, render_template
from tfgpu.knowledge.version_checks import other_cuda
from tfgpu.model.errors import NvmlUnavailable, UsageError
from tfgpu.model.explanation import Explanation, FactsSetAside, Problem, QuotedLine, Reading, SetAsideReason
from tfgpu.model.facts import Facts, HostFacts, LibraryFacts, TensorFlowFacts, TfBuildInfo
from tfgpu.model.findings import Severity
from tfgpu.model.unavailable import Unavailable
from tfgpu.nvml.client import NvmlClient
from tfgpu.system.runner import stream_command

GENERIC_EXPORT = 'eval "$(tfgpu env)"'


def context_of(facts: Facts | None) -> ScanContext:
    """The OS, container and TF version the doctor's facts give, for signatures that depend on them."""
    if facts is None:
        return ScanContext()
    os_name, container = None, None
    if isinstance(facts.host, HostFacts):
        os_name = {"Windows": "windows", "Linux": "linux", "Darwin": "macos"}.get(facts.host.os_name)
        container = facts.host.container is not None
    tf = facts.tensorflow
    gpus = facts.gpus
    return ScanContext(
        os=os_name,
        tf_version=tf.version if isinstance(tf, TensorFlowFacts) else None,
        container=container,
        cuda_installed=cuda_installed(facts),
        cudnn_installed=cudnn_installed(facts),
        # A GPU here makes TF's "GPU will not be used" the problem; none here says nothing about a log from elsewhere.
        no_gpu=False if isinstance(gpus, tuple) and gpus else None,
        gpu_cc=gpu_cc(facts),
    )


def gpu_cc(facts: Facts) -> tuple[int, int] | None:
    """The compute capability of the machine's first GPU, when NVML read it."""
    gpus = facts.gpus
    if not isinstance(gpus, tuple) or not gpus or isinstance(gpus[0].compute_capability, Unavailable):
        return None
    try:
        return parse_cc(gpus[0].compute_capability)
    except ValueError:
        return None


def cuda_installed(facts: Facts) -> tuple[str, ...] | None:
    """The CUDA runtime versions found on the machine (TF's own and other majors), when the libraries were read."""
    if not isinstance(facts.libraries, LibraryFacts):
        return None
    cudart = facts.libraries.get("cudart")
    copies = (*(cudart.copies if cudart else ()), *facts.libraries.foreign_cudart)
    versions = {".".join(c.version.split(".")[:2]) for c in copies if isinstance(c.version, str) and c.version}
    return tuple(sorted(versions)) or None


def cudnn_installed(facts: Facts) -> tuple[str, ...] | None:
    """The cuDNN versions found on the machine, when the libraries were read."""
    if not isinstance(facts.libraries, LibraryFacts):
        return None
    cudnn = facts.libraries.get("cudnn")
    versions = {
        ".".join(c.version.split(".")[:2])
        for c in (cudnn.copies if cudnn else ())
        if isinstance(c.version, str) and c.version
    }
    return tuple(sorted(versions)) or None


def gpu_memory_now(facts: Facts) -> str:
    """What others hold on this machine's GPUs as the facts were read, said beside an out-of-memory (else empty).

    The log was written before: a process holding memory now may not have held it then, and a notebook
    kernel that ran the failing cells keeps TF's memory after the error, so the note says both readings.
    """
    gpus = facts.gpus if isinstance(facts.gpus, tuple) else ()
    held = [(gpu, use) for gpu in gpus if (use := memory_in_use(gpu)) is not None]
    if not held:
        return ""
    said = "; ".join(
        f"GPU {gpu.index} ({gpu.name}) has {use.used_gib:.1f} of {use.total_gib:.1f} GiB in use"
        + (f" by {use.holders}" if use.holders else "")
        for gpu, use in held
    )
    return (
        f" On this machine now, {said}: unless that is the run that wrote this log (a notebook kernel keeps TF's "
        "memory until it exits), it is memory this run could not have."
    )


def fix_values(
    facts: Facts | None, tf_version: str | None, log_cuda: str | None = None, *, windows: bool = False
) -> dict[str, str]:
    """Values for the fix templates: exact commands when the facts are known, generic ones otherwise.

    The ``[and-cuda]`` extra exists from TF 2.14: pinned to an older release it installs TF with no CUDA at
    all, so a log of an older TF gets the newest release with its CUDA, as the facts' own command does.
    NVIDIA's library wheels are named for the CUDA of the TF that wrote the log (``log_cuda``, the runtime it
    loads, else its release's tested build): a TF built for CUDA 11 or 10 is not helped by a ``-cu12`` wheel.
    """
    if facts is None:
        version = major_minor(tf_version) if tf_version else "2.21"
        pin = f"=={version}.*" if version_key(version) >= AND_CUDA_SINCE else ""
        pip_command = "python -m pip"
        values = {
            "pip": pip_command,
            "tf_install": f'python -m pip install "tensorflow[and-cuda]{pin}"',
            "export_line": GENERIC_EXPORT,
            "tf_version": version,
            "library_facts": "",
            "load_fix": GENERIC_EXPORT,
            "gpu_memory_now": "",
        }
    else:
        libs = facts.libraries
        dirs = unreachable_dirs(libs) if isinstance(libs, LibraryFacts) else []
        pip_command = pip(facts).rstrip()
        values = {
            "pip": pip_command,
            "tf_install": install_tf_with_cuda(facts),
            "export_line": export_line(dirs) if dirs else GENERIC_EXPORT,
            "tf_version": target_tf_version(facts),
            "library_facts": f" On this machine: {note}." if (note := unbindable_here(facts)) else "",
            "load_fix": "; ".join(load_fix_lines(facts)) or GENERIC_EXPORT,
            "gpu_memory_now": gpu_memory_now(facts),
        }
    values.update(_wheel_values(pip_command, facts, tf_version, log_cuda, windows))
    values["cuda_libs_install"] = _cuda_libs_install(values["tf_install"], facts, tf_version, log_cuda)
    return values


def _cuda_libs_install(tf_install: str, facts: Facts | None, tf_version: str | None, log_cuda: str | None) -> str:
    """How to give TF the CUDA libraries it could not load, for the CUDA the log's TF was built with.

    A TF built for the newest release's CUDA gets its ``and-cuda`` wheels. One built for an older CUDA
    (``libcudart.so.10.0`` is TF 1.13-2.0) needs that CUDA and its cuDNN, which TensorFlow's tested build
    configurations name; the newest release is the other way out, and it is another API for a TF 1.x
    script (and Keras 3 from TF 2.16), so it is offered second, not as the fix.
    """
    newest, wheels = newest_release(), f"{tf_install}   (the nvidia-*-cu12 wheels of the and-cuda extra)"
    installed = facts.tensorflow if facts is not None and isinstance(facts.tensorflow, TensorFlowFacts) else None
    version = installed.version if installed and installed.version else tf_version
    release = tf_release(version) if version else None
    cuda = _built_cuda(facts) or log_cuda or (release.cuda if release else None)
    major = version_key(cuda)[0] if cuda and version_key(cuda) else None
    if major is None or major >= version_key(newest.cuda)[0]:
        return wheels
    runs = (release,) if release else releases_built_for_cuda(major)
    if cuda and "." in cuda and major < 11:  # before CUDA 11 a soname names the minor too: libcudart.so.10.1
        runs = tuple(r for r in runs if version_key(r.cuda)[:2] == version_key(cuda)[:2]) or runs
    if not runs:
        return wheels
    span = _between([major_minor(r.version) for r in runs], "-")
    keras = "; Keras 3 from TF 2.16" if version_key(runs[0].version) < (2, 16) else ""
    return (
        f"Install CUDA {_between([r.cuda for r in runs])} and cuDNN {_between([r.cudnn for r in runs])}, "
        f"what TF {span} {'was' if len(runs) == 1 else 'were'} built for (TensorFlow's tested build configurations), "
        "with their lib64 directory on LD_LIBRARY_PATH; or move to a TF built for CUDA "
        f"{version_key(newest.cuda)[0]}: {tf_install}   (TF {major_minor(newest.version)}'s API{keras})"
    )


def _between(versions: list[str], joiner: str = " to ") -> str:
    """The lowest and the highest of ``versions`` ("11.0 to 11.8"), or the one when they are all the same."""
    ordered = sorted(set(versions), key=version_key)
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]}{joiner}{ordered[-1]}"


def _wheel_values(
    pip_command: str, facts: Facts | None, tf_version: str | None, log_cuda: str | None, windows: bool
) -> dict[str, str]:
    """How to install NVIDIA's cuDNN, compiler, NCCL and CUPTI for the TF that wrote the log.

    Its CUDA is this machine's TF build's, else the runtime the log's TF loads, else its release's. Whether that TF
    finds pip's wheels by itself, and the cuDNN major to pin, come from its release, or from every release built
    for that CUDA when the log names none (all CUDA 11 releases were built with cuDNN 8; some found wheels, some not).
    """
    release = tf_release(tf_version) if tf_version else None
    cuda = _built_cuda(facts) or log_cuda or (release.cuda if release else None) or newest_release().cuda
    major = version_key(cuda)[0] if version_key(cuda) else 0
    runs = (release,) if release else releases_built_for_cuda(major)
    finds = {version_key(r.version) >= AND_CUDA_SINCE for r in runs}
    if not runs and major > version_key(newest_release().cuda)[0]:
        finds = {True}  # a CUDA newer than every known release's: a TF newer than the table, which finds its wheels
    cudnn_majors = {m.group() for r in runs if (m := re.match(r"\d+", r.cudnn))}
    finds_wheels = finds.pop() if len(finds) == 1 else None
    cudnn_pin = f"=={cudnn_majors.pop()}.*" if len(cudnn_majors) == 1 else ""
    wheels = {
        "cudnn_install": ("cudnn", "cuDNN", cudnn_pin),
        "nvcc_install": ("cuda_nvcc", "CUDA compiler (ptxas, libdevice)", ""),
        "nccl_install": ("nccl", "NCCL", ""),
        "cupti_install": ("cuda_cupti", "CUPTI", ""),
    }
    return {
        key: nvidia_wheel_install(
            pip_command, wheel_dir, label, cuda, windows=windows, pin=pin, finds_wheels=finds_wheels
        )
        for key, (wheel_dir, label, pin) in wheels.items()
    }


def _built_cuda(facts: Facts | None) -> str | None:
    """The CUDA this machine's TF was built for, when the facts read it."""
    tf = facts.tensorflow if facts is not None and isinstance(facts.tensorflow, TensorFlowFacts) else None
    if tf is None or not isinstance(tf.build, TfBuildInfo) or not tf.build.is_cuda_build or not tf.build.cuda_version:
        return None
    return cuda_version_of(tf.build.cuda_version.rpartition("_")[2])  # a Windows build writes "64_112"


READING_NOTES = {
    Reading.AS_WRITTEN: "",
    Reading.BY_WORDS: " (Named from the line's words: it is not this message as TF prints it, so check the full log.)",
    Reading.BY_VERSIONS: (
        " (Told from the versions the log states: no line shows the failure itself, so check that TF lists no GPU.)"
    ),
    Reading.BY_RESEMBLANCE: (
        " (Named by resemblance: no line is a message TF prints, but public reports of this problem"
        " use these words; a guess to check against the full log.)"
    ),
}
"""Said of a problem by how it was told: nothing for a message matched as written, how sure it is otherwise."""


def _problem(hit: Hit, values: dict[str, str], severity: Severity, windows: bool) -> Problem:
    sig = hit.signature
    fields = {**values, **hit.groups}
    fix = render_template(sig.fix, fields)
    return Problem(
        id=sig.id,
        category=sig.category,
        title=render_template(sig.title, fields),
        severity=severity,
        benign=sig.benign,
        cause=render_template(sig.cause, fields) + READING_NOTES[hit.reading],
        fix=for_windows(fix) if windows else fix,
        sources=sig.sources,
        count=hit.count,
        lines=tuple(QuotedLine(n, t) for n, t in hit.quotes),
        reading=hit.reading,
    )


def explain_file(path: str, stdin: TextIO, facts: Callable[[], Facts | None]) -> Explanation:
    """``tfgpu explain FILE``'s one call: the log at ``path`` (``-``: ``stdin``) read within bounds and explained.

    ``facts`` say the exact fix commands for this machine.

    Raises:
        UsageError: the file cannot be read, is a directory, or is not a text log.
    """
    stream, ours = _open(path, stdin)
    reader = LogReader(stream)
    try:
        explanation = explain_lines(reader.lines(), facts())
    except NotALogError as exc:
        raise UsageError(f"{path}: {exc}") from None
    finally:
        if ours:
            stream.close()
    return replace(explanation, bytes_read=reader.bytes_read)


def explain_lines(lines: Iterable[str], facts: Facts | None = None) -> Explanation:
    """Scan every line and explain what was found."""
    scanner = LogScanner()
    for line in lines:
        scanner.feed(line)
    return explain_scanner(scanner, facts)


def _open(path: str, stdin: TextIO) -> tuple[BinaryIO, bool]:
    """The log's bytes, and whether the stream is ours to close (standard input is not)."""
    if path == "-":
        buffer = getattr(stdin, "buffer", None)
        return (buffer if buffer is not None else io.BytesIO(stdin.read().encode("utf-8", errors="replace"))), False
    try:
        return open(path, "rb"), True
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a log file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def no_nvidia_gpu(nvml: Callable[[], NvmlClient]) -> bool:
    """Whether NVML sees no NVIDIA GPU on this machine (a command's log written here was written without one)."""
    try:
        return nvml().device_count() == 0
    except NvmlUnavailable:
        return True


@dataclass(frozen=True)
class CommandExplanation:
    """``explain --run``: the explanation of a command's output and the command's exit status."""

    explanation: Explanation
    status: int

    @property
    def shell_status(self) -> int:
        """The command's exit status as a shell reports it (killed by signal N: 128+N)."""
        return self.status if 0 <= self.status < 256 else 128 + abs(self.status) % 128


def explain_command(
    argv: Sequence[str],
    echo: Callable[[str], object],
    facts: Callable[[], Facts | None],
    no_gpu: Callable[[], bool],
) -> CommandExplanation | None:
    """Run ``argv``, hand each output line to ``echo`` as it comes and to the matcher (nothing is kept).

    ``facts`` and ``no_gpu`` are asked once the command has ended, so its output starts at once.
    Returns None when the program is not found.
    """
    scanner = LogScanner()
    read = 0

    def tee(line: str) -> None:
        nonlocal read
        echo(line)
        scanner.feed(line)
        read += len(line)

    status = stream_command(tuple(argv), tee)
    if status is None:
        return None
    return CommandExplanation(explain_scanner(scanner, facts(), read, no_gpu=no_gpu()), status)


def explain_scanner(
    scanner: LogScanner, facts: Facts | None = None, bytes_read: int = 0, *, no_gpu: bool | None = None
) -> Explanation:
    """Explain what a scanner that was fed elsewhere (``tfgpu run``'s output pump) has seen.

    ``no_gpu`` says the log was written on this machine and it has no NVIDIA GPU (``tfgpu run``,
    ``explain --run``): TF's notices of a missing CUDA are then harmless, and the script's own
    error comes first.
    """
    set_aside = facts_set_aside(facts, scanner)
    if set_aside:
        facts = None
    context = context_of(facts)
    result = scanner.result(replace(context, no_gpu=no_gpu) if no_gpu is not None else context)
    windows = result.context.os == "windows"  # the log's run was on Windows: its fixes are typed in cmd or PowerShell
    asked = scanner.cudart_asked
    values = fix_values(facts, result.context.tf_version, asked.cuda if asked else None, windows=windows)
    problems = tuple(_problem(h, values, result.severity(h), windows) for h in result.hits if not h.signature.benign)
    harmless = tuple(_problem(h, values, result.severity(h), windows) for h in result.hits if h.signature.benign)
    return Explanation(
        problems,
        harmless,
        result.lines,
        bytes_read,
        result.long_lines,
        result.context.os,
        result.context.tf_version,
        set_aside,
    )


def facts_set_aside(facts: Facts | None, scanner: LogScanner) -> FactsSetAside | None:
    """Why this machine's facts do not describe the log's run, or None when nothing in the log says so.

    A log of TF 2.1 explained where TF 2.21 is installed (a colleague's log, one written before an
    upgrade or in another environment) was not written by this environment: its CUDA, cuDNN and GPU
    are the log's, and reading them against this machine's TF builds a mismatch neither had, and the
    fix would be this machine's commands for another machine's problem. The log shows it by the TF
    release it names, by another operating system's paths and libraries, or by the CUDA runtime its
    TF loads: a TF asks for the runtime of the CUDA it was built with (``libcudart.so.11.0`` is a TF
    2.4-2.10 build), which this machine's TF would not.
    """
    if facts is None:
        return None
    tf = facts.tensorflow if isinstance(facts.tensorflow, TensorFlowFacts) else None
    if tf and tf.version and scanner.tf_version and major_minor(tf.version) != major_minor(scanner.tf_version):
        return FactsSetAside(SetAsideReason.TENSORFLOW, f"TensorFlow {scanner.tf_version}", f"TensorFlow {tf.version}")
    asked = scanner.cudart_asked
    host_os = facts.host.os_name if isinstance(facts.host, HostFacts) else None
    log_windows = scanner.windows_seen or (asked is not None and asked.windows)
    if host_os and log_windows and host_os != "Windows":
        return FactsSetAside(SetAsideReason.OS, "native Windows (its paths or DLLs)", host_os)
    if host_os == "Windows" and asked is not None and not log_windows:
        return FactsSetAside(SetAsideReason.OS, f"Linux (TF loads {asked.name})", host_os)
    if asked is None or tf is None or not isinstance(tf.build, TfBuildInfo):
        return None
    log = f"a TensorFlow built for CUDA {asked.cuda} (it loads {asked.name})"
    if not tf.build.is_cuda_build:
        return FactsSetAside(SetAsideReason.CUDA_BUILD, log, f"TensorFlow {tf.version} without CUDA (a CPU build)")
    built = tf.build.cuda_version
    if built and other_cuda(asked.cuda, (built,)):
        return FactsSetAside(SetAsideReason.CUDA_BUILD, log, f"TensorFlow {tf.version}, built for CUDA {built}")
    return None
