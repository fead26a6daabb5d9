"""The error-signature base (``data/signatures.toml``) and a streaming matcher over log lines.

Matching is built for logs of any size. Lines are matched a block at a time: the block is
first searched for the literal keywords the patterns cannot match without (one substring test
per keyword, in C, over ~1,000 lines at once; keywords that share a gate, a five-letter piece of
text, are looked for only when the block holds it), then each line only for the keywords its block
holds, and only a line that holds one is searched with the regexes. Most of a training log
(progress bars, notices) holds none, so a line costs a few string operations. Only counts and the
first quoted lines of each match are kept, so memory does not grow with the log.
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from importlib import resources
from types import MappingProxyType
from typing import Any

from tfgpu.knowledge.archs import KernelSupport, classify, parse_cc
from tfgpu.knowledge.compat import (
    TfRelease,
    cuda_majors_for_cudnn,
    driver_requirement,
    first_cuda_targeting,
    gpu_model,
    libtensorflow_of_tfjs,
    release_archs,
    tf_release,
)
from tfgpu.knowledge.resemblance import Resemblance, complains, features, load_resemblance
from tfgpu.knowledge.words import COMMON_LOG_WORDS, content_words, terms
from tfgpu.model.explanation import Reading
from tfgpu.model.findings import Severity

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_FOLD_DIGITS = str.maketrans("123456789", "000000000")


def _fold_digits(text: str) -> str:
    """``text`` with every digit read as 0: how ``compact`` reads a block, and so how a keyword looked for in it is written.

    Lines of a log that differ only in their numbers fold to one; a keyword folded so is in the
    folded text wherever it is in the text.
    """
    return text.translate(_FOLD_DIGITS)


def strip_ansi(text: str) -> str:
    r"""``text`` without ANSI CSI sequences (colour, cursor moves), as the matcher reads lines.

    Examples:
        >>> strip_ansi("\x1b[1m750/750\x1b[0m done")
        '750/750 done'
    """
    return _ANSI.sub("", text) if "\x1b" in text else text


_META = set(".^$*+?{}[]|()")
_WINDOWS_HINT = re.compile(r"\b[A-Za-z]:\\|\.dll\b")
_CONTAINER_HINT = re.compile(
    r"\broot@[0-9a-f]{12}:|/usr/local/nvidia/lib|/\.dockerenv|\bnvidia-docker\b|\bdocker run\b"
)
"""A shell prompt with a container id for a host name, nvidia-docker's library path, or docker itself."""
_SAID_CONTAINER = re.compile(r"(?i)\b(?:docker|container|podman|singularity)\b")
_SAID_WINDOWS = re.compile(r"(?i)\bwindows\b|\bwin ?1[01]\b")
"""Where a short paste (a title) says it ran: its words are the only context it gives."""
_SAID_WSL = re.compile(r"(?i)\bWSL ?2?\b")
"""A post's word that TF runs under WSL: Linux on a Windows machine, where "Windows 11" names the host, not the OS TF
runs on (TF's GPU builds for Linux serve it, native Windows' GPU limits do not apply)."""
_LOG_RECORD = re.compile(
    r"\s*(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d|[IWEF]\d{4} \d\d:\d\d:\d\d|[IWEF] (?:tensorflow|external|xla)/)"
)
"""The start of a TensorFlow (absl or glog) log record: a line that starts none is a continuation or program output."""
_QUOTE_MARKS = ("> ", "# ")
"""How a reply quotes a pasted log ("> ") and a script or README comments one out ("# ")."""
_QUOTE_HEADS = tuple(mark[0] for mark in _QUOTE_MARKS)
"""The first characters of ``_QUOTE_MARKS``: a line that starts with neither needs no further look."""
_INDENTS = (" ", "\t")
"""How a wrapped message's continuation starts when a paste or a terminal indents it ("but source was\n    compiled with")."""
_NOTICE_RECORD = re.compile(
    r"(?:^|[\s:.])[IW](?:\d{4} \d\d:\d\d:\d+\.\d+ +\d+ +| +(?:tensorflow|external|xla)/)\S*\.cc:\d+\]"
)
"""A record TensorFlow printed at INFO or WARNING level (glog's "I tensorflow/...cc:NN]", "W tensorflow/...cc:NN]" or
absl's "I0000 ... file.cc:NN]"), wherever a poster's paste puts it: TF's own word that the line reports or warns, not
that it failed. One that no signature knows (tf.data's auto-shard notice) is not evidence of a problem by its words."""
_CUDA_INSTALLED = re.compile(
    r"Cuda compilation tools, release (\d+\.\d+)|/cuda[-/](\d+\.\d+)(?:/|\b)|\bcudatoolkit\s*(?:==?|\s)\s*(\d+\.\d+)|"
    r"GPU Computing Toolkit[\\/]CUDA[\\/]v(\d+\.\d+)|"
    r"\b[Cc](?:UDA|uda) ?(\d+\.\d+|1[1-9](?!\.\d)) (?:is )?installed\b(?! (?:in the past|before|previously|earlier))|"
    r"\b[Ii]nstalled [Cc](?:UDA|uda)(?:[ -]?[Tt]oolkit)?[ -]?(\d+\.\d+|1[1-9](?![.\d]))\b|"
    r"\b(?:[Tt]ensor[Ff]low|TF|tf)(?:[ -]gpu)?(?:\s+version)?[:= -]*v?\d+\.\d+(?:\.\d+)?(?:\s*(?:with|and|\+|,|/)\s*|[ \t]{1,3})(?:the\s+)?[Cc](?:UDA|uda)(?:[ -]?[Tt]oolkit)?[ -]?v?(\d+\.\d+)\b|\bI (?:have|got) (?:only )?[Cc](?:UDA|uda)[ -]?(\d+\.\d+)\b|"
    r"\b(?:while|when|I'?m|I am) using [Cc](?:UDA|uda)(?:[ -]?version)?[ -]?v?(\d+\.\d+)\b|"
    r"\b(?:I'?m|I am) running\b[^\n]{0,60}?\b[Cc](?:UDA|uda)[ -]?v?(\d+\.\d+)\b|"
    r"\bln\s+-\w*s\w*\s+\S*?\blibcudart\.so\.(\d+(?:\.\d+)?)\s|"
    r"\bI (?:have|got) \W{0,2}lib(?:cudart|cublas)\.so\.(\d+(?:\.\d+)?)\W{0,2} installed\b|"
    r"\b(?:there is|there's|I (?:have|got|see|found))\b[^\n]{0,40}?\bcudart64_(\d+)\.dll\b(?![^\n]{0,12}\b(?:not|missing|is not)\b)|"
    r"装的\s*[Cc](?:UDA|uda)\s*(?:版本)?\s*(?:是|为)?\s*v?(\d+\.\d+)|"
    r"(?<![A-Za-z])[Cc](?:UDA|uda)\s*v?(\d+\.\d+)\s*(?:与|和|跟)\s*(?:tf|TF|[Tt]ensor[Ff]low)|"
    r"\bsh\s+\S*?cuda_(\d+\.\d+)\.\d+(?:_[\d.]+)?_linux\.run\b|"
    r"\b(?:re-?install|upgrade|update|downgrade)(?:e?d)?\s+(?:my\s+|the\s+)?[Cc](?:UDA|uda)(?:\s+(?:toolkit|version))?\s+to\s+(?:version\s+)?v?(\d+\.\d+)\b"
)
"""A CUDA toolkit the log shows installed: nvcc's banner, a versioned CUDA directory (on a
library path, in a traceback; a cluster's environment module: /apps/cuda/10.1/lib64, "module load cuda/10.1"), conda's cudatoolkit (listed or "cudatoolkit=10.0"), Windows' CUDA\\vX.Y,
a poster's "cuda 7.5 installed", "I installed cuda 9.1" (or "cuda toolkit 12.3", or from CUDA 11, whose sonames carry the major alone, "installed CUDA 11"), "I have only Cuda 9.0", "while using cuda-9.1", "I am using CUDA version 10.1" or "I'm running python 3.6, and cuda 10.1" (not one installed
"before"), a TF release named with one ("tensorflow 1.14 with cuda 10.1", "TF 2.4 and CUDA 10.1", or side by side: "Tensorflow 2.10 Cuda 12.1"), "reinstall cuda to 9.1" (or "updated my CUDA version to 10.1"), NVIDIA's runfile installer run ("sudo sh
cuda_11.1.0_455.23.05_linux.run"), the runtime a poster links under the name TF asks for ("ln -s .../libcudart.so.12
.../libcudart.so.11.0": the runtime on disk is CUDA 12's; cudart's soname carries its CUDA release), a runtime or cuBLAS
a poster has ("I have libcublas.so.9.2 installed") or finds on disk ("there is a file bin\\cudart64_12.dll"; a DLL's
digits read as ``cuda_version_of`` reads them), or in Chinese "安装的cuda是10.2" (the CUDA installed is 10.2) and "cuda10.1与tensorflow1.15不兼容" (cuda 10.1 and TF 1.15
do not fit: the CUDA a poster names beside the TF). nvidia-smi's "CUDA Version" is the driver's ceiling, not an install, and is not read."""
_CUDA_HINTS = (
    "cuda-1",
    "cuda/1",
    "ools, release",
    "cudatoolkit",
    "gpu computing toolkit",
    "nstall",
    "i have ",
    "i got ",
    "using cuda",
    "m running",
    "ln -",
    "cudart64_",
    "装的",
    "与t",
    "与 t",
    "和t",
    "和 t",
    "跟t",
    "grade",
    "pdate",
    "_linux.run",
    "with cuda",
    "and cuda",
    ", cuda",
    "0 cuda",
    "+ cuda",
    "+cuda",
)
"""Literals of _CUDA_INSTALLED's branches (CUDA 10 and later) in lower case, looked for in a block's lower-cased
text before the regex runs."""
_CUDA_HINT_KEYS = tuple(_fold_digits(hint) for hint in _CUDA_HINTS)
"""The hints as a ``compact`` text holds them."""
_CUDNN_INSTALLED = re.compile(
    r"(?i)CUDA\s*/\s*cuDNN(?:\s+versions?)?[:\s#]*(?:CUDA\s*)?[\d.]+\s*(?:/|,|;|\band\b)\s*(?:cuDNN\s*)?v?(\d+\.\d+)"
    r"|(?:install\w*\b[^\n]{0,80}?\b|装的[^\n]{0,40}?(?<![A-Za-z]))cudnn[ _-]?v?(\d{1,2}\.\d+)"
    r"|Loaded cuDNN version (\d)(\d)\d\d\b"
)
"""A cuDNN the log shows installed: the issue template's "CUDA/cuDNN version: 10.1/8.0.2" or
"CUDA/cuDNN version: CUDA 12.6; CUDNN 9.0", a poster's "I installed ... cudnn6.0" (in Chinese "装的是...cudnn-7.6.5", what was installed), TF's own "Loaded cuDNN version 8907" (8.9). A version merely named ("TF 2.3
needs cuDNN 7.6") is not read."""
_CUDA_LISTED = re.compile(
    r"(?im)^[\s*>#-]*CUDA(?P<pair>\s*/\s*cuDNN)?(?:[ _]versions?)?\s*[:=]?\s*(?:CUDA(?:[ _]versions?)?\s*[:=]?\s*)?"
    r"v?(?P<cuda>\d{1,2}\.0?\d)(?:\.\d+)*"
    r"(?P<cudnn>\s*(?:/|,|;|\band\b)\s*(?:cuDNN\s*)?v?[\d.]+)?\s*$"
)
"""A CUDA a report lists as its own, on a line of its own: "CUDA 10.0", "- CUDA version: 11.2", the issue template's
"CUDA/cuDNN version: 10.1/7.6", "10.2 and 7.6.5" or "CUDA 12.6; CUDNN 9.0" (a lone number there counts only if it is a CUDA release: "8.1" is a cuDNN),
the label said twice ("CUDA/cuDNN version: CUDA Version: 10.1") and a minor written with a zero ("10.02" is 10.2).
Read in a log's first block only; nvidia-smi's "CUDA Version" sits inside its
table and is the driver's ceiling, not an install."""
_GPU_EVIDENCE_KEYS = (
    "failed call to cuInit",
    "Successfully opened dynamic library nvcuda.dll",
    "CUDA_ERROR_",
    "Cannot dlopen some GPU libraries",
    "device:GPU:",
    "Found device ",
    "successful NUMA node read",
    "NVIDIA-SMI ",
    "Driver Version: ",
    "Num GPUs Available",
    "pciBusID:",
)
"""Text that only a machine with an NVIDIA driver (or a user who wanted its GPU) produces: TF's CUDA
driver calls and errors (cuda_driver.cc, cuda_diagnostics.cc), Windows' driver library (nvcuda.dll, which
only the NVIDIA display driver installs) loaded, its GPU devices (gpu_device.cc,
cuda_executor.cc), nvidia-smi's table pasted into the log, and the GPU count TensorFlow's install
guide prints. Without any of them, TF's "GPU will not be used" reads as a CPU run. Plain substrings,
looked for in each block of lines at once."""


_FAILURE_SAID = re.compile(r"(?i)\b(?:error|exception|traceback|fail(?:s|ed|ure)?|crash\w*)\b")
"""A failure in a poster's own words: an error, an exception, a crash."""
_GPU_SAID = re.compile(r"(?i)gpu|cuda|cudnn|nvidia|driver")
"""A word of the GPU stack: a failure said in a line that holds one may be the GPU's."""
_OTHER_GRAPHICS = re.compile(
    r"(?i)\bIntel\s*(?:\(R\)\s*)?(?:UHD|HD|Iris)\b|\bRadeon\b|\bApple\s+(?:Silicon|M[1-5])\b|\bM[1-5](?:\s+(?:Pro|Max|Ultra))?\s+Mac"
)
"""Graphics that are not NVIDIA's, named in a paste ("the GPU is Intel (R) UHD Graphics 620", "my M1 MacBook")."""
_NVIDIA_KEYS = ("NVIDIA", "nvidia", "Nvidia", "GeForce", "Quadro", "Tesla", "TITAN", "Titan", "RTX", "GTX", "pciBusID")
"""Text that names an NVIDIA GPU or TF's device line for one: with any of it, other graphics named beside are not the only GPU."""
_NOT_NVIDIA = re.compile(r"(?i)\bnon[- ]?nvidia\b")
"""A poster's "a non NVIDIA GPU": the word names what the machine lacks, not a GPU it has."""


_CUINIT_FAILED = r"failed call to cuInit: (?:INTERNAL: CUDA error: Failed call to cuInit: )?"
"""TF's cuInit failure line; from TF 2.16 XLA logs the status it got, which repeats the call before the CUDA error."""
_NO_LIBCUDA = re.compile(
    _CUINIT_FAILED + r"(?:UNKNOWN ERROR \((?:34|303)\)|CUDA_ERROR_(?:STUB_LIBRARY|SHARED_OBJECT_INIT_FAILED))"
)
"""cuInit refused for want of a driver library: the CUDA toolkit's stub libcuda answered (CUDA_ERROR_STUB_LIBRARY,
34), or none was loaded at all (TF's cuda_stub.cc answers every driver call with CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,
303, when libcuda.so.1 cannot be loaded). The call shows no driver, so no GPU. From TF 2.16 XLA logs the status it got
("failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)", TF 2.21 on a machine without a
driver, tests/fixtures/tf_logs/gpu-faults/gpu-build-no-gpu-ok.log)."""
_NO_DRIVER = re.compile(
    r"Could not load dynamic library\s*['‘’\"]?(?:libcuda\.so|nvcuda\.dll)|libcuda\.so(?:\.1)?: cannot open shared object"
    r"|Couldn't open CUDA library libcuda|failed to find libcuda\.so on this system|unable to find libcuda\.so DSO"
    r"|kernel driver does not appear to be running on this host|/proc/driver/nvidia/version does not exist"
    r"|" + _CUINIT_FAILED + r"(?:UNKNOWN ERROR \(303\)|CUDA_ERROR_SHARED_OBJECT_INIT_FAILED)"
)
"""What TF's GPU build prints where no NVIDIA driver is installed: the driver library (libcuda, nvcuda.dll) not
loadable, cuInit answered by TF's own stub for it, no kernel module (/proc/driver/nvidia). A CPU machine prints
it at every start."""
_NO_DRIVER_KEYS = ("libcuda", "nvcuda", "kernel driver", "nvidia/version", "cuInit")
_TF_SAYS_NO_GPU = re.compile(
    r"Could not find cuda drivers on your machine, GPU will not be used|if you do not have a GPU set up on your machine"
    r"|may run slowly because this machine does not have a GPU[^\n]*|If you will use compatible GPU\(s\) not attached[^\n]*"
)
"""TF's own sentences about a missing GPU, which a paste may carry without their log prefix: not the poster's words
(Keras 2's mixed-precision check prints two lines of its own without a prefix, set l's legacy-mixed-precision-cpu-ok)."""
_ASKS_ANYWHERE = re.compile(
    r"(?i)LD_LIBRARY_PATH[:=]\s*\S*(?:cuda|nvidia)|nvidia-smi|--gpus\b|--runtime[= ]?nvidia|nvidia-docker"
)
"""Setup that only someone using an NVIDIA GPU makes: CUDA or NVIDIA libraries on the library path, nvidia-smi,
docker's GPU flags."""
_ASKS_IN_OWN_WORDS = re.compile(
    r"(?im)^(?![ \t]*(?:\d{4}-\d\d-\d\d[ T]\d|[IWEF]\d{4} \d\d:|(?:[IWEF] )?(?:tensorflow|external|xla)/\S*\.cc:\d+\]))"
    r"[^\n]*?(?<![\w/.\\])(?:gpus?|cuda|cudnn|nvidia|geforce|quadro|tesla|rtx|gtx|titan|nvcc)(?![\w.]*\.(?:dll|so)\b)"
)
"""A GPU, CUDA or an NVIDIA model named on a line that is not a TF log record: the poster's words, a command
(tensorflow-gpu), their code (list_physical_devices('GPU')). A library's file name (libcuda, libcudnn, cudart64_110.dll)
or a path does not count, nor a TF record a paste cut its level and time from ("tensorflow/.../dso_loader.cc:55]
Could not load dynamic library 'cudart64_101.dll'"): TF's own lines print those."""


_DRIVER_REPORTED = re.compile(
    r"\b(?P<side>libcuda|kernel) reported version is:?\s*(?P<version>\d+\.\d+(?:\.\d+)?)"
    r"|NVRM version: NVIDIA UNIX \S+ (?P<module>Kernel Module)\s+(?P<module_version>\d+\.\d+(?:\.\d+)?)"
)
"""TF's cuda_diagnostics lines: the driver version libcuda reports, and the one the kernel module reports
(also read from /proc/driver/nvidia/version, whose contents TF prints before its own reading of them)."""


def _driver_release(version: str) -> tuple[int, ...]:
    """A driver version without its trailing zero ("384.111.0" is 384.111)."""
    parts = [int(p) for p in version.split(".")]
    while len(parts) > 2 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


_CAPABILITY = re.compile(
    r"(?i)compute ?capability:?\s*(?P<major>\d+)\.(?P<minor>\d)|\bmajor: (?P<m1>\d+) minor: (?P<m2>\d)\b"
)
"""TF's device lines: "compute capability: 6.1" (2.x), "computeCapability: 7.5" (2.1-2.5), "major: 6 minor: 1" (1.x)."""
_CAPABILITY_KEYS = ("apability", "major: ")
_GTX_16 = re.compile(r"(?i)\bGTX\s*16\d0\b")
"""The GTX 16 series: Turing (7.5) without Tensor Cores."""


def _capability(found: re.Match[str]) -> tuple[int, int]:
    if found["major"] is not None:
        return int(found["major"]), int(found["minor"])
    return int(found["m1"]), int(found["m2"])


def has_tensor_cores(cc: tuple[int, int], gtx_16: bool) -> bool:
    """Whether a GPU of compute capability ``cc`` has Tensor Cores (``gtx_16``: a GTX 16xx, Turing without them).

    Examples:
        >>> has_tensor_cores((6, 1), False), has_tensor_cores((7, 5), True), has_tensor_cores((8, 6), False)
        (False, False, True)
    """
    return cc >= (7, 0) and not gtx_16


class GpuKnown(str, Enum):
    """Whether the log's machine has an NVIDIA GPU, as the facts or the log itself say."""

    PRESENT = "present"
    """The facts say so (``tfgpu run`` or ``explain --run`` on a GPU machine), or the log shows a driver or a GPU."""
    ABSENT = "absent"
    """The facts say this machine has no NVIDIA GPU, or the log does: it names only another maker's graphics,
    or shows no NVIDIA driver (TF's GPU build could not load one) where nothing in it asks for a GPU."""
    WANTED = "wanted"
    """The log shows no GPU, but its writer wants one: they name a GPU, CUDA or an NVIDIA model in their own
    words, or set up for one (CUDA on the library path, nvidia-smi, docker's GPU flags)."""
    UNKNOWN = "unknown"
    """None of these: a log from elsewhere with no sign of a GPU."""


_DECLINES_GPU = re.compile(
    r"(?i)\b(?:disable|disabling|turn(?:ing)? off|switch(?:ing)? off|without(?: any)?|"
    r"(?:do not|don'?t|doesn'?t|does not) (?:want|need|use|have)(?: to use)?(?: any| an?)?)\s+(?:the\s+)?(?:gpus?|cuda)(?:\s+support)?\b"
)
"""A poster turning the GPU away ("I would like to disable cuda support", "runs without cuda", "I don't need the GPU"):
words that name CUDA without asking for it."""


def asks_for_gpu(text: str) -> bool:
    """Whether a paste's own words or setup ask for an NVIDIA GPU (TF's log records are not its words).

    Examples:
        >>> asks_for_gpu("tf 2.13, cuda 12.8 cudnn 9.7.1, v100. PyTorch works.")
        True
        >>> asks_for_gpu("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
        ...     "dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file")
        False
        >>> asks_for_gpu("I have this error using debian on the docker, I would like to disable cuda support")
        False
    """
    own = _DECLINES_GPU.sub(" ", _TF_SAYS_NO_GPU.sub("", text))
    return bool(_ASKS_ANYWHERE.search(text) or _ASKS_IN_OWN_WORDS.search(own))


_MEMORY_AT_START = re.compile(
    r"(?:totalMemory|Total memory):\s*(?P<total>[\d.]+)\s*(?P<total_unit>[KMGT]i?B)\s*"
    r"(?:freeMemory|Free memory):\s*(?P<free>[\d.]+)\s*(?P<free_unit>[KMGT]i?B)"
)
"""TF 1.x's device line (1.0-1.4 on two lines, "Total memory: 7.92GiB" / "Free memory: 190.31MiB";
1.5-1.15 on one, "totalMemory: 7.93GiB freeMemory: 7.40GiB"): the GPU's memory, and how much of it
no process held when TF started. A Jetson's GPU ("NVIDIA Tegra X2") shares the system's memory, so little of it free
there is RAM the system uses, not another process holding the GPU: its device line is not read so."""
_MEMORY_KEYS = ("otal memory:", "totalMemory:")
_DEVICE_RESERVED = re.compile(
    r"Created (?:TensorFlow )?device \(?(?:/job:\S*?)?/device:GPU:\d+ with (?P<mb>\d+) MB memory\)?[^\n]*?name: (?P<name>[^,\n]+)"
)
"""TF 2.x's device line: the memory TF took for its allocator (what was free when it started, unless a limit was
configured) and the GPU's name, which for data-center GPUs states the card's memory ("NVIDIA H100 80GB HBM3")."""
_DEVICE_MEMORY_SIZE = re.compile(r"deviceMemorySize: (?P<size>[\d.]+)(?P<unit>[KMGT])iB")
"""TF 2.1-2.10's "Found device 0 with properties" line: the GPU's whole memory."""
_DEVICE_CREATED_BY = re.compile(
    r"^[IWEF]\d{4} (?P<h>\d\d):(?P<m>\d\d):(?P<s>\d+(?:\.\d+)?)\s+(?P<thread>\d+) gpu_device\.cc:\d+\] "
    r"Created (?:TensorFlow )?device \S*?/device:GPU:(?P<gpu>\d+)(?:[^\n]*?pci bus id: (?P<bus>[\w:.]+))?",
    re.MULTILINE,
)
"""TF 2.x's absl log line for a GPU device it created, with the logging thread (a process's main thread: its pid) and
the time: hours, minutes and seconds, or, in the prefix absl writes before InitializeLog, seconds since the epoch
("I0000 00:00:1796586582.571046    1776 gpu_device.cc:2043] Created device .../device:GPU:0"), and the card's PCI
bus id: the processes of Horovod or a multi-worker job each call their own card GPU:0."""
CREATIONS_KEPT = 16
"""Device creations kept per card: enough for the processes of one host, and a bound on a log of many pasted runs."""
SHARED_WITHIN_SECONDS = 60.0
"""Two creations of one GPU by different threads this close together are two processes running at once, not two runs
pasted one after the other."""
_NAMED_MEMORY = re.compile(r"(?<![\d.])(?P<gb>\d{1,3}) ?GB\b")
_GPU_CREATED = re.compile(r"Created (?:TensorFlow )?device \(?(?:/job:\S*?)?/device:GPU:\d|gpu_bfc_allocator\.cc")
"""TF made a GPU device of its own: gpu_device.cc's "Created device .../device:GPU:0 with N MB memory" (TF 1.x:
"Created TensorFlow device (...)"), or the GPU allocator each such device gets logging its settings
(gpu_bfc_allocator.cc). A poster's "the GPU is not used" beside it is a GPU TF has, not one it lacks."""
_UNIT = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
BUSY_FREE_FRACTION = 0.5
"""Below this share of its memory free at TF's start, other processes held most of the GPU."""


def held_at_start(found: re.Match[str]) -> bool:
    r"""Whether a device line shows less than half of the GPU's memory free when TF started.

    Examples:
        >>> held_at_start(_MEMORY_AT_START.search("Total memory: 7.92GiB\nFree memory: 190.31MiB"))
        True
        >>> held_at_start(_MEMORY_AT_START.search("totalMemory: 7.93GiB freeMemory: 7.40GiB"))
        False
    """
    total = float(found["total"]) * _UNIT[found["total_unit"][0]]
    free = float(found["free"]) * _UNIT[found["free_unit"][0]]
    return total > 0 and free / total < BUSY_FREE_FRACTION


def reserved_at_start_held(reserved_mb: int, total_mb: float) -> bool:
    """Whether TF 2.x's device took less than half of the GPU's memory, as it does when others held the rest.

    TF gives its allocator the memory that was free when it created the device. A configured limit
    (``memory_limit``, a logical device) is read the same way, but users write round figures, MiB in
    thousands or multiples of 256: those are not read as another process's memory.

    Examples:
        >>> reserved_at_start_held(1047, 80 * 1024)  # an H100 80GB another TF process held (measured, 2026-12-06)
        True
        >>> reserved_at_start_held(78752, 80 * 1024), reserved_at_start_held(4096, 80 * 1024)
        (False, False)
    """
    configured = reserved_mb % 256 == 0 or reserved_mb % 1000 == 0
    return not configured and total_mb > 0 and reserved_mb / total_mb < BUSY_FREE_FRACTION


ONE_PROBLEM_WITH = MappingProxyType({"oom_host": "oom"})
"""Classes that are one problem with another when both are in a log: TF's "OOM when allocating ... device:CPU:0" is
host memory (oom_host) and the generic ResourceExhaustedError (oom) at once, told by its most specific signature."""
SHORT_LOG_LINES = 3
"""A log this short is a pasted title or a single line: its words are read where no message matched as written."""
SAID_LINES = 64
"""The head of a longer log, where a report's own words are read for the signatures that allow it (``said_in_post``)."""
NAMED_CHARS = 8192
"""Of those words, the most searched for a GPU model's name (each of gpu_cc.csv's rows is looked for)."""
MAX_WORD_READ_LINES = 8
"""Error lines only the fallback tier knew, kept for reading by words."""


@functools.lru_cache(maxsize=4)
def _word_bags(signatures: tuple[Signature, ...]) -> tuple[tuple[frozenset[str], int], ...]:
    """Per signature that can be told from words alone, the content words of each literal its patterns require.

    A signature qualifies when it names a specific problem (not a harmless line, a generic symptom
    or the fallback), asks nothing of the machine or of other lines, and prints no field that only
    its own match fills; a branch needs three content words or more beside the words every TF log
    holds, so that a bag names one message and not a common phrase.
    """
    bags = []
    for index, sig in enumerate(signatures):
        if not _readable_by_words(sig):
            continue
        for pattern in sig.patterns:
            for branch in _branches(pattern.pattern.removeprefix("(?i)")):
                words = content_words(" ".join(_literal_runs(branch))) - COMMON_LOG_WORDS
                if len(words) >= 3:
                    bags.append((words, index))
    return tuple(bags)


@functools.lru_cache(maxsize=4)
def term_index(signatures: tuple[Signature, ...]) -> Mapping[str, int]:
    """The terms that belong to one problem alone, each to the signature (of the bags' kind) it names.

    A term any other category's message or example line holds (a harmless line's too) names
    nothing: "compute capability" is in three problems' messages, "OP_REQUIRES" in the lines of
    many, "illegal instruction" in one problem's alone. Nor does a term the category's generic
    symptom prints (an only-alone message): "Autotuner could not find any supported configs" is
    the generic reading of XLA's autotuner, and its words must not name the one specific cause
    (TF32 turned off) that extends that message.
    """
    owners: dict[str, set[str]] = {}
    generic: set[str] = set()
    named: dict[str, int] = {}
    for index, sig in enumerate(signatures):
        for example in sig.examples:
            for term in terms(example):
                owners.setdefault(term, set()).add(sig.category)
        for pattern in sig.patterns:
            for branch in _branches(pattern.pattern.removeprefix("(?i)")):
                for term in terms(" ".join(_literal_runs(branch))):
                    owners.setdefault(term, set()).add(sig.category)
                    if _readable_by_words(sig):
                        named.setdefault(term, index)
                    elif sig.only_alone and not sig.benign:
                        generic.add(term)
    return MappingProxyType(
        {term: index for term, index in named.items() if len(owners[term]) == 1 and term not in generic}
    )


@functools.cache
def _features_of(sig: Signature) -> frozenset[str]:
    """What a signature's examples and required literals are compared by (as a paste is, by resemblance)."""
    literal = " ".join(
        run for p in sig.patterns for b in _branches(p.pattern.removeprefix("(?i)")) for run in _literal_runs(b)
    )
    return features(" ".join((*sig.examples, literal)))


def _readable_by_words(sig: Signature) -> bool:
    return not (sig.benign or sig.fallback or sig.only_alone) and _unconditional(sig) and not _prints_its_groups(sig)


def _unconditional(sig: Signature) -> bool:
    return not (
        sig.also
        or sig.when_os
        or sig.tf_min
        or sig.when_container is not None
        or sig.when_gpu is not None
        or sig.when_unknown_gpu_pasted
        or sig.when_unknown_gpu_subject
        or sig.when_gpu_held is not None
        or sig.when_gpu_shared is not None
        or sig.when_limit_over_gpu is not None
        or sig.when_gpu_created is not None
        or sig.when_driver_differs is not None
        or sig.when_tensor_cores is not None
        or sig.when_other_cuda
        or sig.when_want_not_tf_cuda
        or sig.when_want_not_tf_cudnn
    )


def _prints_its_groups(sig: Signature) -> bool:
    names = {name for pattern in sig.patterns for name in pattern.groupindex}
    return any("{" + name + "}" in text for name in names for text in (sig.title, sig.cause, sig.fix))


_TF_CUDART = re.compile(
    r"(?:dynamic library '?|ImportError: |Could not find ')(?P<name>libcudart\.so\.(?P<so>\d+(?:\.\d+)?)|cudart64_(?P<dll>\d+)\.dll)"
)
"""The CUDA runtime TensorFlow itself loads or asks for, by the soname of the CUDA it was built with: its loader's
"Successfully opened dynamic library libcudart.so.10.1" or "Could not load dynamic library 'cudart64_110.dll'", TF 1.x's
link-time "ImportError: libcudart.so.9.0: ..." and its Windows check "Could not find 'cudart64_90.dll'". A user's own
``ls`` of a CUDA directory names runtimes too, but not after these words."""
_TF_VERSION = re.compile(
    r"(?i)(?:tensor ?flow(?:[ -]gpu)?(?: version)?(?: \([^)\n]{0,40}\))?[:=\s]+(?:tf ?)?|\btf version[:=\s]+|tf\.__version__\W+|"
    r"tensorflow[-=](?:gpu-)?|\btf(?:[ -]gpu)? ?(?=v?\d+\.\d))"
    r"v?(\d+\.\d+)(?:\.\d+)?"
)
"""The TF release a log names: "tensorflow-gpu==1.15", "TensorFlow version: 2.3" (the older issue template's
"TensorFlow version (use command below): 2.1.0" too, and "TF version 2.1") or the newer template's "tf 2.16.1" after it, tf.__version__ printed,
and the abbreviation posters write ("TF 2.4 not using GPU", "tf-gpu 1.15")."""
_TF_VERSION_FIELD = re.compile(
    r"(?im)^[#* \t-]*tensor ?flow version[ \t:]*\n(?:[ \t]*\n){0,2}[ \t]*(?:tf[ -]?)?v?(\d+\.\d+)(?:\.\d+)?\b"
)
"""The TF release GitHub's issue form gives under its own heading: "### TensorFlow version", a blank line, "2.10".
Read in the block where a line names no release (the form's value has no word of its own to find it by)."""
_TFJS_NODE = re.compile(r"""tfjs-node(?:-gpu)?["']?(?:@|:\s*|\s+(?:v(?:ersion)?\s*:?\s*)?)["'^~]*v?(\d+\.\d+\.\d+)""")
"""The tfjs-node(-gpu) release a log names: "tfjs-node-gpu 2.0.1", "@tensorflow/tfjs-node-gpu@1.4.0", package.json's
"@tensorflow/tfjs-node-gpu": "^3.2.0". One run of blanks at most between the name and the release: a hostile line of blanks stays linear."""
_TFJS = re.compile(r"(?i)TensorFlow\.js\s+version[:=]?\s*v?(\d+\.\d+\.\d+)|@tensorflow/tfjs@(\d+\.\d+\.\d+)")
"""The TensorFlow.js release a log names (its issue template's "TensorFlow.js version: 4.22.0"): tfjs-node's own since
the two were released together (1.2.8, the monorepo), read as tfjs-node's only where a log names tfjs-node."""
MAX_QUOTES = 3
MAX_LINE_CHARS = 4096
_TF_VERSION_WORDS = ("ersion", "low=", "low-", "low ", "TF", "tf ", "tf-")
"""Words a line naming TF's release holds (version, tensorflow==, tensorflow-gpu, TF 2.x, tf 1.15): _TF_VERSION is tried
only on a block that holds one."""
BLOCK_LINES = 1024
"""Lines matched together: the keyword search over a block costs about what one line's did."""


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


def _branches(pattern: str) -> list[str]:
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


def _literal_runs(branch: str) -> list[str]:
    r"""Every literal run outside groups that a match of ``branch`` must contain, in order.

    Examples:
        >>> _literal_runs(r"Could not load dynamic library\s*libcusolver\.so\.10")
        ['Could not load dynamic library', 'libcusolver.so.10']
        >>> _literal_runs(r"(?:\w+\s+){0,2}use GPU[^x]{1,3}now")
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
    return max(_literal_runs(branch), key=len, default="")


def literals(pattern: str) -> list[str]:
    """One required literal per top-level alternative; an empty string means "cannot prefilter"."""
    return [required_literal(b) for b in _branches(pattern)]


def _compile(raw: str) -> tuple[re.Pattern[str], list[tuple[str, bool]]]:
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


def _version(text: str | None) -> tuple[int, ...] | None:
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
        compiled = [_compile(p) for p in entry.get("patterns", [])]
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
                tf_min=_version(when.get("tf_min")),
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
                when_built_cuda_below=_version(when.get("built_cuda_below")),
                when_cuda_predates_gpu=bool(when.get("cuda_predates_gpu", False)),
                when_build_predates_gpu=bool(when.get("build_predates_gpu", False)),
                when_cudnn_below_build=bool(when.get("cudnn_below_build", False)),
                paste_patterns=tuple(re.compile(_phrase(p, phrases)) for p in entry.get("paste_patterns", [])),
                said_in_post=bool(entry.get("said_in_post", False)),
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
class CudartAsked:
    """The CUDA runtime a log's TensorFlow loads or asks for: it names the CUDA that TF was built with."""

    name: str
    """As TF names it: ``libcudart.so.11.0`` on Linux, ``cudart64_110.dll`` on Windows."""
    cuda: str
    """The CUDA release the name stands for (``cuda_version_of``): "11.0", "10.1", "12"."""

    @property
    def windows(self) -> bool:
        """Whether the name is a Windows DLL: the log's TF ran on native Windows."""
        return self.name.endswith(".dll")


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


@dataclass(frozen=True)
class ScanResult:
    """The matches of a whole log, most important first."""

    hits: tuple[Hit, ...]
    lines: int
    long_lines: int
    context: ScanContext

    def severity(self, hit: Hit) -> Severity:
        """How grave ``hit`` is told in this log (its ``severity_unknown_gpu`` where nothing shows a GPU)."""
        unknown_gpu = hit.signature.severity_unknown_gpu
        return unknown_gpu if unknown_gpu and self.context.gpu is GpuKnown.UNKNOWN else hit.signature.severity


_Keyed = tuple[tuple[str, list[tuple[int, re.Pattern[str]]]], ...]
_Folded = tuple[tuple[str, _Keyed], ...]
"""A keyword with its digits folded, and the keywords (with what each stands for) that fold to it."""


def compact(text: str) -> str:
    """``text`` with every digit read as 0 and each of its lines once: all a keyword search of it needs.

    A keyword folded the same way (``_fold_digits``) is in the compact text wherever the keyword is in the text
    (keywords hold no line break). A training log's lines mostly differ from one another only
    in their numbers (steps, losses, times, addresses), so a block's search reads a small part
    of it.
    """
    return "\n".join(dict.fromkeys(_fold_digits(text).split("\n")))


GATE_CHARS = 5
"""The length of a gate: long enough to be rarer than the keywords' common words, short enough for several to share."""
MIN_GATED = 3
"""A gate stands for at least this many keywords (one saved scan for two does not pay for the gate's own)."""


def _grams(key: str) -> set[str]:
    """Every substring of ``key`` GATE_CHARS long."""
    return {key[i : i + GATE_CHARS] for i in range(len(key) - GATE_CHARS + 1)}


def _gates(keyed: _Folded) -> tuple[_Folded, tuple[tuple[str, _Folded], ...]]:
    """Keywords split into those looked for alone and groups behind a gate: a substring every keyword of the group holds.

    A text without the gate holds none of its group, so one scan stands for several. Gates are
    chosen greedily, the one most keywords share first (ties: the first in order, so the choice
    does not depend on hashing), and hold no blank: " not " is in every kind of text.
    """
    left = dict(keyed)
    grams = {key: {g for g in _grams(key) if not any(c.isspace() for c in g)} for key in left}
    shared = Counter(gram for key in left for gram in grams[key])  # counted once, then lowered as keys leave
    gates: list[tuple[str, _Folded]] = []
    while shared:
        gate, count = min(shared.items(), key=lambda item: (-item[1], item[0]))
        if count < MIN_GATED:
            break
        members = sorted(k for k in left if gate in grams[k])
        for key in members:
            shared.subtract(grams[key])
        shared = +shared  # only grams some key left still holds
        gates.append((gate, tuple((key, left.pop(key)) for key in members)))
    return tuple(left.items()), tuple(gates)


@dataclass(frozen=True)
class _KeySet:
    """Keywords to look for in a ``compact`` text: most behind a shared gate or a shorter keyword, looked for only where that is."""

    alone: _Folded
    """Keywords that hold no shorter keyword of the set and share no gate."""
    gated: tuple[tuple[str, _Folded], ...]
    """A gate, and the keywords (holding no shorter keyword) that all hold it."""
    guarded: tuple[tuple[str, _Folded], ...]
    """A keyword, and the longer keywords that hold it: a text without it holds none of them."""

    @classmethod
    def of(cls, keyed: _Keyed) -> _KeySet:
        by_fold: dict[str, list[tuple[str, list[tuple[int, re.Pattern[str]]]]]] = {}
        for key, entries in keyed:
            by_fold.setdefault(_fold_digits(key), []).append((key, entries))
        folded = tuple((key, tuple(entries)) for key, entries in by_fold.items())
        free = tuple(group for group in folded if not any(other != group[0] and other in group[0] for other in by_fold))
        guards: dict[str, list[tuple[str, _Keyed]]] = {}
        for group in folded:
            inside = [key for key, _ in free if key != group[0] and key in group[0]]
            if inside:
                guards.setdefault(max(inside, key=len), []).append(group)
        alone, gated = _gates(free)
        return cls(alone, gated, tuple((guard, tuple(entries)) for guard, entries in guards.items()))

    def held_in(self, text: str) -> _Keyed:
        """The keywords a ``compact`` text holds: one C-level ``str.__contains__`` per gate and lone keyword, no Python frame per keyword."""
        held = _holding(self.alone, text)
        for gate, entries in self.gated:
            if gate in text:
                held += _holding(entries, text)
        if held and self.guarded:
            present = {key for key, _ in held}
            for guard, entries in self.guarded:
                if guard in present:
                    held += _holding(entries, text)
        return tuple(entry for _, entries in held for entry in entries)


@dataclass(frozen=True)
class _Keywords:
    """Literal keyword -> the (signature index, pattern) that cannot match a line without it."""

    sensitive: _KeySet
    insensitive: _KeySet
    """Keywords in lower case, looked for in the lower-cased text."""
    fallback: _KeySet

    def held_in(self, text: str, low: str) -> _Held:
        """Only the keywords a ``compact`` text holds (``low`` is it lower-cased): a line of it holds no other.

        The hot loop of a long log.
        """
        return _Held(self.sensitive.held_in(text), self.insensitive.held_in(low), self.fallback.held_in(text))


@dataclass(frozen=True)
class _Held:
    """The keywords a block (or a joined record) holds, by kind."""

    sensitive: _Keyed
    insensitive: _Keyed
    fallback: _Keyed


def _holding(keyed: _Folded, text: str) -> _Folded:
    return tuple(itertools.compress(keyed, map(text.__contains__, (key for key, _ in keyed))))


_PROGRESS = re.compile(
    r"^\s{0,16}\d{1,9}/\d{1,9}\s|━|(?<!\d)\d{1,3}%\|| ETA[: ]|(?<![\d.])\d{1,6}(?:\.\d{1,3})?(?:it|s)/(?:s|it)\b"
)
"""A progress redraw (Keras's "12/750 ━━━", tqdm's "40%|", "ETA"): not a line to read unless it is the last."""


_by_signature = operator.itemgetter(0)
"""Candidates in the base's order, so the first signature of a line is the same whatever keyword found it."""


_Also = tuple[tuple[int, re.Pattern[str], tuple[tuple[str, bool], ...]], ...]


@functools.lru_cache(maxsize=8)
def _keyword_index(
    signatures: tuple[Signature, ...],
) -> tuple[_Keywords, tuple[tuple[int, re.Pattern[str]], ...], _Also]:
    """The keyword search of a signature base: built once per base, since every scanner of it searches the same way.

    Keyword -> the (signature index, pattern) that cannot match a line without it; the patterns no
    keyword gates; and the ``also`` patterns with their literals. ``tfgpu run`` and explain build
    one scanner per run, the benchmarks one per log.
    """
    sensitive: dict[str, list[tuple[int, re.Pattern[str]]]] = {}
    insensitive: dict[str, list[tuple[int, re.Pattern[str]]]] = {}
    fallback: dict[str, list[tuple[int, re.Pattern[str]]]] = {}
    unfiltered: list[tuple[int, re.Pattern[str]]] = []
    for index, sig in enumerate(signatures):
        for pattern, keys in zip(sig.patterns, _pattern_keywords(sig), strict=True):
            for key, ci in keys:
                if sig.fallback:
                    fallback.setdefault(key, []).append((index, pattern))
                elif not key:
                    unfiltered.append((index, pattern))
                else:
                    (insensitive if ci else sensitive).setdefault(key, []).append((index, pattern))
    keywords = _Keywords(
        _KeySet.of(tuple(sensitive.items())),
        _KeySet.of(tuple(insensitive.items())),
        _KeySet.of(tuple(fallback.items())),
    )
    also = tuple(
        (id(p), p, tuple((_fold_digits(key), ci) for key, ci in _compile(p.pattern)[1]))
        for p in {id(p): p for s in signatures for p in s.also}.values()
    )
    return keywords, tuple(unfiltered), also


class LogScanner:
    """Feed lines one at a time; ask for the result at the end."""

    def __init__(self, signatures: Iterable[Signature] | None = None, resemblance: Resemblance | None = None) -> None:
        """``signatures`` default to the packaged base, and with them ``resemblance`` to the packaged model.

        A caller with its own signatures (an earlier commit's, a benchmark's fold) brings its own
        model, or none: the model was learnt beside the packaged base.
        """
        self.signatures = tuple(signatures if signatures is not None else load_signatures())
        self.resemblance = resemblance if resemblance is not None or signatures is not None else load_resemblance()
        self._hits: dict[str, Hit] = {}
        self._also_seen: set[int] = set()
        self.lines = 0
        self.long_lines = 0
        self._windows_seen = False  # a Windows path or DLL in the log: TF runs natively there
        self.windows_said = False  # a short paste's words name Windows
        self.wsl_said = False  # the post's words name WSL: the Windows they name is the host
        self.container_seen = False
        self.gpu_seen = False
        self.no_driver_seen = False
        self.gpu_wanted = False
        self.gpu_held_seen = False
        self.device_reserved: tuple[int, int | None] | None = None  # TF 2.x: MiB its device took, the GPU's by name
        self.device_memory_mb: float | None = None  # the GPU's memory, as TF 2.1-2.10's device properties state it
        self.gpu_created_seen = False
        self.gpu_creators: dict[str, list[tuple[float, str]]] = {}  # GPU bus id (or index) -> (seconds, thread) each
        self.driver_reported: dict[str, str] = {}  # "libcuda"/"kernel" -> the version TF's diagnostics read
        self.tensor_cores_seen: bool | None = None
        self.capability_seen: tuple[int, int] | None = None
        self.cuda_seen: dict[str, None] = {}  # toolkits the log shows installed, in order
        self.cudnn_seen: dict[str, None] = {}  # cuDNN versions the log shows installed, in order
        self._tf_version: str | None = None
        self._cudart_asked: CudartAsked | None = None  # the CUDA runtime TF's own lines first load or ask for
        self.tfjs_node_version: str | None = None
        self.tfjs_version: str | None = None
        self.tfjs_node_seen = False
        self._keywords, self._unfiltered, self._also = _keyword_index(self.signatures)
        self._pending: list[tuple[int, str]] = []
        self._paste = tuple(sig for sig in self.signatures if sig.paste_patterns)
        self._said = tuple(sig for sig in self._paste if sig.said_in_post)
        self._said_from_versions = tuple(sig for sig in self._said if told_fields(sig))
        self._first_lines: list[tuple[int, str]] = []
        self._said_lines: list[tuple[int, str]] = []
        self._fallback_lines: list[tuple[int, str]] = []
        self._quoted: str | None = None

    @property
    def tf_version(self) -> str | None:
        """The TensorFlow release the log's lines first name, read from every line fed so far."""
        self._match_pending()
        return self._tf_version

    @property
    def cudart_asked(self) -> CudartAsked | None:
        """The CUDA runtime TF's own lines first load or ask for, read from every line fed so far."""
        self._match_pending()
        return self._cudart_asked

    @property
    def windows_seen(self) -> bool:
        """Whether a Windows path or DLL is in a line fed so far: TF ran natively on Windows."""
        self._match_pending()
        return self._windows_seen

    def feed(self, raw: str) -> None:
        r"""One line of the log, with or without its newline (matched with its block, at the latest by ``result``).

        A line with ``\r`` in it is several lines to a reader: a log written with CR alone, or an
        error that a short progress redraw covered only in part. Each part is read, except the
        progress redraws before the last part (3,000 Keras updates on one line are one update).
        TF 1.14 and 2.0 wrote "Could not dlopen library 'X'" where other releases write "Could not
        load dynamic library 'X'"; the older wording is read as the newer, one message in two words.
        """
        self.lines += 1
        line = raw.rstrip("\r\n")
        if self._quoted is not None or line[:1] in _QUOTE_HEADS:  # most lines: one test
            line = self._unquote(line)
        if "\r" not in line:
            self._feed_part(line)
            return
        *before, last = line.split("\r")
        for part in before:
            if part.strip() and not _PROGRESS.search(part):
                self._feed_part(part)
        self._feed_part(last)

    def _unquote(self, line: str) -> str:
        """The line without the quote or comment mark a post put before a run of TensorFlow's records.

        A reply quotes a log with "> " and a script or README comments it out with "# "; a run of
        such lines that opens with a TF record is read as the records it quotes, so a message broken
        across two of them is still joined ("# ...Could not load dynamic" / "# library 'libcudart...'").
        """
        mark = line[:2]
        if mark not in _QUOTE_MARKS:
            self._quoted = None
        elif mark == self._quoted or _starts_record(line[2:]):
            self._quoted = mark
            return line[2:]
        else:
            self._quoted = None
        return line

    def _feed_part(self, line: str) -> None:
        if len(line) > MAX_LINE_CHARS:
            self.long_lines += 1
            line = line[:MAX_LINE_CHARS]
        if "\x1b" in line:
            line = strip_ansi(line)
        if "not dlopen lib" in line:
            line = line.replace("Could not dlopen library", "Could not load dynamic library")
        if self.lines <= SAID_LINES and line.strip():
            if self.lines <= SHORT_LOG_LINES:
                self._first_lines.append((self.lines, line))
                self.container_seen = self.container_seen or bool(_SAID_CONTAINER.search(line))
                self.windows_said = self.windows_said or bool(_SAID_WINDOWS.search(line))
            if not _starts_record(line):
                self._said_lines.append((self.lines, line))
                self.wsl_said = self.wsl_said or bool(_SAID_WSL.search(line))
        self._pending.append((self.lines, line))
        if len(self._pending) >= BLOCK_LINES:
            self._match_pending()

    def _read_hints(self, block: str) -> None:
        """What the block's lines say of the run: Windows, a container, the TF release, the CUDA runtime asked for, tfjs.

        Each is looked for in the block's text first and in its lines only where the block holds
        its words: most blocks are progress lines that hold none, and one search of the block is
        cheaper than one per line. The first line that names a release or a runtime wins.
        """
        lines = [line for _, line in self._pending]
        if not self._windows_seen and ("\\" in block or ".dll" in block):
            self._windows_seen = _first(_WINDOWS_HINT, lines, ("\\", ".dll")) is not None
        if not self.container_seen and ("root@" in block or "docker" in block or "nvidia/lib" in block):
            self.container_seen = _first(_CONTAINER_HINT, lines, ("root@", "docker", "nvidia/lib")) is not None
        if self._tf_version is None and any(word in block for word in _TF_VERSION_WORDS):
            version = _first(_TF_VERSION, lines, _TF_VERSION_WORDS) or _TF_VERSION_FIELD.search(block)
            self._tf_version = version.group(1) if version else None
        if self._cudart_asked is None and "cudart" in block:
            asked = _first(_TF_CUDART, lines, ("cudart",))
            if asked:
                self._cudart_asked = CudartAsked(
                    asked.group("name"), cuda_version_of(asked.group("so") or asked.group("dll"))
                )
        if "tfjs" in block or "TensorFlow.js" in block:
            for line in lines:
                if "tfjs" in line or "TensorFlow.js" in line:
                    self._read_tfjs(line)

    def _read_tfjs(self, line: str) -> None:
        """The tfjs-node release a line names, and the TensorFlow.js one (the first of each)."""
        self.tfjs_node_seen = self.tfjs_node_seen or "tfjs-node" in line
        if self.tfjs_node_version is None:
            node = _TFJS_NODE.search(line)
            self.tfjs_node_version = node.group(1) if node else None
        if self.tfjs_version is None:
            umbrella = _TFJS.search(line)
            self.tfjs_version = (umbrella.group(1) or umbrella.group(2)) if umbrella else None

    def _gpu_shared(self) -> bool:
        """Whether two processes' TF created the same GPU within SHARED_WITHIN_SECONDS of each other."""
        return any(
            first_thread != thread and abs(first - seconds) <= SHARED_WITHIN_SECONDS
            for created in self.gpu_creators.values()
            for index, (first, first_thread) in enumerate(created)
            for seconds, thread in created[index + 1 :]
        )

    def _reserved_of_total(self) -> tuple[int, float] | None:
        """TF 2.x's device line: the MiB its allocator was given, and the GPU's (by its properties, else its name)."""
        if self.device_reserved is None:
            return None
        reserved, named = self.device_reserved
        total = self.device_memory_mb or named
        return None if total is None else (reserved, total)

    def _limit_over_gpu(self) -> bool:
        """Whether TF 2.x's device line gives its allocator more memory than the GPU has (a memory_limit above the card)."""
        read = self._reserved_of_total()
        return read is not None and read[0] > read[1]

    def _reserved_held(self) -> bool:
        """Whether TF 2.x's device line shows it took less than half of the GPU, as when other processes held it."""
        read = self._reserved_of_total()
        return read is not None and reserved_at_start_held(*read)

    def _libtensorflow(self) -> str | None:
        """The TensorFlow release under the tfjs-node the log names: tfjs-node-gpu runs TF's C library of that release."""
        version = self.tfjs_node_version or (self.tfjs_version if self.tfjs_node_seen else None)
        return libtensorflow_of_tfjs(version) if version else None

    def _match_pending(self) -> None:
        """Match the lines fed since the last block against the keywords the block holds."""
        if not self._pending:
            return
        block = "\n".join(line for _, line in self._pending)
        self._read_hints(block)
        brief = compact(block)
        brief_low = brief.lower()
        self._read_machine(block, brief_low, first=self._pending[0][0] == 1)
        held = self._keywords.held_in(brief, brief_low)
        also = [
            (key, pattern)
            for key, pattern, literals in self._also
            if key not in self._also_seen and any(k in (brief_low if ci else brief) for k, ci in literals)
        ]
        record: tuple[int, str] | None = None  # the last line that matched no specific signature and may go on
        wrapped = False  # whether that line goes on in any next line (a TF record, a label ending in ':') or only in an indented one
        refine: tuple[int, str, list[int]] | None = None  # the last TF record a signature matched, cut mid-sentence
        for number, line in self._pending:
            starts = _starts_record(line)
            goes_on = not starts and (wrapped or line[:1] in _INDENTS)
            if record is not None and goes_on and self._match_joined(record, line):
                record = None
                continue
            if (
                refine is not None
                and goes_on
                and _tail(line)
                and not self._matching(line, held)
                and self._refine_joined(refine, line)
            ):
                self._see_also(line, also)
                refine = None
                continue
            matched = self._match_line(number, line, held, also)
            record = None if matched or (not starts and line[:1] in _INDENTS) else (number, line)
            refine = (number, line, matched) if matched and starts and _cut(line) else None
            wrapped = starts or line.rstrip().endswith(":")
        self._pending = []

    def _only_other_graphics(self) -> bool:
        """A post whose only graphics named are another maker's (an Intel UHD, an AMD Radeon): no NVIDIA GPU is here.

        A short paste is read whole; a longer post in its writer's lines (the head's, not TF's records),
        and only where TF created no GPU device: a report's "GPU model: AMD Radeon RX 580" above
        TF's lines for a CUDA build that found nothing.
        """
        if self.lines <= SHORT_LOG_LINES:
            said = self._first_lines
        elif self.gpu_created_seen:
            return False
        else:
            said = self._said_lines
        pasted = [_NOT_NVIDIA.sub("", line) for _, line in said]
        return any(_OTHER_GRAPHICS.search(line) for line in pasted) and not any(
            key in line for line in pasted for key in _NVIDIA_KEYS
        )

    def _read_machine(self, block: str, brief_low: str, first: bool) -> None:
        """What a block of lines says about the machine (searched per block, not per line; ``brief_low`` is its ``compact`` text lower-cased).

        A GPU shown, its memory held by others at start, the driver versions TF's diagnostics read,
        the compute capability TF printed (Tensor Cores), CUDA installed; and, in the ``first`` block
        only, what TF's setup and a poster's words say (``_read_start``).
        """
        if "reported version is" in block or "NVRM version" in block:
            for found in _DRIVER_REPORTED.finditer(block):
                side, version = (
                    ("kernel", found["module_version"]) if found["module"] else (found["side"], found["version"])
                )
                self.driver_reported.setdefault(side, version)
        if not self.gpu_seen:
            # A kernel module's version read by TF's diagnostics: the driver is loaded, so an NVIDIA GPU is here,
            # whatever libcuda did (a toolkit's stub libcuda first on the path answers cuInit with 34 on such a
            # machine too: set e's stub-libcuda run on the H100, tests/fixtures/tf_logs/gpu-faults).
            shown = _NO_LIBCUDA.sub("", block) if "cuInit" in block else block
            self.gpu_seen = any(k in shown for k in _GPU_EVIDENCE_KEYS) or "kernel" in self.driver_reported
        if first:
            self._read_start(block, block.lower())
        if not self.gpu_created_seen and ("GPU" in block or "gpu_bfc" in block):
            self.gpu_created_seen = bool(_GPU_CREATED.search(block))
        if not self.gpu_held_seen and any(k in block for k in _MEMORY_KEYS) and "Tegra" not in block:
            self.gpu_held_seen = any(held_at_start(found) for found in _MEMORY_AT_START.finditer(block))
        if "gpu_device.cc" in block and "Created" in block:
            for found in _DEVICE_CREATED_BY.finditer(block):
                seconds = int(found["h"]) * 3600 + int(found["m"]) * 60 + float(found["s"])
                created = self.gpu_creators.setdefault(found["bus"] or found["gpu"], [])
                if len(created) < CREATIONS_KEPT:
                    created.append((seconds, found["thread"]))
        if self.device_reserved is None and "MB memory" in block:
            reserved = _DEVICE_RESERVED.search(block)
            if reserved:
                named = _NAMED_MEMORY.search(reserved["name"])
                self.device_reserved = (int(reserved["mb"]), int(named["gb"]) * 1024 if named else None)
        if self.device_memory_mb is None and "deviceMemorySize" in block:
            size = _DEVICE_MEMORY_SIZE.search(block)
            if size:
                self.device_memory_mb = float(size["size"]) * _UNIT[size["unit"]] / 2**20
        if self.tensor_cores_seen is None and any(k in block for k in _CAPABILITY_KEYS):
            capability = _CAPABILITY.search(block)
            if capability:
                self.capability_seen = _capability(capability)
                self.tensor_cores_seen = has_tensor_cores(self.capability_seen, _GTX_16.search(block) is not None)
        if any(k in brief_low for k in _CUDA_HINT_KEYS):
            for found in _CUDA_INSTALLED.finditer(block):
                self.cuda_seen.setdefault(cuda_version_of(next(v for v in found.groups() if v)), None)

    def _read_start(self, block: str, low: str) -> None:
        """What the first block of a log says: TF finding no driver, the CUDA and cuDNN listed, a writer asking for a GPU.

        TF looks for the driver and loads cuDNN as it sets up, and a poster's words come before what
        they paste; a long log's later blocks are training, so these searches cost nothing there.
        """
        if any(k in block for k in _NO_DRIVER_KEYS):
            self.no_driver_seen = _NO_DRIVER.search(block) is not None
        if "cuda" in low:
            for found in _CUDA_LISTED.finditer(block):
                if found["pair"] and not found["cudnn"] and driver_requirement(found["cuda"]) is None:
                    continue  # "CUDA/cuDNN version: 8.1" with one number: a cuDNN, no CUDA release is 8.1
                major, minor = found["cuda"].split(".")
                self.cuda_seen.setdefault(f"{major}.{int(minor)}", None)
        if "cudnn" in low:
            for found in _CUDNN_INSTALLED.finditer(block):
                template, said, major, minor = found.groups()
                self.cudnn_seen.setdefault(template or said or f"{major}.{minor}", None)
        self.gpu_wanted = not self.gpu_seen and asks_for_gpu(block)

    def _match_joined(self, record: tuple[int, str], line: str) -> bool:
        """A message a post or a terminal broke in two: the line joined with its continuation.

        Tried only after a line that matched no specific signature, and only for the line right
        after it when that line starts no record of its own and either follows a TensorFlow log
        record or a label ending in ':' (a path broken before "undefined symbol:"), or is indented
        (a wrapped message's tail): the common line costs nothing more. Joined both ways (``_joinings``); a
        fallback the record's first half met alone gives way to what the whole record says.
        """
        number, first = record
        for joined in _joinings(first, line):
            if self._match_line(number, joined, self._held_by(joined), [], fallback=False):
                self._forget_fallback(number)
                return True
        return False

    def _refine_joined(self, refine: tuple[int, str, list[int]], line: str) -> bool:
        """A TF record a signature matched, whose wrapped tail makes a more specific message of it.

        TF's allocator says "… ran out of memory trying to allocate 2.17GiB with freed_by_count=0. The caller
        indicates that this is not a failure": cut before its last sentence, the head alone reads as an
        out-of-memory. Tried only on the line right after such a record that starts no record of its own and
        matches nothing alone (a tail, not a message of its own). When the joined record matches a signature the
        head did not, it takes the head's place (what the head matched, it matches too), and the ranking of the
        hits decides between them.
        """
        number, first, matched = refine
        head = {self.signatures[index].id for index in matched}
        for joined in _joinings(first, line):
            found = self._matching(joined, self._held_by(joined))
            if any(self.signatures[index].id not in head for index, _ in found):
                for key in head:
                    self._unrecord(key, number, first)
                for index, match in found:
                    self._record(self.signatures[index], match, joined, number)
                return True
        return False

    def _held_by(self, line: str) -> _Held:
        """The keywords one joined line holds (a block's are read once for all its lines)."""
        brief = compact(line)
        return self._keywords.held_in(brief, brief.lower())

    def _unrecord(self, key: str, number: int, line: str) -> None:
        """Take back what one line added to a hit: its count and its quote (the hit goes where the line made it)."""
        hit = self._hits[key]
        hit.count -= 1
        if hit.quotes and hit.quotes[-1] == (number, line.strip()):
            hit.quotes.pop()
        if hit.count <= 0:
            del self._hits[key]

    def _forget_fallback(self, number: int) -> None:
        for key, hit in list(self._hits.items()):
            if hit.signature.fallback and hit.first_line == number:
                if hit.count <= 1:
                    del self._hits[key]
                else:
                    hit.count -= 1

    def _match_line(
        self,
        number: int,
        line: str,
        held: _Held,
        also: list[tuple[int, re.Pattern[str]]],
        fallback: bool = True,
    ) -> list[int]:
        """Record what the line matches: the specific signatures that matched it, by index (a fallback alone counts none)."""
        self._see_also(line, also)
        found = self._matching(line, held)
        for index, match in found:
            self._record(self.signatures[index], match, line, number)
        if not found and fallback and held.fallback:
            self._match_fallback(number, line, held)
        return [index for index, _ in found]

    def _see_also(self, line: str, also: list[tuple[int, re.Pattern[str]]]) -> None:
        for also_id, also_pattern in also:
            if also_id not in self._also_seen and also_pattern.search(line):
                self._also_seen.add(also_id)

    def _matching(self, line: str, held: _Held) -> list[tuple[int, re.Match[str]]]:
        """The specific signatures the line matches (by index, each once, in base order) and their matches."""
        found = [entry for key, entries in held.sensitive if key in line for entry in entries]
        if held.insensitive:
            low = line.lower()
            found.extend(entry for key, entries in held.insensitive if key in low for entry in entries)
        matches: list[tuple[int, re.Match[str]]] = []
        if found or self._unfiltered:
            matched: set[int] = set()
            for index, pattern in sorted((*self._unfiltered, *found), key=_by_signature):
                if index in matched:
                    continue
                match = pattern.search(line)
                if match:
                    matched.add(index)
                    matches.append((index, match))
        return matches

    def _match_fallback(self, number: int, line: str, held: _Held) -> None:
        """The most specific fallback that matches a line nothing else explained (one at most)."""
        found = [entry for key, entries in held.fallback if key in line for entry in entries]
        for index, pattern in sorted(found, key=lambda c: -self.signatures[c[0]].priority):
            match = pattern.search(line)
            if match:
                self._record(self.signatures[index], match, line, number)
                if len(self._fallback_lines) < MAX_WORD_READ_LINES:
                    self._fallback_lines.append((number, line))
                return

    def _record(self, signature: Signature, match: re.Match[str], line: str, number: int) -> None:
        hit = self._hits.get(signature.id)
        if hit is None:
            hit = self._hits[signature.id] = Hit(signature, first_line=number)
        hit.count += 1
        for name, value in match.groupdict().items():
            if value is not None:
                hit.groups.setdefault(name, value.strip())
        if signature.fallback and "component" not in hit.groups:
            component = component_of(line)
            hit.groups.update(component=component.name, next_step=component.next_step)
        if len(hit.quotes) < MAX_QUOTES:
            hit.quotes.append((number, line.strip()))

    def result(self, context: ScanContext | None = None) -> ScanResult:
        """Hits whose conditions hold, ranked: problems before harmless lines, then priority, then position."""
        self._match_pending()
        ctx = context or ScanContext()
        effective = ScanContext(
            os=ctx.os or ("windows" if self._windows_seen or (self.windows_said and not self.wsl_said) else None),
            tf_version=ctx.tf_version or self._libtensorflow() or self._tf_version,
            container=ctx.container if ctx.container is not None else (True if self.container_seen else None),
            cuda_installed=ctx.cuda_installed or (tuple(self.cuda_seen) if self.cuda_seen else None),
            cudnn_installed=ctx.cudnn_installed or (tuple(self.cudnn_seen) if self.cudnn_seen else None),
            no_gpu=ctx.no_gpu,
            gpu=self._gpu_known(ctx.no_gpu),
            gpu_held=ctx.gpu_held if ctx.gpu_held is not None else (self.gpu_held_seen or self._reserved_held()),
            gpu_created=ctx.gpu_created if ctx.gpu_created is not None else self.gpu_created_seen,
            gpu_shared=ctx.gpu_shared if ctx.gpu_shared is not None else self._gpu_shared(),
            limit_over_gpu=ctx.limit_over_gpu if ctx.limit_over_gpu is not None else self._limit_over_gpu(),
            driver_differs=ctx.driver_differs if ctx.driver_differs is not None else self._driver_differs(),
            tensor_cores=ctx.tensor_cores if ctx.tensor_cores is not None else self._tensor_cores(),
        )
        gpu_cc = ctx.gpu_cc or self.capability_seen or (self._named_cc() if effective.tf_version else None)
        effective = replace(effective, gpu_cc=gpu_cc)
        effective = replace(effective, kernels=_release_kernels(effective))
        problems = [
            h
            for h in self._hits.values()
            if not (h.signature.benign or h.signature.fallback) and self._applies(h, effective)
        ]
        if self.lines <= SHORT_LOG_LINES:
            self._match_paste(effective, self._first_lines, self._paste)
        elif not problems:
            self._match_paste(
                effective, self._said_lines, self._said
            )  # the words confirm a cause; TF's own lines come first
        elif all(h.signature.only_alone for h in problems):
            self._match_paste(effective, self._said_lines, self._said_from_versions)  # a symptom the versions explain
        kept = [h for h in self._hits.values() if self._applies(h, effective)]
        specific = any(not (h.signature.benign or h.signature.only_alone or h.signature.fallback) for h in kept)
        if not specific:
            harmless = {n for h in kept if h.signature.benign for n, _ in h.quotes}
            named = any(not h.signature.benign for h in kept)  # a symptom as written, or a line no signature names
            by_words = self._read_words(harmless) or ([] if named else self._resemble(harmless, effective))
            by_words = [h for h in by_words if self._applies(h, effective)]
            kept.extend(by_words)
            specific = bool(by_words)
        kept = [
            h
            for h in kept
            if h.reading is Reading.BY_RESEMBLANCE
            or not ((h.signature.only_alone or h.signature.fallback) and specific)
        ]
        explained = {n for h in kept if not h.signature.benign for n, _ in h.quotes}
        kept = [h for h in kept if not (h.signature.benign and all(n in explained for n, _ in h.quotes))]
        kept.sort(key=lambda h: (h.signature.benign, -h.signature.priority, h.first_line))
        # One problem per category: "OOM when allocating" and "ResourceExhaustedError" on the
        # same line are one out-of-memory problem, told by its most specific signature.
        distinct: dict[str, Hit] = {}
        for hit in kept:
            distinct.setdefault(ONE_PROBLEM_WITH.get(hit.signature.category, hit.signature.category), hit)
        for hit in distinct.values():
            _tell_versions(hit, effective)
        return ScanResult(tuple(distinct.values()), self.lines, self.long_lines, effective)

    def _match_paste(self, ctx: ScanContext, lines: list[tuple[int, str]], signatures: tuple[Signature, ...]) -> None:
        """A short paste, or a longer log's own words (``said_in_post``), against the signatures' paste patterns.

        A line a problem's message matched as written is not read again, unless that message's
        conditions do not hold here (TF's out-of-memory with other processes' memory at start, on a
        paste that shows none); a line only a harmless message matched is (the poster's "TensorRT"
        makes TensorRT's missing library a problem). A record TF printed at INFO or WARNING level is TF's
        word, not the poster's: its "to avoid OOM" is no complaint of an out-of-memory.
        """
        matched = {
            n
            for h in self._hits.values()
            if not (h.signature.fallback or h.signature.benign) and self._applies(h, ctx)
            for n, _ in h.quotes
        }
        for number, line in lines:
            if number in matched or _NOTICE_RECORD.search(line):
                continue
            for sig in signatures:
                found = next((m for p in sig.paste_patterns if (m := p.search(line))), None)
                if found:
                    self._record(sig, found, line, number)

    def _read_words(self, harmless: set[int]) -> list[Hit]:
        """Signatures whose message words a kept line holds all of, else whose own terms it holds.

        Read only where no message matched as written: the lines of a log of at most
        SHORT_LOG_LINES lines, and error lines only the fallback tier knew; a line a harmless
        signature explained is not read again. Per line, all of a message's words win over its
        terms (an identifier such as CUDNN_STATUS_NOT_INITIALIZED, or a pair of words such as
        "illegal instruction" that no other problem's message holds); then the most terms, then
        the highest priority.
        """
        lines = (self._first_lines if self.lines <= SHORT_LOG_LINES else []) + self._fallback_lines
        found: dict[str, Hit] = {}
        if not lines:
            return []
        bags, index = _word_bags(self.signatures), term_index(self.signatures)  # built once per base, when first read
        for number, line in dict(lines).items():
            if number in harmless:
                continue
            words = content_words(line)
            matches = [self.signatures[i] for bag, i in bags if bag <= words]
            if not matches:
                named = [index[t] for t in terms(line) if t in index]
                most = max((named.count(i) for i in named), default=0)
                matches = [self.signatures[i] for i in set(named) if named.count(i) == most]
            if matches:
                sig = max(matches, key=lambda s: s.priority)
                hit = found.setdefault(sig.id, Hit(sig, first_line=number, reading=Reading.BY_WORDS))
                hit.count += 1
                if len(hit.quotes) < MAX_QUOTES:
                    hit.quotes.append((number, line.strip()))
        return list(found.values())

    def _gpu_known(self, no_gpu: bool | None) -> GpuKnown:
        """The machine's GPU as the facts (``no_gpu``) say, else as the log shows it or its writer asks for one.

        A writer's word that the machine has none (another maker's graphics named alone, "a non-GPU
        node") comes before TF's driver lines: a machine without a GPU prints those failing too.
        """
        if no_gpu is not None:
            return GpuKnown.ABSENT if no_gpu else GpuKnown.PRESENT
        if self._only_other_graphics() or any(said_no_gpu().search(line) for _, line in self._said_lines):
            return GpuKnown.ABSENT
        if self.gpu_seen:
            return GpuKnown.PRESENT
        if self.gpu_wanted:
            return GpuKnown.WANTED
        return GpuKnown.ABSENT if self.no_driver_seen else GpuKnown.UNKNOWN

    def _other_failure_said(self) -> bool:
        """Whether the post's own words report a failure in a line that names no part of the GPU stack.

        "Error while training PPO agent" above TF's "Could not find cuda drivers on your machine" is a
        failure of its own, and the notice beside it a CPU run's, where nothing shows a GPU.
        """
        return any(_FAILURE_SAID.search(t) and not _GPU_SAID.search(t) for _, t in self._said_lines)

    def _named_cc(self) -> tuple[int, int] | None:
        """The compute capability of the GPU model the log's own words name in its head (the first NAMED_CHARS)."""
        text = " ".join(line for _, line in self._said_lines)[:NAMED_CHARS]
        model = gpu_model(text) if any(k in text for k in _NVIDIA_KEYS) else None
        return parse_cc(model.compute_capability) if model else None

    def _driver_differs(self) -> bool | None:
        """Whether the versions TF's diagnostics read for libcuda and the kernel module differ (None: not both read)."""
        libcuda, kernel = self.driver_reported.get("libcuda"), self.driver_reported.get("kernel")
        if libcuda is None or kernel is None:
            return None
        return _driver_release(libcuda) != _driver_release(kernel)

    def _tensor_cores(self) -> bool | None:
        """Tensor Cores as TF's device lines show them, else as the GPU model a short paste names has them."""
        if self.tensor_cores_seen is not None or self.lines > SHORT_LOG_LINES:
            return self.tensor_cores_seen
        text = " ".join(line for _, line in self._first_lines)
        model = gpu_model(text) if text else None
        if model is None:
            return None
        return has_tensor_cores(parse_cc(model.compute_capability), _GTX_16.search(model.name) is not None)

    def _resemble(self, harmless: set[int], ctx: ScanContext) -> list[Hit]:
        """The problem that a short paste, or a longer report's own words, resembles most in public reports.

        A longer log is read by the lines of its poster's words (its head, not TF's log records) that
        complain. Either is read only where no harmless line TF printed is there for them to complain of:
        "I get this error" above a CPU machine's "failed call to cuInit", or a title "TensRT issue" above
        TF-TRT's warning, is about that line. Asked only where
        nothing else named a problem: not a generic symptom as written, not the
        fallback tier (a line TF printed that no signature knows is reported as such, with its
        component's next step); a line TF printed at INFO or WARNING level is not read. The problem is told by the signature of its category that applies here
        (the machine's GPU, OS, container as known) and prints no
        field of its own match (the paste filled none: a field left reads "?"), then shares the most
        features with the paste, then is the generic one (``only_alone``).
        """
        if self.resemblance is None:
            return []
        long_log = self.lines > SHORT_LOG_LINES
        if harmless:
            return []  # a post about a line a harmless signature explains complains of that line
        lines = [
            (n, t)
            for n, t in (self._said_lines if long_log else self._first_lines)
            if not _NOTICE_RECORD.search(t) and (not long_log or complains(t))
        ]
        text = "\n".join(t for _, t in lines)
        if not lines or not complains(text):
            return []
        likeness = self.resemblance.nearest(text)
        if likeness is None:
            return []
        candidates = [
            s
            for s in self.signatures
            if s.category == likeness.category and not (s.benign or s.fallback) and self._applies(Hit(s), ctx)
        ]
        if not candidates:
            return []
        said = features(text)

        def fit(sig: Signature) -> tuple[bool, int, bool, int]:
            return (not _prints_its_groups(sig), len(said & _features_of(sig)), sig.only_alone, sig.priority)

        sig = max(candidates, key=fit)
        unknown = {name: "?" for pattern in sig.patterns for name in pattern.groupindex}
        hit = Hit(sig, count=1, first_line=lines[0][0], groups=unknown, reading=Reading.BY_RESEMBLANCE)
        hit.quotes.extend((n, t.strip()) for n, t in lines[:MAX_QUOTES])
        return [hit]

    def _applies(self, hit: Hit, ctx: ScanContext) -> bool:
        signature = hit.signature
        if signature.when_other_cuda and not other_cuda(hit.groups.get("want", ""), ctx.cuda_installed):
            return False
        if signature.when_other_cudnn and not other_major(hit.groups.get("want", ""), ctx.cudnn_installed):
            return False
        if signature.when_cudnn_not_for_cuda and not cudnn_not_for_cuda(hit.groups.get("want", ""), ctx.cuda_installed):
            return False
        if signature.when_tf_cuda_differs and not other_cuda(built_cuda(ctx) or "", ctx.cuda_installed):
            return False
        if signature.when_want_not_tf_cuda and not _want_not_built(hit.groups.get("want", ""), ctx):
            return False
        if signature.when_want_not_tf_cudnn and not _cudnn_want_not_built(hit.groups.get("want", ""), ctx):
            return False
        if any(id(p) not in self._also_seen for p in signature.also):
            return False
        if signature.when_os and ctx.os != signature.when_os:
            return False
        if signature.when_container is not None and bool(ctx.container) != signature.when_container:
            return False
        if signature.when_gpu is not None and ctx.gpu not in signature.when_gpu:
            return False
        if signature.when_unknown_gpu_pasted and ctx.gpu is GpuKnown.UNKNOWN and self.lines > SHORT_LOG_LINES:
            return False
        if signature.when_unknown_gpu_subject and ctx.gpu is GpuKnown.UNKNOWN and self._other_failure_said():
            return False
        if signature.when_gpu_held is not None and bool(ctx.gpu_held) != signature.when_gpu_held:
            return False
        if signature.when_gpu_shared is not None and bool(ctx.gpu_shared) != signature.when_gpu_shared:
            return False
        if signature.when_limit_over_gpu is not None and bool(ctx.limit_over_gpu) != signature.when_limit_over_gpu:
            return False
        if signature.when_gpu_created is not None and bool(ctx.gpu_created) != signature.when_gpu_created:
            return False
        if signature.when_driver_differs is not None and bool(ctx.driver_differs) != signature.when_driver_differs:
            return False
        if signature.when_tensor_cores is not None and ctx.tensor_cores is not signature.when_tensor_cores:
            return False
        if signature.when_kernels is not None and ctx.kernels not in signature.when_kernels:
            return False
        if signature.when_built_cuda_below:
            built = _version(built_cuda(ctx))
            if built is None or built >= signature.when_built_cuda_below:
                return False
        if signature.when_cuda_predates_gpu and not _cuda_predates_gpu(ctx):
            return False
        if signature.when_build_predates_gpu and not build_predates_gpu(ctx):
            return False
        if signature.when_cudnn_below_build and not cudnn_below_build(ctx):
            return False
        if signature.tf_min:
            version = _version(ctx.tf_version)
            if version is None or version < signature.tf_min:
                return False
        return True


def cuda_version_of(soname_version: str) -> str:
    """The CUDA version a library's soname names: "10.1" and "11" as they are, Windows's "101" → "10.1".

    A Windows DLL writes its release's digits without the dot: CUDA 9.x's two ("cudart64_90.dll" is
    9.0), 10.0 to 11.x's three ("cudart64_110.dll" is 11.0), and from CUDA 12 the major alone
    ("cudart64_12.dll"); two digits from 80 up are a pre-10 major and minor.

    Examples:
        >>> [cuda_version_of(v) for v in ("10.1", "11", "101", "110", "90", "12")]
        ['10.1', '11', '10.1', '11.0', '9.0', '12']
    """
    if soname_version.isdigit() and len(soname_version) == 3:
        return f"{soname_version[:2]}.{soname_version[2]}"
    if soname_version.isdigit() and len(soname_version) == 2 and int(soname_version) >= 80:
        return f"{soname_version[0]}.{soname_version[1]}"
    return soname_version


def _first(pattern: re.Pattern[str], lines: list[str], words: tuple[str, ...]) -> re.Match[str] | None:
    """The first match of ``pattern`` in a line that holds one of ``words`` (the test that spares the regex)."""
    return next((m for line in lines if any(w in line for w in words) and (m := pattern.search(line))), None)


def _breaks_mid_word(first: str, line: str) -> bool:
    """Whether a line may be the rest of a word the line before it was cut in: letters or digits meet at the break, no blank or indent between."""
    return first[-1:].isalnum() and line[:1].isalnum()


WRAPPED_CHARS = 60
"""The shortest line a wrap may have cut: terminals and posts wrap at 80 columns or more, less a timestamp's indent."""


def _joinings(first: str, line: str) -> tuple[str, str]:
    """A line and its continuation joined both ways, the likelier first.

    With a space (a wrap at a blank), and without (a break mid-word), which goes first where letters meet
    letters at the break ("cuDevicePrimary" / "CtxRetain" is one word).
    """
    spaced, unspaced = first.rstrip() + " " + line.strip(), first.rstrip() + line.strip()
    return (unspaced, spaced) if _breaks_mid_word(first, line) else (spaced, unspaced)


def _cut(line: str) -> bool:
    """Whether a record may have been cut by a wrap: long, and ending mid-sentence (a word, a number, a comma)."""
    end = line.rstrip()[-1:]
    return len(line) >= WRAPPED_CHARS and (end.isalnum() or end == ",")


def _tail(line: str) -> bool:
    """Whether a line may be the rest of a sentence cut before it: it goes on in lower case, a number or a bracket."""
    head = line.lstrip()[:1]
    return bool(head) and (head.islower() or head.isdigit() or head in "([`'\"")


def _starts_record(line: str) -> bool:
    """Whether the line starts a TensorFlow log record (a string test first: most lines start none)."""
    text = line.lstrip() if line[:1].isspace() else line  # most lines start unindented: no copy
    head, second = text[:1], text[1:2]
    if not head or not (head.isdigit() or (head in "IWEF" and (second.isdigit() or second == " "))):
        return False  # "Epoch 3/10", '  File "…"', program output: no record starts so
    return _LOG_RECORD.match(line) is not None


def other_cuda(want: str, installed: tuple[str, ...] | None) -> bool:
    """True when the versions installed are known and none provides ``want``.

    From CUDA 11 a soname carries the major only (libcudart.so.11.0 serves every 11.x), so
    majors are compared; before, minors are part of the soname (libcudart.so.10.1).
    """
    if not want or not installed:
        return False
    wanted = cuda_version_of(want).split(".")

    def provides(version: str) -> bool:
        have = version.split(".")
        if wanted[0] != have[0]:
            return False
        return int(wanted[0]) >= 11 or len(wanted) < 2 or len(have) < 2 or wanted[1] == have[1]

    return not any(provides(v) for v in installed)


def told_fields(signature: Signature) -> frozenset[str]:
    """The fields of a signature's texts that the machine's known versions fill, not its own match."""
    told: frozenset[str] = frozenset()
    if signature.when_tf_cuda_differs:
        told |= {"tf", "built", "installed"}
    if signature.when_want_not_tf_cuda or signature.when_want_not_tf_cudnn:
        told |= {"tf", "built"}
    if signature.when_other_cudnn or signature.when_cudnn_not_for_cuda:
        told |= {"installed"}
    if signature.when_kernels:
        told |= {"tf", "cc"}
    if signature.when_built_cuda_below:
        told |= {"tf", "built"}
    if signature.when_cuda_predates_gpu:
        told |= {"cuda", "cc", "first"}
    if signature.when_build_predates_gpu:
        told |= {"tf", "built", "cc", "first"}
    if signature.when_cudnn_below_build:
        told |= {"tf", "built", "installed"}
    return told


def _tell_versions(hit: Hit, ctx: ScanContext) -> None:
    """Fill a version comparison's fields (``told_fields``) from what is known of the machine.

    The log's own lines name only what TF asked for; the TF release, the CUDA it was built for and
    the CUDA or cuDNN installed come from the facts or the rest of the log.
    """
    signature = hit.signature
    if signature.when_tf_cuda_differs and ctx.tf_version and ctx.cuda_installed:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("built", built_cuda(ctx) or "?")
        hit.groups.setdefault("installed", ", ".join(ctx.cuda_installed))
    if signature.when_want_not_tf_cuda and ctx.tf_version:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("built", built_cuda(ctx) or "?")
    if signature.when_want_not_tf_cudnn and ctx.tf_version:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("built", built_cudnn(ctx) or "?")
    if signature.when_other_cudnn and ctx.cudnn_installed:
        hit.groups.setdefault("installed", ", ".join(ctx.cudnn_installed))
    if signature.when_cudnn_not_for_cuda and ctx.cuda_installed:
        hit.groups.setdefault("installed", ", ".join(ctx.cuda_installed))
    if signature.when_kernels and ctx.gpu_cc and ctx.tf_version:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("cc", "{}.{}".format(*ctx.gpu_cc))
    if signature.when_built_cuda_below and ctx.tf_version:
        hit.groups.setdefault("built", built_cuda(ctx) or "?")
    if signature.when_cuda_predates_gpu and ctx.gpu_cc:
        cuda = _ptxas_cuda(ctx)
        hit.groups.setdefault("cuda", ".".join(map(str, cuda)) if cuda else "?")
        _tell_gpu(hit, ctx.gpu_cc)
    if signature.when_build_predates_gpu and ctx.gpu_cc and ctx.tf_version:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("built", built_cuda(ctx) or "?")
        _tell_gpu(hit, ctx.gpu_cc)
    if signature.when_cudnn_below_build and ctx.tf_version and ctx.cudnn_installed:
        hit.groups.setdefault("tf", ctx.tf_version)
        hit.groups.setdefault("built", built_cudnn(ctx) or "?")
        hit.groups.setdefault("installed", ", ".join(ctx.cudnn_installed))


def _tell_gpu(hit: Hit, cc: tuple[int, int]) -> None:
    """The GPU's compute capability and the first CUDA that targets it, for a comparison of a CUDA with the GPU."""
    first = first_cuda_targeting(cc)
    hit.groups.setdefault("cc", "{}.{}".format(*cc))
    hit.groups.setdefault("first", "{}.{}".format(*first) if first else "?")


def other_major(want: str, installed: tuple[str, ...] | None) -> bool:
    """True when the versions installed are known and none has the major ``want`` names (cuDNN's sonames carry it alone)."""
    if not want or not installed:
        return False
    return not any(version.split(".")[0] == want for version in installed)


def cudnn_not_for_cuda(want: str, installed: tuple[str, ...] | None) -> bool:
    """True when the CUDA versions installed are known and NVIDIA built cuDNN ``want`` (a major) for none of their majors."""
    if not want.isdigit() or not installed:
        return False
    built_for = cuda_majors_for_cudnn(int(want))
    majors = {version.split(".")[0] for version in installed}
    return bool(built_for) and not any(major.isdigit() and int(major) in built_for for major in majors)


def _ptxas_cuda(ctx: ScanContext) -> tuple[int, ...] | None:
    """The CUDA whose ptxas XLA runs: the newest the log shows installed, else the one TF was built for (its wheels' own)."""
    installed = [v for v in (_version(c) for c in ctx.cuda_installed or ()) if v]
    return max(installed) if installed else _version(built_cuda(ctx))


def _cuda_predates_gpu(ctx: ScanContext) -> bool:
    """Whether the log's GPU is newer than every architecture the ptxas in use can target (``first_cuda_targeting``)."""
    first = first_cuda_targeting(ctx.gpu_cc) if ctx.gpu_cc else None
    cuda = _ptxas_cuda(ctx)
    if first is None or cuda is None or (len(cuda) < 2 and cuda[0] == first[0]):
        return False  # a bare major ("CUDA 12") may be 12.0 or 12.9: no claim
    return cuda < first


_SHARED_MEMORY_SHORT_OF_FAMILY = frozenset({(7, 5)})
"""GPUs that cannot launch every kernel built for the first GPU of their major: Turing's 64 KB of shared memory is
less than Volta's kernels may ask for (NVIDIA's Turing compatibility guide, "Compatibility between Volta and Turing")."""


def build_predates_gpu(ctx: ScanContext) -> bool:
    """Whether the cuBLAS and cuDNN of the CUDA the log's TF release was built for hold no kernels this GPU runs.

    A TF build loads the libraries of its own CUDA. Machine code for one compute capability runs on
    the later minors of its major, so a library of a CUDA older than the GPU (CUDA 11.0 before
    compute capability 8.6) still serves it through its kernels for the first GPU of that major; a
    CUDA older than that whole major (CUDA 10.x before Ampere) does not, nor does CUDA 9's for Turing,
    whose shared memory is short of what Volta's kernels ask.

    Examples:
        >>> [build_predates_gpu(ScanContext(tf_version=v, gpu_cc=cc)) for v, cc in
        ...  (("1.10", (7, 5)), ("1.13", (7, 5)), ("2.3", (8, 6)), ("2.4", (8, 6)), ("1.15", (7, 0)))]
        [True, False, True, False, False]
    """
    if not ctx.gpu_cc:
        return False
    first, built = first_cuda_targeting(ctx.gpu_cc), _version(built_cuda(ctx))
    if first is None or built is None or built >= first:
        return False
    family = first_cuda_targeting((ctx.gpu_cc[0], 0))
    return family is None or built < family or ctx.gpu_cc in _SHARED_MEMORY_SHORT_OF_FAMILY


def _release_kernels(ctx: ScanContext) -> KernelSupport | None:
    """How the log's TF release runs on the log's GPU (tf_archs.csv, else the CUDA it was built with).

    For a release the architecture table predates, the CUDA it was built with decides: a build
    cannot carry SASS for an architecture newer than its CUDA (ptxas_targets.csv), so TF's builds
    of that time (SASS and PTX for each capability) leave such a GPU the driver's JIT of the
    newest PTX at best, and the CUDA libraries of that CUDA no kernels for it.
    """
    if not (ctx.gpu_cc and ctx.tf_version):
        return None
    archs = release_archs(ctx.tf_version)
    if archs:
        return classify(ctx.gpu_cc, archs)
    first, built = first_cuda_targeting(ctx.gpu_cc), _version(built_cuda(ctx))
    return KernelSupport.PTX_JIT if first and built and built < first else None


def _tested_release(ctx: ScanContext) -> TfRelease | None:
    """The tested build configuration of the log's TF release, on the platform it runs on (Windows' own table before TF 2.11)."""
    if not ctx.tf_version:
        return None
    return tf_release(ctx.tf_version, "windows-gpu" if ctx.os == "windows" else "linux-gpu")


def built_cuda(ctx: ScanContext) -> str | None:
    """The CUDA the log's TF release was built for (tested build configurations, Windows' own before TF 2.11).

    Before CUDA 11 a soname carries major.minor, so the table's bare major ("9" for TF 1.5-1.12,
    "8" for 1.0-1.4) is read as the X.0 release those wheels were built against.
    """
    release = _tested_release(ctx)
    version = re.match(r"\d+(?:\.\d+)?", release.cuda) if release else None  # "10.1 (cudart64_101.dll)"
    if version and "." not in version.group() and int(version.group()) < 11:
        return version.group() + ".0"  # the table's "9" (TF 1.5-1.12) is the CUDA 9.0 the wheels link: libcudart.so.9.0
    return version.group() if version else None


def _want_not_built(want: str, ctx: ScanContext) -> bool:
    """True when the log's TF release is known and the CUDA it was built for does not provide ``want``."""
    built = built_cuda(ctx)
    return built is not None and other_cuda(want, (built,))


def built_cudnn(ctx: ScanContext) -> str | None:
    """The cuDNN (major.minor) the log's TF release was built with (tested build configurations)."""
    release = _tested_release(ctx)
    version = re.match(r"\d+\.\d+", release.cudnn) if release else None
    return version.group() if version else None


def _cudnn_want_not_built(want: str, ctx: ScanContext) -> bool:
    """True when the log's TF release is known and ``want`` is another minor of its pip build's cuDNN major.

    Another major (8.6 against a 9.3 build) is more likely a log of another TF release read beside this
    machine's facts than another library in the same process, so it keeps TF's own reading.

    Examples:
        >>> _cudnn_want_not_built("9.12.0", ScanContext(tf_version="2.21"))
        True
        >>> _cudnn_want_not_built("9.3.0", ScanContext(tf_version="2.21"))
        False
        >>> _cudnn_want_not_built("8.6.0", ScanContext(tf_version="2.21"))
        False
        >>> _cudnn_want_not_built("9.12.0", ScanContext())
        False
    """
    built, wanted = _version(built_cudnn(ctx)), _version(want)
    return built is not None and wanted is not None and wanted[0] == built[0] and wanted[:2] != built[:2]


def cudnn_below_build(ctx: ScanContext) -> bool:
    """Whether every cuDNN the log shows installed is older than the one its TF release was built with.

    cuDNN loads only at the major it was built with and the same or a later minor (TF's own check in
    cuda_dnn.cc), so 9.0 under a 9.3 build fails where 9.5 runs. A bare major ("cuDNN 9") says no minor: no claim.

    Examples:
        >>> cudnn_below_build(ScanContext(tf_version="2.18", cudnn_installed=("9.0",)))
        True
        >>> cudnn_below_build(ScanContext(tf_version="2.18", cudnn_installed=("9.5",)))
        False
        >>> cudnn_below_build(ScanContext(tf_version="2.18", cudnn_installed=("9",)))
        False
    """
    built = _version(built_cudnn(ctx))
    installed = [v for v in (_version(c) for c in ctx.cudnn_installed or ()) if v]
    if built is None or not installed:
        return False

    def older(version: tuple[int, ...]) -> bool:
        if version[0] != built[0]:
            return version[0] < built[0]
        return len(version) > 1 and version[:2] < built[:2]

    return all(older(v) for v in installed)


def _pattern_keywords(signature: Signature) -> tuple[tuple[tuple[str, bool], ...], ...]:
    return signature.keywords or tuple((("", False),) for _ in signature.patterns)


def render_template(template: str, values: Mapping[str, Any]) -> str:
    """Fill ``{name}`` fields; unknown names stay as they are."""

    class _Keep(dict[str, Any]):
        def __missing__(self, key: str) -> str:
            return "{" + key + "}"

    return template.format_map(_Keep(values))
