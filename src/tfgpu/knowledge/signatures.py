"""The error-signature base (``data/signatures.toml``): what each known message means and how it is recognised.

Each signature carries the conditions on the machine (``ScanContext``) under which it is told.

Parsing also derives, per pattern, the literal keywords a line cannot match without, which the
scanner's prefilter looks for (``literals``).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from tfgpu.knowledge.archs import KernelSupport
from tfgpu.knowledge.log_facts import GpuKnown
from tfgpu.model.explanation import Reading
from tfgpu.model.findings import Severity

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_META = set(".^$*+?{}[]|()")


@dataclass(frozen=True)
class Signature:
    """One known log message: how to recognise it and what it means."""

    id: str
    category: str
    title: str
    severity: Severity
    benign: bool
    priority: int
    patterns: tuple[re.Pattern[str], ...]
    also: tuple[re.Pattern[str], ...]
    when_os: str | None
    tf_min: tuple[int, ...] | None
    cause: str
    fix: str
    sources: tuple[str, ...]
    examples: tuple[str, ...]
    only_alone: bool = False
    """A generic symptom ("TF sees no GPU"): reported only when no other problem explains it."""
    keywords: tuple[tuple[tuple[str, bool], ...], ...] = ()
    """Per pattern, (literal, case_insensitive) per branch: a line with none of them cannot match."""
    fallback: bool = False
    """The fallback tier: tried on a line no other signature matched, and reported only when no
    specific problem explains the log; its fields gain ``component`` and ``next_step``."""
    when_container: bool | None = None
    """Only inside (True) or outside (False) a container: the same missing libcuda is a driver
    to install on a host and a GPU runtime that was not asked for in a container."""
    when_gpu: frozenset[GpuKnown] | None = None
    """Only where the machine's GPU is known to be present, absent, or unknown (one of these): TF's
    GPU build says it found no CUDA at every start on a CPU machine, which is a problem only where a GPU is."""
    severity_unknown_gpu: Severity | None = None
    """The severity where nothing shows whether the machine has a GPU (neither the facts nor the log): the line
    is what TF's GPU build prints at every start on a CPU machine too, so it is told as a warning that says
    both readings, and as ``severity`` once a GPU is known to be there or wanted."""
    when_unknown_gpu_pasted: bool = False
    """Where the machine's GPU is unknown, only as a paste's subject (a log of at most SHORT_LOG_LINES lines):
    TF's GPU build looks for the CUDA runtime at every import, so on a CPU machine a longer log about
    something else carries the failed look-up ("Ignore above cudart dlerror if you do not have a GPU")."""
    when_unknown_gpu_subject: bool = False
    """Where the machine's GPU is unknown, not where the post's own words report a failure that names no part
    of the GPU stack: TF's no-CUDA notice is then beside the post's subject, not it."""
    when_gpu_held: bool | None = None
    """Only when the log shows (True) or does not show (False) a GPU whose memory other processes
    mostly held when TF started: the same out-of-memory is then someone else's, not the batch's."""
    when_gpu_shared: bool | None = None
    """Only when the log shows (True) two TensorFlow processes creating the same GPU at once (workers of one script,
    two runs): the first takes nearly all its memory, and the out-of-memory of the other is not its batch's."""
    when_limit_over_gpu: bool | None = None
    """Only when the log shows (True) TF's device configured larger than the GPU it is on (a memory_limit above the
    card's memory): TF's allocator then asks for the whole limit and backs off to what the card has."""
    when_gpu_created: bool | None = None
    """Only when TF is known to have created a GPU device (True), or is not (False): a poster's "GPU not used"
    where TF made one is a GPU left idle, not a GPU TF does not see."""
    when_driver_differs: bool | None = None
    """Only when the log shows (True) the driver library and the kernel module reporting different versions."""
    when_tensor_cores: bool | None = None
    """Only when the log's GPU is known to have (True) or to lack (False) Tensor Cores: mixed float16
    speeds up only a GPU that has them (compute capability 7.0+, less the GTX 16 series)."""
    when_other_cuda: bool = False
    """Only when the CUDA versions installed are known and none provides the version the
    pattern's ``want`` group names: a missing runtime of one version beside another is the wrong
    CUDA installed, not a library to put on the path."""
    when_other_cudnn: bool = False
    """Only when the cuDNN versions installed are known and none has the major the pattern's ``want``
    group names: TF asking for libcudnn.so.7 beside a cuDNN 8 is the wrong cuDNN, not a path to fix."""
    when_cudnn_not_for_cuda: bool = False
    """Only when the CUDA versions installed are known and NVIDIA built no cuDNN of the major the pattern's ``want``
    group names for any of them: TF asking for libcudnn.so.7 on a CUDA 11 machine wants an older CUDA with it."""
    when_tf_cuda_differs: bool = False
    """Only when the TF release (facts or log) and the CUDA installed are known and none of it provides
    the CUDA that release was built for (TensorFlow's tested build configurations)."""
    when_want_not_tf_cuda: bool = False
    """Only when the TF release (facts or log) is known and the CUDA it was built for does not provide the
    version the pattern's ``want`` group names: the library asking is built for another CUDA than this TF
    (an extension such as Horovod's, or another build of TF), whatever CUDA is installed."""
    when_want_not_tf_cudnn: bool = False
    """Only when the TF release (facts or log) is known and the pattern's ``want`` group names another minor of the cuDNN
    major its pip build was compiled with: the "source was compiled with" line is not that build's (JAX prints the
    same check from the same XLA code in the same process; a conda or source build of TF may be compiled otherwise)."""
    when_kernels: frozenset[KernelSupport] | None = None
    """Only when the TF release's build meets the GPU so (``ScanContext.kernels``): a CUDA 10 build on an Ampere GPU
    carries no machine code for it, which TF's line alone ("Blas GEMM launch failed") does not say."""
    when_built_cuda_below: tuple[int, ...] | None = None
    """Only when the CUDA the TF release was built for is older than this: CUDA 10's libraries (cuBLAS) carry no
    kernels for compute capability 8.0 and later, which CUDA 11's do."""
    when_cuda_predates_gpu: bool = False
    """Only when the log's GPU and the CUDA whose ptxas assembles its kernels are known and that CUDA is older than
    the first release that targets the GPU (the CUDA installed, else the one TF was built for): CUDA 11.0's ptxas
    has no sm_86, which ptxas's own "non-zero error code" does not say."""
    when_gpu_arch_known: bool | None = None
    """Only when the GPU's compute capability is known (True) or unknown (False) from the facts or the log: a cuBLAS
    kernel failing under a CUDA 10 build points at a GPU newer than that CUDA only while the GPU is unnamed; a named
    one is compared with the build instead (``when_build_predates_gpu``)."""
    when_build_predates_gpu: bool = False
    """Only when the log's GPU and TF release are known and the cuBLAS and cuDNN of the CUDA that release was built for
    hold no kernels the GPU runs (``build_predates_gpu``: that CUDA predates the GPU's architecture), which a crash or
    TF's "Blas GEMM launch failed" alone does not say."""
    when_cudnn_below_build: bool = False
    """Only when the TF release and the cuDNN installed are known and every cuDNN installed is older than the one
    that release was built with (``cudnn_below_build``): TF's "DNN library initialization failed" alone does not
    say why cuDNN would not start, the two versions do."""
    paste_patterns: tuple[re.Pattern[str], ...] = ()
    """Patterns of how people put the problem in their own words ("doesn't recognize GPUs"): read
    only in a short paste (a title, at most SHORT_LOG_LINES lines), never through a long log,
    where TF's own lines say more and such loose patterns would cost every block a search."""
    versions_alone: bool = False
    """Told from its when-conditions alone (``Reading.BY_VERSIONS``) where no line names any problem, the GPU is wanted
    or present and TF created no device of it: the versions the conditions compare establish the cause, and a post
    that states them ("TensorFlow version: 2.10", "CUDA/cuDNN version: 12.5/9.2.1") and asks how to use the GPU
    prints no symptom to match."""
    said_in_post: bool = False
    """The paste patterns are read on a longer log's head too, on the lines that are not TF's log
    records (SAID_LINES): a report's template and the words before what it pastes. Set where the
    when-conditions already show the cause from the machine's facts, so the words only confirm it, or on a
    generic symptom (``only_alone``, "TF sees no GPU") that is told only where nothing in the log names a cause."""


@dataclass(frozen=True)
class Component:
    """What a fallback line is about (cuDNN, XLA, GPU memory...) and the next step for it."""

    name: str
    pattern: re.Pattern[str]
    next_step: str


def branches(pattern: str) -> list[str]:
    """The top-level alternatives of a pattern (``a|b(c|d)`` → ``["a", "b(c|d)"]``)."""
    out, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    out.append(pattern[start:])
    return out


_QUANTIFIER = re.compile(r"\{(\d+)(?:,\d*)?\}")


def literal_runs(branch: str) -> list[str]:
    r"""Every literal run outside groups that a match of ``branch`` must contain, in order.

    Examples:
        >>> literal_runs(r"Could not load dynamic library\s*libcusolver\.so\.10")
        ['Could not load dynamic library', 'libcusolver.so.10']
        >>> literal_runs(r"(?:\w+\s+){0,2}use GPU[^x]{1,3}now")
        ['use GPU', 'now']
    """
    runs, run, depth, i, in_class = [], "", 0, 0, False
    while i < len(branch):
        ch = branch[i]
        if in_class:
            in_class = ch != "]" or branch[i - 1] == "\\"
            i += 1
            continue
        if ch == "\\" and i + 1 < len(branch):
            nxt = branch[i + 1]
            if depth == 0 and not nxt.isalnum():
                run += nxt
            else:
                runs.append(run)
                run = ""
            i += 2
            continue
        quantifier = _QUANTIFIER.match(branch, i) if ch == "{" else None
        if quantifier:  # {m,n}: its digits are no text of the message
            runs.append(
                run[:-1] if quantifier.group(1) == "0" else run
            )  # with m = 0 the previous character may be absent
            run = ""
            i = quantifier.end()
            continue
        if ch in "?*":
            runs.append(run[:-1])  # the previous character may be absent
            run = ""
        elif ch in _META:
            if ch == "[":
                in_class = True
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            runs.append(run)
            run = ""
        elif depth == 0:
            run += ch
        i += 1
    runs.append(run)
    return [r for r in runs if r]


def required_literal(branch: str) -> str:
    r"""The longest literal run outside every group that a match of ``branch`` must contain.

    Examples:
        >>> required_literal(r"Could not load dynamic library\s*(?P<l>cudart64_\d+)")
        'Could not load dynamic library'
        >>> required_literal(r"compute ?capability:?\s*\d")
        'capability'
    """
    return max(literal_runs(branch), key=len, default="")


def literals(pattern: str) -> list[str]:
    """One required literal per top-level alternative; an empty string means "cannot prefilter"."""
    return [required_literal(b) for b in branches(pattern)]


def compile_pattern(raw: str) -> tuple[re.Pattern[str], list[tuple[str, bool]]]:
    """A pattern compiled, with the keyword of each branch (lower-cased where the pattern ignores case) the prefilter looks for."""
    insensitive = raw.startswith("(?i)")
    body = raw[4:] if insensitive else raw
    keys = [(k.lower() if insensitive else k, insensitive) for k in literals(body)]
    return re.compile(raw), keys


def _keywords(entry: Mapping[str, Any]) -> list[list[tuple[str, bool]]] | None:
    """An entry's own ``keywords`` (any one must be in the line), for patterns whose literals sit in groups."""
    given = entry.get("keywords")
    if given is None:
        return None
    return [[(str(k), False) for k in given] for _ in entry["patterns"]]


def _gpu_states(given: str | list[str]) -> frozenset[GpuKnown]:
    """``when.gpu``: one state ("present") or several (["absent", "unknown"])."""
    return frozenset(GpuKnown(g) for g in ([given] if isinstance(given, str) else given))


def version_tuple(text: str | None) -> tuple[int, ...] | None:
    """Major and minor of a version as written ("2.10.1" → (2, 10), "12" → (12,)), compared as numbers; None for none."""
    if not text:
        return None
    return tuple(int(p) for p in re.findall(r"\d+", text)[:2])


@functools.cache
def _document() -> dict[str, Any]:
    """The packaged signatures.toml, read and parsed once for the signatures and the components."""
    raw = resources.files("tfgpu.knowledge").joinpath("data").joinpath("signatures.toml").read_bytes()
    doc: dict[str, Any] = tomllib.loads(raw.decode("utf-8"))
    return doc


@functools.cache
def said_no_gpu() -> re.Pattern[str]:
    """A poster's word that the machine has no GPU ("on a non-gpu node", "a laptop without a GPU", "I don't have a GPU").

    The base's ``said_no_gpu`` phrase: the scanner reads the GPU as absent by it, and ``no-gpu-said`` names it.
    """
    return re.compile(_document()["phrase"]["said_no_gpu"])


@functools.cache
def load_signatures() -> tuple[Signature, ...]:
    """Every signature of the packaged base, validated and compiled.

    Raises:
        ValueError: the data file is malformed (a packaging bug, caught by the tests).
    """
    return parse_signatures(_document())


def _phrase(pattern: str, phrases: Mapping[str, str]) -> str:
    """A paste pattern as written, or the shared ``[phrase]`` its ``@name`` names (several signatures read the same words).

    Raises:
        ValueError: the name is not a phrase of the document.
    """
    if not pattern.startswith("@"):
        return pattern
    if pattern[1:] not in phrases:
        raise ValueError(f"unknown phrase {pattern!r}")
    return phrases[pattern[1:]]


def parse_signatures(document: Mapping[str, Any]) -> tuple[Signature, ...]:
    """The signatures of a parsed signatures.toml (the packaged one, or an earlier commit's for a benchmark).

    Raises:
        ValueError: the document is malformed.
    """
    phrases = document.get("phrase", {})
    out = []
    for entry in document["signature"]:
        compiled = [compile_pattern(p) for p in entry.get("patterns", [])]
        keywords = _keywords(entry) or [keys for _, keys in compiled]
        when = entry.get("when", {})
        severity = entry.get("severity", "error")
        if severity not in ("error", "warning", "info"):
            raise ValueError(f"{entry['id']}: severity {severity!r}")
        severity = Severity(severity)
        unknown_gpu = entry.get("severity_unknown_gpu")
        if unknown_gpu not in (None, "warning", "info"):
            raise ValueError(f"{entry['id']}: severity_unknown_gpu {unknown_gpu!r}")
        out.append(
            Signature(
                id=entry["id"],
                category=entry["category"],
                title=entry["title"],
                severity=severity,
                benign=bool(entry.get("benign", False)),
                priority=int(entry.get("priority", 50)),
                patterns=tuple(p for p, _ in compiled),
                also=tuple(re.compile(p) for p in entry.get("also", [])),
                when_os=when.get("os"),
                tf_min=version_tuple(when.get("tf_min")),
                cause=entry["cause"],
                fix=entry["fix"],
                sources=tuple(entry.get("sources", [])),
                examples=tuple(entry.get("examples", [])),
                only_alone=bool(entry.get("only_alone", False)),
                keywords=tuple(tuple(keys) for keys in keywords),
                fallback=bool(entry.get("fallback", False)),
                when_container=when.get("container"),
                when_gpu=_gpu_states(when["gpu"]) if "gpu" in when else None,
                severity_unknown_gpu=Severity(unknown_gpu) if unknown_gpu else None,
                when_unknown_gpu_pasted=bool(when.get("unknown_gpu_pasted", False)),
                when_unknown_gpu_subject=bool(when.get("unknown_gpu_subject", False)),
                when_gpu_held=when.get("gpu_held"),
                when_gpu_shared=when.get("gpu_shared"),
                when_limit_over_gpu=when.get("limit_over_gpu"),
                when_gpu_created=when.get("gpu_created"),
                when_driver_differs=when.get("driver_differs"),
                when_tensor_cores=when.get("tensor_cores"),
                when_other_cuda=bool(when.get("other_cuda", False)),
                when_other_cudnn=bool(when.get("other_cudnn", False)),
                when_cudnn_not_for_cuda=bool(when.get("cudnn_not_for_cuda", False)),
                when_tf_cuda_differs=bool(when.get("tf_cuda_differs", False)),
                when_want_not_tf_cuda=bool(when.get("want_not_tf_cuda", False)),
                when_want_not_tf_cudnn=bool(when.get("want_not_tf_cudnn", False)),
                when_kernels=frozenset(KernelSupport(k) for k in when["kernels"]) if "kernels" in when else None,
                when_built_cuda_below=version_tuple(when.get("built_cuda_below")),
                when_cuda_predates_gpu=bool(when.get("cuda_predates_gpu", False)),
                when_gpu_arch_known=when.get("gpu_arch_known"),
                when_build_predates_gpu=bool(when.get("build_predates_gpu", False)),
                when_cudnn_below_build=bool(when.get("cudnn_below_build", False)),
                paste_patterns=tuple(re.compile(_phrase(p, phrases)) for p in entry.get("paste_patterns", [])),
                said_in_post=bool(entry.get("said_in_post", False)),
                versions_alone=bool(entry.get("versions_alone", False)),
            )
        )
    ids = [s.id for s in out]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate signature ids")
    return tuple(out)


@functools.cache
def load_components() -> tuple[Component, ...]:
    """The components a fallback line can name, in the order they are tried (the last matches anything)."""
    return tuple(Component(c["name"], re.compile(c["pattern"]), c["next_step"]) for c in _document()["component"])


def component_of(line: str) -> Component:
    """The first component whose pattern the line matches.

    Examples:
        >>> component_of("E cuda_dnn.cc:1] could not create cudnn handle").name
        'cuDNN'
    """
    components = load_components()
    return next((c for c in components if c.pattern.search(line)), components[-1])


@dataclass
class Hit:
    """What one signature matched in a log so far."""

    signature: Signature
    count: int = 0
    first_line: int = 0
    quotes: list[tuple[int, str]] = field(default_factory=list)
    groups: dict[str, str] = field(default_factory=dict)
    reading: Reading = field(default_factory=lambda: Reading.AS_WRITTEN)
    """How the problem was told from the log."""


@dataclass(frozen=True)
class ScanContext:
    """What is known about the machine the log came from (from the doctor's facts, or the log)."""

    os: str | None = None
    tf_version: str | None = None
    container: bool | None = None
    cuda_installed: tuple[str, ...] | None = None
    """CUDA versions installed on the machine ("10.2", "12"), when known."""
    cudnn_installed: tuple[str, ...] | None = None
    """cuDNN versions installed on the machine ("8.0", "9.3"), when known."""
    no_gpu: bool | None = None
    """True when the log comes from this machine and it has no NVIDIA GPU, False when it has one
    (``tfgpu run``, ``explain --run``); None for a log from elsewhere."""
    gpu: GpuKnown = GpuKnown.UNKNOWN
    """What the scanner concludes from ``no_gpu`` and the log's own lines (ScanResult's context)."""
    gpu_held: bool | None = None
    """Other processes held most of the GPU's memory when TF started: as the caller knows it, or
    (None) as the log's own device line shows it (less than half free; ScanResult's context)."""
    gpu_shared: bool | None = None
    """Two TF processes created the same GPU at once: as the caller knows it, or (None) as the log's device lines show
    it (ScanResult's context)."""
    limit_over_gpu: bool | None = None
    """TF's device was configured larger than the GPU's memory: as the caller knows it, or (None) as the log's device
    line and the GPU's name show it (ScanResult's context)."""
    gpu_created: bool | None = None
    """TF created a GPU device in the log's process: as the caller knows it, or (None) as the log's device and
    GPU allocator lines show it (ScanResult's context)."""
    driver_differs: bool | None = None
    """The driver library (libcuda) and the kernel module report different versions (read from the log)."""
    tensor_cores: bool | None = None
    """Whether the log's GPU has Tensor Cores: from a compute capability TF printed, or a GPU model the log names."""
    gpu_cc: tuple[int, int] | None = None
    """The GPU's compute capability: the facts' GPU, else as TF printed it or a GPU model the log's head names."""
    kernels: KernelSupport | None = None
    """How the TF release's published build runs on that GPU (tf_archs.csv): its own machine code, PTX the driver
    JIT-compiles, or nothing; None when the release or the GPU is unknown (ScanResult's context)."""


def render_template(template: str, values: Mapping[str, Any]) -> str:
    """Fill ``{name}`` fields; unknown names stay as they are."""

    class _Keep(dict[str, Any]):
        def __missing__(self, key: str) -> str:
            return "{" + key + "}"

    return template.format_map(_Keep(values))
