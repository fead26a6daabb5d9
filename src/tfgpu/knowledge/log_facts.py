"""What a log says about the machine it came from, as patterns.

The CUDA, cuDNN, TF release and driver its lines or its writer name, the GPU it shows or asks for,
and the memory TF found free.

The scanner (``scanner.py``) decides where each pattern is tried (which block, which lines); the readings
that need no more than one match (``asks_for_gpu``, ``held_at_start``) are here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from tfgpu.knowledge.compat import driver_requirement, libtensorflow_of_tfjs

_FOLD_DIGITS = str.maketrans("123456789", "000000000")


def fold_digits(text: str) -> str:
    """``text`` with every digit read as 0: how ``compact`` reads a block, and so how a keyword looked for in it is written.

    Lines of a log that differ only in their numbers fold to one; a keyword folded so is in the
    folded text wherever it is in the text.
    """
    return text.translate(_FOLD_DIGITS)


WINDOWS_HINT = re.compile(r"\b[A-Za-z]:\\|\.dll\b")
CONTAINER_HINT = re.compile(r"\broot@[0-9a-f]{12}:|/usr/local/nvidia/lib|/\.dockerenv|\bnvidia-docker\b|\bdocker run\b")
"""A shell prompt with a container id for a host name, nvidia-docker's library path, or docker itself."""
SAID_CONTAINER = re.compile(r"(?i)\b(?:docker|container|podman|singularity)\b")
SAID_WINDOWS = re.compile(r"(?i)\bwindows\b|\bwin ?1[01]\b")
"""Where a short paste (a title) says it ran: its words are the only context it gives."""
SAID_WSL = re.compile(r"(?i)\bWSL ?2?\b")
"""A post's word that TF runs under WSL: Linux on a Windows machine, where "Windows 11" names the host, not the OS TF
runs on (TF's GPU builds for Linux serve it, native Windows' GPU limits do not apply)."""
LOG_RECORD = re.compile(
    r"\s*(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d|[IWEF]\d{4} \d\d:\d\d:\d\d|[IWEF] (?:tensorflow|external|xla)/)"
)
"""The start of a TensorFlow (absl or glog) log record: a line that starts none is a continuation or program output."""
REPLY_MARK = "> "
"""How a reply or a mail quotes what it answers, a pasted log with it."""
QUOTE_MARKS = (REPLY_MARK, "# ")
"""How a reply quotes a pasted log ("> ") and a script or README comments one out ("# ")."""
QUOTE_HEADS = tuple(mark[0] for mark in QUOTE_MARKS)
"""The first characters of ``QUOTE_MARKS``: a line that starts with neither needs no further look."""
INDENTS = (" ", "\t")
"""How a wrapped message's continuation starts when a paste or a terminal indents it ("but source was\n    compiled with")."""
NOTICE_RECORD = re.compile(
    r"(?:^|[\s:.])[IW](?:\d{4} \d\d:\d\d:\d+\.\d+ +\d+ +| +(?:tensorflow|external|xla)/)\S*\.cc:\d+\]"
)
"""A record TensorFlow printed at INFO or WARNING level (glog's "I tensorflow/...cc:NN]", "W tensorflow/...cc:NN]" or
absl's "I0000 ... file.cc:NN]"), wherever a poster's paste puts it: TF's own word that the line reports or warns, not
that it failed. One that no signature knows (tf.data's auto-shard notice) is not evidence of a problem by its words."""
CUDA_INSTALLED = re.compile(
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
"""Literals of CUDA_INSTALLED's branches (CUDA 10 and later) in lower case, looked for in a block's lower-cased
text before the regex runs."""
CUDA_HINT_KEYS = tuple(fold_digits(hint) for hint in _CUDA_HINTS)
"""The hints as a ``compact`` text holds them."""
CUDNN_INSTALLED = re.compile(
    r"(?i)CUDA\s*/\s*cuDNN(?:\s+versions?)?[:\s#]*(?:CUDA\s*)?[\d.]+\s*(?:/|,|;|\band\b)\s*(?:cuDNN\s*)?v?(\d+\.\d+)"
    r"|(?:install\w*\b[^\n]{0,80}?\b|装的[^\n]{0,40}?(?<![A-Za-z]))cudnn[ _-]?v?(\d{1,2}\.\d+)"
    r"|Loaded cuDNN version (\d)(\d)\d\d\b"
)
"""A cuDNN the log shows installed: the issue template's "CUDA/cuDNN version: 10.1/8.0.2" or
"CUDA/cuDNN version: CUDA 12.6; CUDNN 9.0", a poster's "I installed ... cudnn6.0" (in Chinese "装的是...cudnn-7.6.5", what was installed), TF's own "Loaded cuDNN version 8907" (8.9). A version merely named ("TF 2.3
needs cuDNN 7.6") is not read."""
CUDA_LISTED = re.compile(
    r"(?im)^[\s*>#-]*CUDA(?P<pair>\s*/\s*cuDNN)?(?:[ _]versions?)?\s*[:=]?\s*(?:CUDA(?:[ _]versions?)?\s*[:=]?\s*)?"
    r"v?(?P<cuda>\d{1,2}\.0?\d)(?:\.\d+)*"
    r"(?P<cudnn>\s*(?:/|,|;|\band\b)\s*(?:cuDNN\s*)?v?[\d.]+)?\s*$"
)
"""A CUDA a report lists as its own, on a line of its own: "CUDA 10.0", "- CUDA version: 11.2", the issue template's
"CUDA/cuDNN version: 10.1/7.6", "10.2 and 7.6.5" or "CUDA 12.6; CUDNN 9.0" (a lone number there counts only if it is a CUDA release: "8.1" is a cuDNN),
the label said twice ("CUDA/cuDNN version: CUDA Version: 10.1") and a minor written with a zero ("10.02" is 10.2).
Read in a log's first block only; nvidia-smi's "CUDA Version" sits inside its
table and is the driver's ceiling, not an install."""
GPU_EVIDENCE_KEYS = (
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


FAILURE_SAID = re.compile(r"(?i)\b(?:error|exception|traceback|fail(?:s|ed|ure)?|crash\w*)\b")
"""A failure in a poster's own words: an error, an exception, a crash."""
GPU_SAID = re.compile(r"(?i)gpu|cuda|cudnn|nvidia|driver")
"""A word of the GPU stack: a failure said in a line that holds one may be the GPU's."""
FORM_FIELD = re.compile(r"[ \t]*[-*#>]*[ \t]*[A-Za-z][\w /().,-]{0,48}:[ \t]+\S")
"""A report form's field and its value ("GPU model and memory: RTX 3090", "- CUDA/cuDNN version: 12.5/9.2.1"): what
every report of the issue template states, whatever the report is about."""
OTHER_GRAPHICS = re.compile(
    r"(?i)\bIntel\s*(?:\(R\)\s*)?(?:UHD|HD|Iris)\b|\bRadeon\b|\bApple\s+(?:Silicon|M[1-5])\b|\bM[1-5](?:\s+(?:Pro|Max|Ultra))?\s+Mac"
)
"""Graphics that are not NVIDIA's, named in a paste ("the GPU is Intel (R) UHD Graphics 620", "my M1 MacBook")."""
NVIDIA_KEYS = ("NVIDIA", "nvidia", "Nvidia", "GeForce", "Quadro", "Tesla", "TITAN", "Titan", "RTX", "GTX", "pciBusID")
"""Text that names an NVIDIA GPU or TF's device line for one: with any of it, other graphics named beside are not the only GPU."""
NOT_NVIDIA = re.compile(r"(?i)\bnon[- ]?nvidia\b")
"""A poster's "a non NVIDIA GPU": the word names what the machine lacks, not a GPU it has."""


_CUINIT_FAILED = r"failed call to cuInit: (?:INTERNAL: CUDA error: Failed call to cuInit: )?"
"""TF's cuInit failure line; from TF 2.16 XLA logs the status it got, which repeats the call before the CUDA error."""
NO_LIBCUDA = re.compile(
    _CUINIT_FAILED + r"(?:UNKNOWN ERROR \((?:34|303)\)|CUDA_ERROR_(?:STUB_LIBRARY|SHARED_OBJECT_INIT_FAILED))"
)
"""cuInit refused for want of a driver library: the CUDA toolkit's stub libcuda answered (CUDA_ERROR_STUB_LIBRARY,
34), or none was loaded at all (TF's cuda_stub.cc answers every driver call with CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,
303, when libcuda.so.1 cannot be loaded). The call shows no driver, so no GPU. From TF 2.16 XLA logs the status it got
("failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)", TF 2.21 on a machine without a
driver, tests/fixtures/tf_logs/gpu-faults/gpu-build-no-gpu-ok.log)."""
NO_DRIVER = re.compile(
    r"Could not load dynamic library\s*['‘’\"]?(?:libcuda\.so|nvcuda\.dll)|libcuda\.so(?:\.1)?: cannot open shared object"
    r"|Couldn't open CUDA library libcuda|failed to find libcuda\.so on this system|unable to find libcuda\.so DSO"
    r"|kernel driver does not appear to be running on this host|/proc/driver/nvidia/version does not exist"
    r"|" + _CUINIT_FAILED + r"(?:UNKNOWN ERROR \(303\)|CUDA_ERROR_SHARED_OBJECT_INIT_FAILED)"
)
"""What TF's GPU build prints where no NVIDIA driver is installed: the driver library (libcuda, nvcuda.dll) not
loadable, cuInit answered by TF's own stub for it, no kernel module (/proc/driver/nvidia). A CPU machine prints
it at every start."""
NO_DRIVER_KEYS = ("libcuda", "nvcuda", "kernel driver", "nvidia/version", "cuInit")
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


DRIVER_REPORTED = re.compile(
    r"\b(?P<side>libcuda|kernel) reported version is:?\s*(?P<version>\d+\.\d+(?:\.\d+)?)"
    r"|NVRM version: NVIDIA UNIX \S+ (?P<module>Kernel Module)\s+(?P<module_version>\d+\.\d+(?:\.\d+)?)"
)
"""TF's cuda_diagnostics lines: the driver version libcuda reports, and the one the kernel module reports
(also read from /proc/driver/nvidia/version, whose contents TF prints before its own reading of them)."""


def driver_release(version: str) -> tuple[int, ...]:
    """A driver version without its trailing zero ("384.111.0" is 384.111)."""
    parts = [int(p) for p in version.split(".")]
    while len(parts) > 2 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


CAPABILITY = re.compile(
    r"(?i)compute ?capability:?\s*(?P<major>\d+)\.(?P<minor>\d)|\bmajor: (?P<m1>\d+) minor: (?P<m2>\d)\b"
)
"""TF's device lines: "compute capability: 6.1" (2.x), "computeCapability: 7.5" (2.1-2.5), "major: 6 minor: 1" (1.x)."""
CAPABILITY_KEYS = ("apability", "major: ")
GTX_16 = re.compile(r"(?i)\bGTX\s*16\d0\b")
"""The GTX 16 series: Turing (7.5) without Tensor Cores."""


def capability_of(found: re.Match[str]) -> tuple[int, int]:
    """The (major, minor) a ``CAPABILITY`` match states, in whichever of TF's two forms it was written."""
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


_FORM_UNANSWERED = re.compile(
    r"(?im)^[ \t]*#{2,6}[ \t][^\n]*$"
    r"|^[ \t>*-]*[A-Za-z][\w/().,-]{0,24}(?:[ \t][\w/().,-]{1,24}){0,3}:[ \t]*"
    r"(?:n/?a|none|no|nil|null|unknown|not applicable|_no response_|-+)?[ \t.]*$"
)
"""A report form's heading ("### CUDA/cuDNN version", GitHub's issue form; a lone "#" is as often a comment a script or
a README gives, "# If you have a NVIDIA GPU and get the warning") or a field left unanswered ("- GPU model and
memory: N/A", "CUDA/cuDNN version:", a label of four words at most: TF's "Searched for CUDA in the following
directories:" is its own line, not a form's): every report of TF's template holds them, whatever it is about. The answer on its
own line ("RTX 3090", "12.2/8.9") and an answered field are the writer's. The label is shorter than ``FORM_FIELD``'s: a
field without an answer has no value to tell it from a sentence that ends in a colon."""


def asks_for_gpu(text: str) -> bool:
    r"""Whether a paste's own words or setup ask for an NVIDIA GPU (TF's log records are not its words, nor a form's headings).

    Examples:
        >>> asks_for_gpu("tf 2.13, cuda 12.8 cudnn 9.7.1, v100. PyTorch works.")
        True
        >>> asks_for_gpu("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
        ...     "dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file")
        False
        >>> asks_for_gpu("I have this error using debian on the docker, I would like to disable cuda support")
        False
        >>> asks_for_gpu("### CUDA/cuDNN version\n_No response_\n### GPU model and memory\n_No response_\nthe loss is NaN")
        False
        >>> asks_for_gpu("### GPU model and memory\nRTX 3090 24GB"), asks_for_gpu("- CUDA/cuDNN version: 11.2/8.1")
        (True, True)
    """
    own = _DECLINES_GPU.sub(" ", _FORM_UNANSWERED.sub("", _TF_SAYS_NO_GPU.sub("", text)))
    return bool(_ASKS_ANYWHERE.search(text) or _ASKS_IN_OWN_WORDS.search(own))


MEMORY_AT_START = re.compile(
    r"(?:totalMemory|Total memory):\s*(?P<total>[\d.]+)\s*(?P<total_unit>[KMGT]i?B)\s*"
    r"(?:freeMemory|Free memory):\s*(?P<free>[\d.]+)\s*(?P<free_unit>[KMGT]i?B)"
)
"""TF 1.x's device line (1.0-1.4 on two lines, "Total memory: 7.92GiB" / "Free memory: 190.31MiB";
1.5-1.15 on one, "totalMemory: 7.93GiB freeMemory: 7.40GiB"): the GPU's memory, and how much of it
no process held when TF started. A Jetson's GPU ("NVIDIA Tegra X2") shares the system's memory, so little of it free
there is RAM the system uses, not another process holding the GPU: its device line is not read so."""
MEMORY_KEYS = ("otal memory:", "totalMemory:")
DEVICE_RESERVED = re.compile(
    r"Created (?:TensorFlow )?device \(?(?:/job:\S*?)?/device:GPU:\d+ with (?P<mb>\d+) MB memory\)?[^\n]*?name: (?P<name>[^,\n]+)"
)
"""TF 2.x's device line: the memory TF took for its allocator (what was free when it started, unless a limit was
configured) and the GPU's name, which for data-center GPUs states the card's memory ("NVIDIA H100 80GB HBM3")."""
DEVICE_MEMORY_SIZE = re.compile(r"deviceMemorySize: (?P<size>[\d.]+)(?P<unit>[KMGT])iB")
"""TF 2.1-2.10's "Found device 0 with properties" line: the GPU's whole memory."""
DEVICE_CREATED_BY = re.compile(
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
NAMED_MEMORY = re.compile(r"(?<![\d.])(?P<gb>\d{1,3}) ?GB\b")
GPU_CREATED = re.compile(r"Created (?:TensorFlow )?device \(?(?:/job:\S*?)?/device:GPU:\d|gpu_bfc_allocator\.cc")
"""TF made a GPU device of its own: gpu_device.cc's "Created device .../device:GPU:0 with N MB memory" (TF 1.x:
"Created TensorFlow device (...)"), or the GPU allocator each such device gets logging its settings
(gpu_bfc_allocator.cc). A poster's "the GPU is not used" beside it is a GPU TF has, not one it lacks."""
BYTES_PER_UNIT = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
BUSY_FREE_FRACTION = 0.5
"""Below this share of its memory free at TF's start, other processes held most of the GPU."""


def held_at_start(found: re.Match[str]) -> bool:
    r"""Whether a device line shows less than half of the GPU's memory free when TF started.

    Examples:
        >>> held_at_start(MEMORY_AT_START.search("Total memory: 7.92GiB\nFree memory: 190.31MiB"))
        True
        >>> held_at_start(MEMORY_AT_START.search("totalMemory: 7.93GiB freeMemory: 7.40GiB"))
        False
    """
    total = float(found["total"]) * BYTES_PER_UNIT[found["total_unit"][0]]
    free = float(found["free"]) * BYTES_PER_UNIT[found["free_unit"][0]]
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


TF_CUDART = re.compile(
    r"(?:dynamic library '?|ImportError: |Could not find ')(?P<name>libcudart\.so\.(?P<so>\d+(?:\.\d+)?)|cudart64_(?P<dll>\d+)\.dll)"
)
"""The CUDA runtime TensorFlow itself loads or asks for, by the soname of the CUDA it was built with: its loader's
"Successfully opened dynamic library libcudart.so.10.1" or "Could not load dynamic library 'cudart64_110.dll'", TF 1.x's
link-time "ImportError: libcudart.so.9.0: ..." and its Windows check "Could not find 'cudart64_90.dll'". A user's own
``ls`` of a CUDA directory names runtimes too, but not after these words."""
TF_VERSION = re.compile(
    r"(?i)(?:tensor ?flow(?:[ -]gpu)?(?: version)?(?: \([^)\n]{0,40}\))?[:=\s]+(?:tf ?)?|\btf version[:=\s]+|tf\.__version__\W+|"
    r"tensorflow(?:_gpu)?[-=](?:gpu-)?|\btf(?:[ -]gpu)? ?(?=v?\d+\.\d))"
    r"v?(\d+\.\d+)(?:\.\d+)?"
)
"""The TF release a log names: "tensorflow-gpu==1.15", "TensorFlow version: 2.3" (the older issue template's
"TensorFlow version (use command below): 2.1.0" too, and "TF version 2.1") or the newer template's "tf 2.16.1" after it, tf.__version__ printed,
the abbreviation posters write ("TF 2.4 not using GPU", "tf-gpu 1.15"), and a wheel's file name, where PEP 427 writes the
distribution's dash as an underscore ("tensorflow_gpu-1.13.1-cp37-cp37m-win_amd64.whl")."""
TF_VERSION_FIELD = re.compile(
    r"(?im)^[#* \t-]*tensor ?flow version[ \t:]*\n(?:[ \t]*\n){0,2}[ \t]*(?:tf[ -]?)?v?(\d+\.\d+)(?:\.\d+)?\b"
)
"""The TF release GitHub's issue form gives under its own heading: "### TensorFlow version", a blank line, "2.10".
Read in the block where a line names no release (the form's value has no word of its own to find it by)."""
TFJS_NODE = re.compile(r"""tfjs-node(?:-gpu)?["']?(?:@|:\s*|\s+(?:v(?:ersion)?\s*:?\s*)?)["'^~]*v?(\d+\.\d+\.\d+)""")
"""The tfjs-node(-gpu) release a log names: "tfjs-node-gpu 2.0.1", "@tensorflow/tfjs-node-gpu@1.4.0", package.json's
"@tensorflow/tfjs-node-gpu": "^3.2.0". One run of blanks at most between the name and the release: a hostile line of blanks stays linear."""
TFJS = re.compile(r"(?i)TensorFlow\.js\s+version[:=]?\s*v?(\d+\.\d+\.\d+)|@tensorflow/tfjs@(\d+\.\d+\.\d+)")
"""The TensorFlow.js release a log names (its issue template's "TensorFlow.js version: 4.22.0"): tfjs-node's own since
the two were released together (1.2.8, the monorepo), read as tfjs-node's only where a log names tfjs-node."""
TF_VERSION_WORDS = ("ersion", "low=", "low-", "low_", "low ", "TF", "tf ", "tf-")
"""Words a line naming TF's release holds (version, tensorflow==, tensorflow-gpu, tensorflow_gpu-, TF 2.x, tf 1.15): TF_VERSION is tried
only on a block that holds one."""


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


def _first_match(pattern: re.Pattern[str], lines: list[str], words: tuple[str, ...]) -> re.Match[str] | None:
    """The first match of ``pattern`` in a line that holds one of ``words`` (the test that spares the regex)."""
    return next((m for line in lines if any(w in line for w in words) and (m := pattern.search(line))), None)


class MachineReading:
    """What a log says of the machine it ran on, read a block of lines at a time as the scanner goes.

    The scanner (``scanner.py``) owns the lines and the signatures; this holds what its blocks show of
    the OS, a container, the TF release and the CUDA runtime TF asks for, the driver, the GPU (present,
    created, held by others, its capability and memory) and the CUDA and cuDNN installed, each read
    once per block where the block holds its words.
    """

    def __init__(self) -> None:
        self.windows_seen = False  # a Windows path or DLL in the log: TF runs natively there
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
        self.tf_version: str | None = None  # the TF release the log's lines first name
        self.cudart_asked: CudartAsked | None = None  # the CUDA runtime TF's own lines first load or ask for
        self.tfjs_node_version: str | None = None
        self.tfjs_version: str | None = None
        self.tfjs_node_seen = False

    def read_short_paste_line(self, line: str) -> None:
        """A line of a short paste (a title, at most three lines): its words say where it ran, a container or Windows."""
        self.container_seen = self.container_seen or bool(SAID_CONTAINER.search(line))
        self.windows_said = self.windows_said or bool(SAID_WINDOWS.search(line))

    def read_said_line(self, line: str) -> None:
        """A line of the post's own words in the log's head: WSL named there makes the Windows it names the host."""
        self.wsl_said = self.wsl_said or bool(SAID_WSL.search(line))

    def _read_hints(self, block: str, lines: list[str]) -> None:
        """What the block's lines say of the run: Windows, a container, the TF release, the CUDA runtime asked for, tfjs.

        Each is looked for in the block's text first and in its lines only where the block holds
        its words: most blocks are progress lines that hold none, and one search of the block is
        cheaper than one per line. The first line that names a release or a runtime wins.
        """
        if not self.windows_seen and ("\\" in block or ".dll" in block):
            self.windows_seen = _first_match(WINDOWS_HINT, lines, ("\\", ".dll")) is not None
        if not self.container_seen and ("root@" in block or "docker" in block or "nvidia/lib" in block):
            self.container_seen = _first_match(CONTAINER_HINT, lines, ("root@", "docker", "nvidia/lib")) is not None
        if self.tf_version is None and any(word in block for word in TF_VERSION_WORDS):
            version = _first_match(TF_VERSION, lines, TF_VERSION_WORDS) or TF_VERSION_FIELD.search(block)
            self.tf_version = version.group(1) if version else None
        if self.cudart_asked is None and "cudart" in block:
            asked = _first_match(TF_CUDART, lines, ("cudart",))
            if asked:
                self.cudart_asked = CudartAsked(
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
            node = TFJS_NODE.search(line)
            self.tfjs_node_version = node.group(1) if node else None
        if self.tfjs_version is None:
            umbrella = TFJS.search(line)
            self.tfjs_version = (umbrella.group(1) or umbrella.group(2)) if umbrella else None

    def gpu_shared(self) -> bool:
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

    def limit_over_gpu(self) -> bool:
        """Whether TF 2.x's device line gives its allocator more memory than the GPU has (a memory_limit above the card)."""
        read = self._reserved_of_total()
        return read is not None and read[0] > read[1]

    def reserved_held(self) -> bool:
        """Whether TF 2.x's device line shows it took less than half of the GPU, as when other processes held it."""
        read = self._reserved_of_total()
        return read is not None and reserved_at_start_held(*read)

    def libtensorflow(self) -> str | None:
        """The TensorFlow release under the tfjs-node the log names: tfjs-node-gpu runs TF's C library of that release."""
        version = self.tfjs_node_version or (self.tfjs_version if self.tfjs_node_seen else None)
        return libtensorflow_of_tfjs(version) if version else None

    def read_block(self, block: str, lines: list[str], brief_low: str, first: bool) -> None:
        """What a block of lines says about the machine (searched per block, not per line; ``brief_low`` is its ``compact`` text lower-cased).

        The run's hints (``_read_hints``: Windows, a container, the TF release, the CUDA runtime asked for);
        a GPU shown, its memory held by others at start, the driver versions TF's diagnostics read,
        the compute capability TF printed (Tensor Cores), CUDA installed; and, in the ``first`` block
        only, what TF's setup and a poster's words say (``_read_start``).
        """
        self._read_hints(block, lines)
        if "reported version is" in block or "NVRM version" in block:
            for found in DRIVER_REPORTED.finditer(block):
                side, version = (
                    ("kernel", found["module_version"]) if found["module"] else (found["side"], found["version"])
                )
                self.driver_reported.setdefault(side, version)
        if not self.gpu_seen:
            # A kernel module's version read by TF's diagnostics: the driver is loaded, so an NVIDIA GPU is here,
            # whatever libcuda did (a toolkit's stub libcuda first on the path answers cuInit with 34 on such a
            # machine too: set e's stub-libcuda run on the H100, tests/fixtures/tf_logs/gpu-faults).
            shown = NO_LIBCUDA.sub("", block) if "cuInit" in block else block
            self.gpu_seen = any(k in shown for k in GPU_EVIDENCE_KEYS) or "kernel" in self.driver_reported
        if first:
            self._read_start(block, block.lower())
        if not self.gpu_created_seen and ("GPU" in block or "gpu_bfc" in block):
            self.gpu_created_seen = bool(GPU_CREATED.search(block))
        if not self.gpu_held_seen and any(k in block for k in MEMORY_KEYS) and "Tegra" not in block:
            self.gpu_held_seen = any(held_at_start(found) for found in MEMORY_AT_START.finditer(block))
        if "gpu_device.cc" in block and "Created" in block:
            for found in DEVICE_CREATED_BY.finditer(block):
                seconds = int(found["h"]) * 3600 + int(found["m"]) * 60 + float(found["s"])
                created = self.gpu_creators.setdefault(found["bus"] or found["gpu"], [])
                if len(created) < CREATIONS_KEPT:
                    created.append((seconds, found["thread"]))
        if self.device_reserved is None and "MB memory" in block:
            reserved = DEVICE_RESERVED.search(block)
            if reserved:
                named = NAMED_MEMORY.search(reserved["name"])
                self.device_reserved = (int(reserved["mb"]), int(named["gb"]) * 1024 if named else None)
        if self.device_memory_mb is None and "deviceMemorySize" in block:
            size = DEVICE_MEMORY_SIZE.search(block)
            if size:
                self.device_memory_mb = float(size["size"]) * BYTES_PER_UNIT[size["unit"]] / 2**20
        if self.tensor_cores_seen is None and any(k in block for k in CAPABILITY_KEYS):
            capability = CAPABILITY.search(block)
            if capability:
                self.capability_seen = capability_of(capability)
                self.tensor_cores_seen = has_tensor_cores(self.capability_seen, GTX_16.search(block) is not None)
        if any(k in brief_low for k in CUDA_HINT_KEYS):
            for found in CUDA_INSTALLED.finditer(block):
                self.cuda_seen.setdefault(cuda_version_of(next(v for v in found.groups() if v)), None)

    def _read_start(self, block: str, low: str) -> None:
        """What the first block of a log says: TF finding no driver, the CUDA and cuDNN listed, a writer asking for a GPU.

        TF looks for the driver and loads cuDNN as it sets up, and a poster's words come before what
        they paste; a long log's later blocks are training, so these searches cost nothing there.
        """
        if any(k in block for k in NO_DRIVER_KEYS):
            self.no_driver_seen = NO_DRIVER.search(block) is not None
        if "cuda" in low:
            for found in CUDA_LISTED.finditer(block):
                if found["pair"] and not found["cudnn"] and driver_requirement(found["cuda"]) is None:
                    continue  # "CUDA/cuDNN version: 8.1" with one number: a cuDNN, no CUDA release is 8.1
                major, minor = found["cuda"].split(".")
                self.cuda_seen.setdefault(f"{major}.{int(minor)}", None)
        if "cudnn" in low:
            for found in CUDNN_INSTALLED.finditer(block):
                template, said, major, minor = found.groups()
                self.cudnn_seen.setdefault(template or said or f"{major}.{minor}", None)
        self.gpu_wanted = not self.gpu_seen and asks_for_gpu(block)

    def driver_differs(self) -> bool | None:
        """Whether the versions TF's diagnostics read for libcuda and the kernel module differ (None: not both read)."""
        libcuda, kernel = self.driver_reported.get("libcuda"), self.driver_reported.get("kernel")
        if libcuda is None or kernel is None:
            return None
        return driver_release(libcuda) != driver_release(kernel)
