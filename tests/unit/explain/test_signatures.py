"""The signature base: every signature finds its own examples, through the prefilter, tolerant of
prefixes, ANSI colour and CRLF; the corpus is diagnosed at the required accuracy."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfgpu.explain.explain import explain_lines, fix_values
from tfgpu.knowledge.archs import KernelSupport
from tfgpu.knowledge.compat import library_sonames
from tfgpu.knowledge.keyword_index import KeySet, compact, pattern_keywords
from tfgpu.knowledge.libraries import wanted_libraries
from tfgpu.knowledge.log_facts import GpuKnown, asks_for_gpu
from tfgpu.knowledge.resemblance import load_resemblance
from tfgpu.knowledge.scanner import BLOCK_LINES, LogScanner, term_index
from tfgpu.knowledge.signatures import ScanContext, Signature, load_signatures, render_template
from tfgpu.knowledge.version_checks import build_predates_gpu, told_fields
from tfgpu.knowledge.words import terms
from tfgpu.model.explanation import Reading
from tfgpu.model.findings import Severity

SIGNATURES = load_signatures()
CORPUS = Path(__file__).parents[4] / "shared" / "data" / "errors" / "corpus.jsonl"
CONTEXT = {
    "windows-native-no-gpu": ScanContext(os="windows", tf_version="2.12"),
    "windows-native-wddm-no-gpu": ScanContext(os="windows", tf_version="2.17"),
    "libcuda-not-loaded": ScanContext(no_gpu=False),  # alone, TF's line is what a CPU machine prints too
    "kernel-driver-not-running": ScanContext(no_gpu=False),
    "libcuda-missing-in-container": ScanContext(container=True, no_gpu=False),
    "libcuda-missing-in-pod": ScanContext(no_gpu=False),
    "libcuda-import-failed-in-container": ScanContext(container=True),
    "cuinit-unnamed-in-container": ScanContext(container=True),
    "windows-pywrap-module-not-found": ScanContext(os="windows"),
    "launch-failed-under-tdr": ScanContext(os="windows"),
    "gpu-not-used-in-container": ScanContext(container=True),
    "mirrored-strategy-windows": ScanContext(os="windows"),
    "device-node-missing-in-container": ScanContext(container=True),
    "cuda-runtime-of-another-version": ScanContext(cuda_installed=("10.0", "12")),
    "cuda-library-for-another-tf-build": ScanContext(tf_version="2.2"),
    "cpu-machine-no-cuda": ScanContext(no_gpu=True),
    # alone, the line is the paste's subject and is told as the missing runtime (a warning): see the test below
    "cudart-missing-nothing-shows-gpu": ScanContext(no_gpu=True),
    "tf-built-for-another-cuda": ScanContext(tf_version="2.1", cuda_installed=("10.2",)),  # TF 2.1 is built for 10.1
    # tfjs-node-gpu 4.x runs TF 2.9.1's C library, built for CUDA 11.2
    "tfjs-node-gpu-binding-other-cuda": ScanContext(os="windows", tf_version="2.9", cuda_installed=("12.5",)),
    "tf1-import-failed-other-cuda": ScanContext(tf_version="1.5", cuda_installed=("9.1",)),  # TF 1.5 is built for 9.0
    "cudnn-of-another-major": ScanContext(cudnn_installed=("8.0",)),
    "cudnn-major-not-built-for-cuda": ScanContext(cuda_installed=("11.1",)),  # no cuDNN 7 was built for CUDA 11
    "cudart-symbols-other-cuda": ScanContext(tf_version="2.0", cuda_installed=("10.1",)),  # TF 2.0 is built for 10.0
    "cudart-stub-no-cuda-runtime": ScanContext(no_gpu=False),  # the facts (tfgpu run) say a GPU is here
    "cuinit-stub-libcuda": ScanContext(no_gpu=False),
    "nvidia-smi-missing-in-container": ScanContext(container=True),
    "driver-reported-versions-differ": ScanContext(driver_differs=True),  # the log's libcuda line says the other
    "oom-gpu-held-at-start": ScanContext(gpu_held=True),
    "oom-tf-processes-share-gpu": ScanContext(gpu_shared=True),  # two processes' device lines in the same log
    "logical-device-over-gpu-memory": ScanContext(limit_over_gpu=True),  # the device line's MB against the card's
    "cudnn-handle-gpu-held-at-start": ScanContext(gpu_held=True),
    "cublas-handle-gpu-held-at-start": ScanContext(gpu_held=True),
    "pytorch-oom-beside-tf-device": ScanContext(gpu_created=True),  # TF's device line in the same log
    "cuinit-failed-other-graphics": ScanContext(no_gpu=True),
    "build-predates-gpu": ScanContext(tf_version="2.3", gpu_cc=(8, 6)),  # a CUDA 10.1 build on an RTX 30xx
    "cublas-predates-gpu": ScanContext(tf_version="1.15", gpu_cc=(8, 6)),
    "cublas-kernel-failed-cuda10-build": ScanContext(tf_version="1.15"),  # a CUDA 10.0 build, the GPU unnamed
    "build-predates-gpu-crash": ScanContext(tf_version="1.10", gpu_cc=(7, 5)),  # a CUDA 9.0 build on an RTX 20xx
    "gpu-below-build-minimum": ScanContext(tf_version="1.15", gpu_cc=(3, 0)),  # a Quadro K420; TF 1.15 starts at 3.5
    "gpu-below-build-minimum-found": ScanContext(tf_version="2.3"),  # the GT 630's 3.0 read from TF's device line
    "ptxas-predates-gpu": ScanContext(tf_version="2.4", gpu_cc=(8, 6)),  # CUDA 11.0's ptxas on an RTX 30xx
    # TF 2.18 is built with cuDNN 9.3
    "dnn-init-failed-cudnn-older-than-build": ScanContext(tf_version="2.18", cudnn_installed=("9.1",)),
    "mixed-precision-check-gpu-not-seen": ScanContext(no_gpu=False),  # the facts say a GPU is here
    "cudnn-version-mismatch-not-tf-build": ScanContext(tf_version="2.21"),  # built with cuDNN 9.3, not 9.12
}


def scan(lines, context=None):
    scanner = LogScanner()
    for line in lines:
        scanner.feed(line)
    return scanner.result(context)


def top_problem(*lines):
    """The first problem's signature id and groups for these lines (None and {} when there is none)."""
    problems = [h for h in scan(list(lines)).hits if not h.signature.benign]
    return (problems[0].signature.id, problems[0].groups) if problems else (None, {})


def test_base_has_at_least_60_failure_classes_and_unique_ids():
    failure = {s.category for s in SIGNATURES if not s.benign}
    assert len(failure) >= 60
    assert len({s.id for s in SIGNATURES}) == len(SIGNATURES)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", s.id) for s in SIGNATURES)


@pytest.mark.parametrize("signature", SIGNATURES, ids=lambda s: s.id)
def test_signature_finds_each_of_its_examples(signature: Signature):
    assert signature.examples and signature.cause and signature.fix and signature.sources
    for example in signature.examples:
        lines = [example] + ([_also_line(signature)] if signature.also else [])
        hits = {h.signature.id: h for h in scan(lines, CONTEXT.get(signature.id)).hits}
        assert signature.id in hits, (signature.id, example)
        values = {**fix_values(None, None), **hits[signature.id].groups}
        for template in (signature.title, signature.cause, signature.fix):  # a stray brace would fail explain itself
            assert not re.search(r"\{\w+\}", render_template(template, values)), (signature.id, template)


def _also_line(signature: Signature) -> str:
    samples = {
        "cuda10-build-on-ampere": "Successfully opened dynamic library cudart64_101.dll",
        "gpu-code-in-docker-build": "While building the image using the command `sudo nvidia-docker build -t name .`",
        "libcuda-missing-in-pod": "However, when I run this on Kubeflow, I get the following errors:",
        "session-failed-gpu-exclusive": "| N/A   41C    P0   203W / 300W |   6865MiB / 16276MiB |     52%   E. Process |",
        "gpu-list-empty": ">>> print(tf.config.list_physical_devices('GPU'))",
        "tf-2-16-1-gpu-list-empty": "TF 2.16.1: >>> tf.config.list_physical_devices('GPU')",
        "tensorrt-missing-used": "from tensorflow.python.compiler.tensorrt import trt_convert",
        "tensorrt-missing-said": "Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file",
        "windows-dll-load-failed-in-traceback": "    from tensorflow.python.pywrap_tensorflow_internal import *",
        "windows-dll-load-failed-bare": "I get this error when I import tensorflow on Windows 10:",
        "windows-self-check-dll-missing": "OSError: [WinError 126] The specified module could not be found",
        "logical-device-over-gpu-memory": "failed to allocate 390.62GiB (419430400000 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY",
        "tfjs-node-gpu-binding-not-loaded": "Error: The specified module could not be found.",
        "tfjs-node-gpu-binding-other-cuda": "Error: The specified module could not be found.",
        "context-creation-oom-in-trace": "    at jcuda.driver.JCudaDriver.cuCtxCreate(JCudaDriver.java:1514)",
        "gpu-image-run-without-gpu-runtime": "Num GPUs Available:  0",
        "gpu-kernel-op-xla-gpu-only": "Registered devices: [CPU, XLA_CPU, XLA_GPU]",
        "launch-failed-under-tdr": "Windows' TDR (Timeout Detection and Recovery) resets a GPU that does not answer in 2 s",
        "multi-backend-keras-on-tf2": '  File "site-packages/keras/backend/tensorflow_backend.py", line 74, in get_uid',
        "gpu-asked-other-graphics": "Display adapter: Intel(R) UHD Graphics 620",
        "float-op-without-gpu-build": "Could not satisfy explicit device specification '/device:GPU:0' because no supported kernel for GPU devices is available.",
        "package-install-replaced-tf": "and now the GPU is not detected at all",
        "op-build-nvcc-missing": 'Setting up TensorFlow plugin "fused_bias_act.cu": Preprocessing... Compiling... Failed!',
        "op-library-abi-flag-said": "causes an undefined symbol error. Removing it makes everything work.",
        "jax-oom-beside-tensorflow": "import tensorflow_datasets as tfds",
        "gpu-list-indexed-empty": "IndexError: list index out of range",
        "tf-keras-of-another-tf": '  File "/tmp/k/overlay-tf_keras-2.15.1/tf_keras/src/saving/legacy/saved_model/load_context.py", line 68',
        "tf-oom-beside-jax": "import jax.numpy as jnp",
        "xla-variable-on-other-device": "@tf.function(jit_compile=True)",
    }
    return samples[signature.id]


@pytest.mark.parametrize("signature", [s for s in SIGNATURES if s.benign], ids=lambda s: s.id)
def test_benign_examples_raise_no_problem(signature: Signature):
    hits = scan(signature.examples, CONTEXT.get(signature.id)).hits
    assert hits and not [h.signature.id for h in hits if not h.signature.benign]


PREFIXES = st.sampled_from(
    [
        "",
        "2023-06-19 17:03:27.840554: E tensorflow/stream_executor/cuda/cuda_dnn.cc:417] ",
        "W0000 00:00:1753232013.685876   24341 gpu_device.cc:2431] ",
        "[1,0]<stderr>: ",
        "\x1b[31m",
    ]
)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(
        [
            s
            for s in SIGNATURES
            # a signature read only in a poster's words (paste patterns) never meets TF's record prefixes
            if s.patterns and not s.also and not s.when_os and s.when_container is None and not s.when_other_cuda
        ]
    ),
    PREFIXES,
    st.sampled_from(["", "\r", "\x1b[0m"]),
)
def test_matching_is_tolerant_of_prefixes_colour_and_crlf(signature, prefix, suffix):
    example = signature.examples[0]
    if example.startswith("^") or re.search(r"\^", "".join(p.pattern for p in signature.patterns)):
        example = example  # anchored patterns (a bare "Illegal instruction") are tested unprefixed above
        prefix = ""
    found = {h.signature.id for h in scan([prefix + example + suffix], CONTEXT.get(signature.id)).hits}
    assert signature.id in found


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=200), max_size=40))
def test_scanner_never_raises_and_counts_lines(lines):
    result = scan(lines)
    assert result.lines == len(lines)
    assert all(1 <= q[0] <= len(lines) for h in result.hits for q in h.quotes)


def test_quotes_and_counts_are_bounded():
    line = "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
    (hit,) = [h for h in scan([line] * 1000).hits if h.signature.id == "cuinit-no-device"]
    assert hit.count == 1000 and len(hit.quotes) == 3


def test_root_cause_ranks_above_its_symptoms():
    log = [
        "Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly",
        "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file",
    ]
    assert scan(log).hits[0].signature.id == "cudnn-not-loaded"


def test_windows_signature_needs_windows_and_tf_above_2_10():
    assert "windows-native-no-gpu" not in {h.signature.id for h in scan(["GPU is NOT AVAILABLE"]).hits}
    assert "windows-native-no-gpu" not in {
        h.signature.id for h in scan(["GPU is NOT AVAILABLE"], ScanContext("windows", "2.10")).hits
    }
    hits = scan(["TensorFlow version: 2.12.0", "C:\\Users\\ada> python check.py", "GPU is NOT AVAILABLE"]).hits
    assert hits[0].signature.id == "windows-native-no-gpu"


def test_render_template_keeps_unknown_fields():
    assert render_template("{pip} install x {missing}", {"pip": "python -m pip"}) == "python -m pip install x {missing}"


@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not present")
def test_corpus_top1_at_least_90_percent_and_no_benign_false_alarm():
    cases = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    correct = false_alarms = 0
    for case in cases:
        os_text = case.get("os", "")
        version = re.search(r"\d+\.\d+", case.get("tf_version", ""))
        ctx = ScanContext(
            "windows" if "Windows" in os_text and "WSL" not in os_text else "linux",
            version.group() if version else None,
        )
        hits = scan(case["log"].splitlines(), ctx).hits
        problems = [h for h in hits if not h.signature.benign]
        if case["benign"]:
            false_alarms += bool(problems)
            correct += not problems and any(h.signature.category == case["category"] for h in hits)
        else:
            correct += bool(problems) and problems[0].signature.category == case["category"]
    assert false_alarms == 0
    assert correct / len(cases) >= 0.9


def test_a_missing_libcuda_is_the_driver_on_a_host_and_the_gpu_runtime_in_a_container():
    line = "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory"
    assert scan([line]).hits[0].signature.category == "driver_missing"
    assert scan([line], ScanContext(container=True)).hits[0].signature.category == "docker_no_gpu"
    prompt = "root@a8c0f508dc92:/gpt-2# python3 src/interactive_conditional_samples.py"
    assert scan([prompt, line]).hits[0].signature.category == "docker_no_gpu"  # the log says so itself
    assert scan([line], ScanContext(container=False)).hits[0].signature.category == "driver_missing"


def test_a_missing_runtime_beside_another_installed_cuda_is_the_wrong_cuda_version():
    line = (
        "Could not load dynamic library 'libcudart.so.10.1'; dlerror: libcudart.so.10.1: cannot open shared object file"
    )
    top = lambda ctx: scan([line], ctx).hits[0].signature.category  # noqa: E731
    assert top(None) == "missing_cuda_library"  # nothing known about the machine
    assert top(ScanContext(cuda_installed=("10.0",))) == "wrong_cuda_version_installed"
    assert top(ScanContext(cuda_installed=("10.1",))) == "missing_cuda_library"  # installed: a path problem
    eleven = "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open"
    assert scan([eleven], ScanContext(cuda_installed=("11.2",))).hits[0].signature.category == "missing_cuda_library"
    assert (
        scan([eleven], ScanContext(cuda_installed=("12",))).hits[0].signature.category == "wrong_cuda_version_installed"
    )


def test_keyword_prefilter_by_block_finds_what_every_pattern_on_every_line_finds():
    """The public logs in one run among progress lines (blocks end inside them), against a scanner
    that tries every pattern on every line: the keywords only ever skip what cannot match."""
    public = Path(__file__).parents[3] / "benchmarks" / "corpus" / "public-threads.jsonl"
    progress = "750/750 ━━━━━━━━━━━━━━━━━━━━ 62s 80ms/step - accuracy: 0.9132 - loss: 0.2841"
    lines = []
    for case in map(json.loads, public.read_text().splitlines()):
        lines += [progress] * 20 + case["log"].splitlines()

    def hits(scanner: LogScanner) -> list[tuple]:
        for line in lines:
            scanner.feed(line)
        return [(h.signature.id, h.count, h.first_line, h.quotes, h.groups) for h in scanner.result().hits]

    unfiltered = LogScanner((replace(s, keywords=()) for s in SIGNATURES), load_resemblance())
    assert len(lines) > 3 * BLOCK_LINES
    assert hits(LogScanner()) == hits(unfiltered)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="abcdE_ 07", min_size=1, max_size=9), min_size=1, max_size=40, unique=True),
    st.text(alphabet="abcdE_ 07\n", max_size=200),
)
def test_gated_keywords_are_exactly_those_the_text_holds(keys, text):
    """Gates, guards and the compact text only skip keywords the text cannot hold: what is held is what a scan of each finds.

    Digits in both (0 and 7) check the folding: every key the text holds is found, and a key
    found that the text does not hold differs from it only in its digits ("a7" where it says "a0").
    """
    keyset = KeySet.of(tuple((key, []) for key in keys))
    held = {key for key, _ in keyset.held_in(compact(text))}
    assert held >= {key for key in keys if key in text}
    assert all(key.replace("7", "0") in text.replace("7", "0") for key in held)


NVRTC_LINE = (
    "E0000 00:00:1 2 cuda_dnn.cc:1] Could not load library libnvrtc.so.12. "
    "Error: libnvrtc.so.12: cannot open shared object file: No such file or directory"
)


@pytest.mark.parametrize(
    "line",
    [
        NVRTC_LINE + "\rab",  # an error a short progress redraw covered in part
        "Epoch 1/1\r" + NVRTC_LINE + "\r12/750 ━━━━ 3s",  # a log written with CR alone
        "\r".join(["1/750 ━"] * 3000 + [NVRTC_LINE]),  # the error after 3,000 redraws
    ],
)
def test_every_part_of_a_line_with_carriage_returns_is_read(line):
    scanner = LogScanner()
    scanner.feed(line)
    assert "nvrtc" in " ".join(h.signature.id for h in scanner.result().hits)


def test_no_cuda_is_a_problem_only_where_a_gpu_is_known_or_shown():
    """TF's GPU build says "GPU will not be used" at every start without CUDA: on a CPU machine that is a CPU run."""
    line = "I external/local_tsl/tsl/cuda/cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used."

    def verdict(lines, context=None):
        return [(h.signature.id, h.signature.benign) for h in scan(lines, context).hits]

    # a log from elsewhere that shows nothing about a GPU: a warning that says when it matters, never an error
    assert verdict([line]) == [("no-cuda-runtime-gpu-unknown", False)]
    assert scan([line]).hits[0].signature.severity is Severity.WARNING
    oom = "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[1024]"
    assert "no-cuda-runtime-gpu-unknown" not in [h for h, _ in verdict([line, oom])]  # another error explains the log
    # a post about a failure of its own, in words that name no part of the GPU stack (circuit_training#58)
    post = ["Error while training PPO agent", "I am getting this error. I have launched reverb server.", line, ""]
    assert not [i for i, benign in verdict(post) if not benign]
    asked = ["Error: training runs on the CPU, not my GPU", "I am getting this error.", line, ""]
    assert ("cudart-stub-no-cuda-runtime", False) in verdict(asked)  # the failure said is the GPU's
    assert verdict(["Loading DLC 2.3.8...", line, line, ""]) == [("no-cuda-runtime-gpu-unknown", False)]
    assert verdict([line], ScanContext(no_gpu=True)) == [("cpu-machine-no-cuda", True)]
    assert verdict([line], ScanContext(no_gpu=False)) == [("cudart-stub-no-cuda-runtime", False)]
    for shown in (
        "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:152] failed call to cuInit: CUDA_ERROR_NO_DEVICE",
        "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |",
        "Num GPUs Available:  0",
    ):
        assert ("cudart-stub-no-cuda-runtime", False) in verdict([line, shown]), shown
    # no driver library either (TF's stand-in answers cuInit with 303): a CPU machine, unless its user asks for a GPU
    no_driver = (
        "E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:152] failed call to cuInit: UNKNOWN ERROR (303)"
    )
    assert not [i for i, benign in verdict([line, no_driver]) if not benign]
    asked = "My RTX 3060 is not used by tensorflow 2.15"
    assert ("cudart-stub-no-cuda-runtime", False) in verdict([asked, line, no_driver])
    assert scan([asked, line, no_driver]).context.gpu is GpuKnown.WANTED
    # TF 2.16+ logs the stand-in's answer inside XLA's status (TF 2.21's GPU build on a machine without a GPU, set k)
    status = (
        "E0000 00:00:1796562448.927008    4540 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: "
        "Failed call to cuInit: UNKNOWN ERROR (303)"
    )
    assert verdict([line, status]) == [("cpu-machine-no-cuda", True)]
    assert verdict([status]) == [("no-nvidia-driver-cpu-run", True)]  # with the CUDA wheels: cudart loads, cuInit fails
    assert ("cudart-stub-no-cuda-runtime", False) in verdict([asked, line, status])
    # a device that is there but hidden answers cuInit otherwise: a GPU is shown
    hidden = status.replace("UNKNOWN ERROR (303)", "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected")
    assert ("cudart-stub-no-cuda-runtime", False) in verdict([line, hidden])


def test_no_driver_at_all_is_a_cpu_run_unless_the_log_asks_for_a_gpu_or_the_program_cannot_start():
    """TF's GPU build says at every start that it found no driver; a CPU machine's log is nothing more (issue 28)."""
    no_driver = [
        "2021-08-24 10:35:40.494823: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
        "dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or "
        "directory; LD_LIBRARY_PATH: /usr/local/lib",
        "2021-08-24 10:35:40.494843: W tensorflow/stream_executor/cuda/cuda_driver.cc:269] failed call to cuInit: "
        "UNKNOWN ERROR (303)",
        "2021-08-24 10:35:40.494856: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does not "
        "appear to be running on this host (CS424460): /proc/driver/nvidia/version does not exist",
    ]
    cpu_run = scan(no_driver)
    assert cpu_run.context.gpu is GpuKnown.ABSENT
    assert [(h.signature.id, h.signature.benign) for h in cpu_run.hits] == [("no-nvidia-driver-cpu-run", True)]
    # the same lines where the writer set up CUDA, or the facts say a GPU is here: the driver is the problem
    asked = scan(["export LD_LIBRARY_PATH=/usr/local/cuda-11.2/lib64", *no_driver])
    assert asked.context.gpu is GpuKnown.WANTED and asked.hits[0].signature.id == "kernel-driver-not-running"
    assert scan(no_driver, ScanContext(no_gpu=False)).hits[0].signature.category == "driver_not_loaded"
    # a build that links libcuda does not start without it: a problem whatever the machine
    fatal = scan(["ImportError: libcuda.so.1: cannot open shared object file: No such file or directory"])
    assert [h.signature.id for h in fatal.hits if not h.signature.benign] == ["libcuda-import-failed"]


def test_a_question_about_another_makers_graphics_is_answered_as_a_cpu_machine():
    for paste in (
        "Hi, is it possible to use DeepLabCut with a non NVIDIA GPU? (we are currently using Intel (r) UHD Graphics 630)",
        "I installed tf2.4 for mac on my M1 MacBook and got [PhysicalDevice(name='/physical_device:CPU:0', "
        "device_type='CPU')]. Why is there no GPU device?",
    ):
        result = scan([paste])
        assert result.context.gpu is GpuKnown.ABSENT, paste
        assert [(h.signature.id, h.signature.benign) for h in result.hits] == [("gpu-asked-other-graphics", True)]
    assert scan(["My GeForce GTX 1080 is not detected, the laptop also has Intel UHD Graphics 630"]).context.gpu is (
        GpuKnown.WANTED
    )


def test_the_cuda_and_cudnn_a_release_was_built_for_are_compared_with_those_installed():
    """TF lists the CPU alone: with the release and the CUDA installed known, the difference is the cause."""
    listing = "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]"
    facts = ScanContext(tf_version="2.1", cuda_installed=("10.2",))  # TF 2.1 is built for CUDA 10.1
    (hit,) = [h for h in scan([listing], facts).hits if not h.signature.benign]
    assert hit.signature.id == "tf-built-for-another-cuda"
    assert (hit.groups["tf"], hit.groups["built"], hit.groups["installed"]) == ("2.1", "10.1", "10.2")
    same = ScanContext(tf_version="2.1", cuda_installed=("10.1",))
    assert "tf-built-for-another-cuda" not in {h.signature.id for h in scan([listing], same).hits}
    # Windows' table names the DLL beside the version
    windows = ScanContext(os="windows", tf_version="2.3", cuda_installed=("11.2",))
    assert scan([listing], windows).hits[0].groups["built"] == "10.1"
    # the issue template's "CUDA/cuDNN version" field, and TF's own line, are read too; a version only named is not
    assert scan(["CUDA/cuDNN version: 10.1/8.0.2.39"]).context.cudnn_installed == ("8.0",)
    assert scan(
        ["I tensorflow/stream_executor/cuda/cuda_dnn.cc:384] Loaded cuDNN version 8907"]
    ).context.cudnn_installed == ("8.9",)
    assert scan(["TF 2.3 needs cuDNN 7.6"]).context.cudnn_installed is None


def test_a_cudnn_major_never_built_for_the_cuda_installed_is_the_wrong_cuda():
    """cuDNN 7 was built for CUDA 8-10 only (cuDNN's support matrices): TF asking for it on CUDA 11 wants another CUDA."""
    missing = "W dso_loader.cc:59] Could not load dynamic library 'libcudnn.so.7'; dlerror: libcudnn.so.7: cannot open"
    runfile = "  258  sudo sh cuda_11.1.0_455.23.05_linux.run"
    result = scan([runfile, missing])
    assert result.context.cuda_installed == ("11.1",)
    assert result.hits[0].signature.id == "cudnn-major-not-built-for-cuda"
    assert (result.hits[0].groups["want"], result.hits[0].groups["installed"]) == ("7", "11.1")
    # beside a CUDA that cuDNN 7 was built for, or with nothing said of the CUDA, it is the library to install
    for said in (["Cuda compilation tools, release 10.1, V10.1.243"], []):
        assert scan([*said, missing]).hits[0].signature.id == "cudnn-not-loaded"
    # the runfile downloaded, not run, says nothing of what is installed
    assert scan(["wget https://example.invalid/cuda_11.1.0_455.23.05_linux.run"]).context.cuda_installed is None


@pytest.mark.parametrize(
    ("post", "installed", "want"),
    [
        (
            [
                "First I installed tensorflow1.4 and cuda8.0.6 and cudnn6.0. Then LD_DEBUG=libs shows:",
                "      9088:	  trying file=/usr/lib/x86_64-linux-gnu/libcudnn.so.5",
            ],
            "6.0",
            "5",
        ),
        (  # video-subtitle-extractor#48, in Chinese: cuDNN 7.6.5 installed, cudnn64_8.dll not found
            [
                "我是GTX1650 TI的显卡，按照说明装的是cuda10.1和cudnn-7.6.5，对应的库应该是cudnn64_7.dll",
                "但GPU版本报错说找不到cudnn64_8.dll, 这个肯定是没有的",
            ],
            "7.6",
            "8",
        ),
    ],
    ids=["ld-debug", "chinese-dll"],
)
def test_a_cudnn_the_poster_installed_beside_the_major_tf_looks_for_is_the_wrong_cudnn(post, installed, want):
    result = scan(post)
    assert result.context.cudnn_installed == (installed,)
    assert result.hits[0].signature.id == "cudnn-of-another-major"
    assert (result.hits[0].groups["want"], result.hits[0].groups["installed"]) == (want, installed)


def test_a_cuda_runtime_call_with_no_symbol_is_a_runtime_not_loaded_not_the_driver():
    """The stub TF calls the runtime through reports every symbol missing when no cudart of TF's CUDA was loaded."""
    line = "InternalError: cudaGetDevice() failed. Status: cudaGetErrorString symbol not found."
    assert [h.signature.category for h in scan([line]).hits] == ["missing_cuda_library"]
    other = scan([line], ScanContext(tf_version="2.0", cuda_installed=("10.1",))).hits[0]
    assert other.signature.id == "cudart-symbols-other-cuda"
    assert (other.groups["built"], other.groups["installed"]) == ("10.0", "10.1")
    # a poster's "updated my CUDA version to 10.1" is the CUDA installed
    said = scan(["I updated my CUDA version to 10.1, but it doesn't work.", line], ScanContext(tf_version="2.0"))
    assert said.hits[0].signature.id == "cudart-symbols-other-cuda"


@pytest.mark.parametrize(
    "text",
    [
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cupti64_110.dll'; dlerror: cupti64_110.dll not found",
        "On Windows it looks for the dll 'cupti64_110.dll' however Cuda Toolkit 11 installs it as 'cupti64_2020.1.0.dll'",
    ],
    ids=["tf-line", "post"],
)
def test_the_profiler_s_cupti_dll_missing_on_windows_is_cupti_not_a_cuda_library(text):
    assert scan([text]).hits[0].signature.id == "cupti-not-loaded"


def test_a_log_explained_on_a_gpu_machine_reads_no_cuda_as_the_problem(tmp_path):
    from tests.fakes.machines import gpu_machine

    from tfgpu.doctor.collect import collect_facts
    from tfgpu.explain.explain import explain_file

    facts = collect_facts(gpu_machine(tmp_path).sources(), tfgpu_version="test")  # an H200 here
    log = tmp_path / "train.log"
    log.write_text(
        "I external/local_tsl/tsl/cuda/cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.\n"
    )
    stdin = io.StringIO()
    assert [p.id for p in explain_file(str(log), stdin, lambda: facts).problems] == ["cudart-stub-no-cuda-runtime"]
    assert [p.id for p in explain_file(str(log), stdin, lambda: None).problems] == ["no-cuda-runtime-gpu-unknown"]


@pytest.mark.parametrize(
    "split",
    [
        ("Loaded runtime CuDNN library: 8.0.5 but source was", "compiled with: 8.1.0.  CuDNN library needs to have"),
        ("Loaded runtime CuDNN library: 8.0.5 but source was comp", "iled with: 8.1.0.  CuDNN library needs to have"),
    ],
    ids=["at-a-blank", "mid-word"],
)
def test_a_log_record_broken_across_two_lines_is_read_whole(split):
    first, rest = split
    record = "2021-03-01 10:00:00.000000: E tensorflow/stream_executor/cuda/cuda_dnn.cc:359] " + first
    hits = scan([record, rest]).hits
    assert [h.signature.id for h in hits] == ["cudnn-version-mismatch"]  # the E-level fallback gave way
    assert (hits[0].groups["have"], hits[0].groups["want"]) == ("8.0.5", "8.1.0")
    # a message a terminal wrapped and indented, outside TF's record prefix, is read whole too
    wrapped = scan(["Loaded runtime CuDNN library: 7.3.1 but source was", "    compiled with: 7.4.2.  CuDNN library"])
    assert [h.signature.id for h in wrapped.hits] == ["cudnn-version-mismatch"]
    # a line that starts a record of its own is not a continuation
    assert "cudnn-version-mismatch" not in [
        h.signature.id for h in scan([record, "2021-03-01 10:00:01.0: " + rest]).hits
    ]


@pytest.mark.parametrize(
    "shown",
    [
        "dlerror: libcudart.so.10.0: cannot open shared object file; LD_LIBRARY_PATH: /usr/local/cuda-10.1/lib64",
        "Cuda compilation tools, release 10.1, V10.1.243",
    ],
    ids=["library-path", "nvcc"],
)
def test_a_cuda_the_log_shows_installed_makes_a_missing_soname_the_wrong_cuda(shown):
    missing = "W dso_loader.cc:55] Could not load dynamic library 'libcudart.so.10.0'; dlerror: libcudart.so.10.0: cannot open shared object file"
    assert scan([missing]).hits[0].signature.id != "cuda-runtime-of-another-version"  # nothing says what is installed
    hits = scan([missing, shown]).hits
    assert hits[0].signature.id == "cuda-runtime-of-another-version"
    assert scan([missing, shown]).context.cuda_installed == ("10.1",)


@pytest.mark.parametrize(
    ("library", "tf", "installed", "category"),
    [
        ("libcusolver.so.11", "2.5", "11.0", "wrong_cuda_version_installed"),  # 11.0 ships .so.10 (pub-2512)
        ("libcusolver.so.11", "2.5", "11.2", "missing_cuda_library"),
        ("libcufft.so.10", "2.5", "11.2", "missing_cuda_library"),  # CUDA 11's cuFFT is 10.x
        ("libcufft.so.10", "2.5", "12.3", "wrong_cuda_version_installed"),  # CUDA 12's is 11.x
        ("libcublas.so.10", "2.1", "10.0", "wrong_cuda_version_installed"),  # the minor left the soname in 10.1
        ("libcublas.so.10", "2.1", "10.2", "missing_cuda_library"),
    ],
)
def test_a_math_library_s_soname_is_compared_with_what_the_cuda_installed_ships(library, tf, installed, category):
    """A math library's soname is its own major from CUDA 11 and CUDA's major from 10.1 (TF's cuda_configure.bzl).

    A CUDA that ships the soname makes the library missing; one that does not is the wrong CUDA.
    """
    line = f"W dso_loader.cc:64] Could not load dynamic library '{library}'; dlerror: {library}: cannot open shared object file"
    result = scan([line], ScanContext(tf_version=tf, cuda_installed=(installed,)))
    assert result.hits[0].signature.category == category


@pytest.mark.parametrize("newest", ["11.8", "12.9"])
def test_the_soname_table_agrees_with_the_libraries_the_doctor_checks(newest):
    """Two tables state the math libraries' sonames: cuda_sonames.csv by CUDA release (explain), libraries.py by
    the CUDA major TF is built for (the doctor). A build for a major links the sonames of its newest release."""
    math = [
        w for w in wanted_libraries(newest, None) if w.name in ("cublas", "cufft", "curand", "cusolver", "cusparse")
    ]
    assert math
    for wanted in math:
        assert library_sonames(wanted.name, newest) == {wanted.soname.rsplit(".so.", 1)[1]}, wanted.soname


FACT_FIELDS = set(fix_values(None, None))
"""Template fields explain fills from the facts or the log (explain.fix_values); every other field is a pattern's group."""


@pytest.mark.parametrize("signature", [s for s in SIGNATURES if not s.fallback], ids=lambda s: s.id)
def test_every_pattern_fills_every_field_its_signature_prints(signature: Signature):
    """A pattern without a group the title, cause or fix names would print a raw '{cc}' to the user."""
    import string

    fields = (
        {
            name
            for text in (signature.title, signature.cause, signature.fix)
            for _, name, _, _ in string.Formatter().parse(text)
            if name
        }
        - FACT_FIELDS
        - told_fields(signature)
    )
    for pattern in signature.patterns:
        assert fields <= set(pattern.groupindex), (signature.id, pattern.pattern, fields - set(pattern.groupindex))


@pytest.mark.parametrize(
    ("handle", "held_id", "own_id"),
    [
        # set e: a Keras CNN's first step
        (
            "E0000 00:00:1796551257.035837    1243 cuda_dnn.cc:466] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
            "cudnn-handle-gpu-held-at-start",
            "cudnn-handle-internal-error",
        ),
        # set f: an eager matmul
        (
            "E0000 00:00:1796552368.075274    1157 cuda_blas.cc:196] failed to create cublas handle: the resource allocation failed",
            "cublas-handle-gpu-held-at-start",
            "cublas-unavailable",
        ),
    ],
)
def test_a_library_handle_that_fails_on_a_gpu_others_held_at_start_is_their_memory_not_tfs(handle, held_id, own_id):
    """GPU fault sets e and f: with another process holding all but 640 MiB of the H100, TF 2.21 made a 116 MB device
    and cuDNN's or cuBLAS's handle could not be created; memory growth (the usual fix) cannot help when the memory is
    not TF's. Where TF took the whole GPU itself, its own reservation starved the library."""
    device = (
        "I0000 00:00:1796551255.249578    1151 gpu_device.cc:2043] Created device /job:localhost/replica:0/task:0/"
        "device:GPU:0 with {mb} MB memory:  -> device: 0, name: NVIDIA H100 80GB HBM3, pci bus id: 0000:00:06.0"
    )
    held = scan([device.format(mb=116), handle]).hits[0].signature
    assert held.id == held_id
    assert "nvidia-smi" in held.fix
    assert scan([device.format(mb=78752), handle]).hits[0].signature.id == own_id


def test_cudnn_that_would_not_start_with_its_reason_silenced_says_the_reason_is_not_shown():
    """GPU fault set g: with TF_CPP_MIN_LOG_LEVEL=3 only Python's 'DNN library initialization failed' remained."""
    alone = scan(["DNN library initialization failed. Look at the errors above for more details."])
    assert [h.signature.id for h in alone.hits] == ["dnn-init-failed-reason-not-shown"]
    with_reason = scan(
        [
            "E0000 cuda_dnn.cc:466] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
            "W0000 op_kernel.cc:1858] OP_REQUIRES failed at xla_ops.cc:602 : FAILED_PRECONDITION: DNN library initialization failed. Look at the errors above for more details.",
        ]
    )
    ids = [h.signature.id for h in with_reason.hits]
    assert ids[0] == "cudnn-handle-internal-error" and "dnn-init-failed-reason-not-shown" not in ids


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: `tf.data.Dataset` only supports Python-style iteration in eager mode or within tf.function.",
        "RuntimeError: __iter__() is only supported inside of tf.function or when eager execution is enabled.",
    ],
)
def test_a_dataset_iterated_with_eager_execution_off_is_tf1_code_in_tf2(line):
    """GPU fault set g: tf.compat.v1.disable_eager_execution() before a Keras 3 fit (adriangb/scikeras#333)."""
    assert scan([line]).hits[0].signature.id == "dataset-iterated-without-eager"


@pytest.mark.parametrize(
    ("lines", "signature"),
    [
        (["E0000 grpc_server_lib.cc:618] UNKNOWN: Could not start gRPC server"], "grpc-server-port-unavailable"),
        (
            ["I0000 coordination_service.cc:502] Waiting for 1/2 tasks to connect.", "/job:worker/replica:0/task:1"],
            "coordination-waiting-for-workers",
        ),
        (["RuntimeError: Op type not registered 'CaseFoldUTF8' in binary running on vm."], "op-type-not-registered"),
        (
            ["NotFoundError: Op type not registered 'SentencepieceOp' in binary running on 42c9348a7da5."],
            "op-type-not-registered",
        ),
    ],
)
def test_set_h_multi_worker_and_unregistered_op_messages_are_named(lines, signature):
    """GPU fault set h: a worker whose port was taken, a peer that never came, a SavedModel with TensorFlow Text's op."""
    assert scan(lines).hits[0].signature.id == signature


def test_xla_autotuning_that_fails_only_at_full_float32_says_tf32_was_turned_off():
    """GPU fault set h: the Keras CNN trained with TF32 on and failed in XLA's conv autotuner with it off (H100, TF 2.21)."""
    head = "INTERNAL: Autotuner could not find any supported configs for HLO: %cudnn-conv-bias-activation.3 = (f32[128,26,26,32]{3,2,1,0}, u8[0]{0}) custom-call(%arg0.1, %transpose), window={size=3x3}"
    assert (
        scan([head + ", operand_precision={highest,highest}"]).hits[0].signature.id
        == "xla-autotuner-no-config-full-fp32"
    )
    assert scan([head]).hits[0].signature.id == "xla-autotuner-no-config"


@pytest.mark.parametrize(
    ("line", "signature"),
    [
        (
            "Input 'y' of 'AddV2' Op has type float32 that does not match type float16 of argument 'x'.",
            "mixed-precision-dtype-mismatch",
        ),
        (
            "cannot compute MatMul as input #1(zero-based) was expected to be a half tensor but is a float tensor [Op:MatMul]",
            "mixed-precision-dtype-mismatch",
        ),
        ("ValueError: Argument(s) not recognized: {'lr': 0.001}", "keras3-optimizer-keras2-argument"),
        ("ValueError: Argument(s) not recognized: {'decay': 1e-06}", "keras3-optimizer-keras2-argument"),
    ],
)
def test_set_i_mixed_precision_and_keras_2_optimizer_arguments_are_named(line, signature):
    """GPU fault set i: a float32 constant in a mixed_float16 layer; Keras 2's lr under Keras 3."""
    assert scan([line]).hits[0].signature.id == signature


def test_a_float64_against_float32_mismatch_is_not_called_mixed_precision():
    line = "Input 'y' of 'AddV2' Op has type float64 that does not match type float32 of argument 'x'."
    assert "mixed-precision-dtype-mismatch" not in [h.signature.id for h in scan([line]).hits]


@pytest.mark.parametrize(
    ("line", "signature", "flag"),
    [
        (
            "F0000 parse_flags_from_env.cc:234] Unknown flag in XLA_FLAGS: --xla_gpu_autotune_levell=2",
            "xla-flag-unknown",
            "--xla_gpu_autotune_levell",
        ),
        (
            "F0621 parse_flags_from_env.cc:234] Unknown flags in XLA_FLAGS: --xla_gpu_enable_triton_softmax=false --xla_gpu_x=1",
            "xla-flag-unknown",
            "--xla_gpu_enable_triton_softmax",
        ),
        (
            "F0000 parse_flags_from_env.cc:234] Unknown flag in TF_XLA_FLAGS: --xla_gpu_cuda_data_dir=/usr/local/cuda",
            "xla-flag-in-other-variable",
            "--xla_gpu_cuda_data_dir",
        ),
        (
            "Unknown flags in XLA_FLAGS: --xla_dump_to=/tmp --tf_xla_auto_jit=2",
            "xla-flag-in-other-variable",
            "--tf_xla_auto_jit",
        ),
        ("Unknown flag in TF_XLA_FLAGS: --tf_xla_auto_jitt=2", "xla-flag-unknown", "--tf_xla_auto_jitt"),
    ],
)
def test_an_unknown_xla_flag_is_named_and_a_flag_in_the_other_variable_is_moved(line, signature, flag):
    """GPU fault set f: TF 2.21 stops at start on a flag XLA_FLAGS or TF_XLA_FLAGS does not know."""
    hit = scan([line]).hits[0]
    assert (hit.signature.id, hit.groups["flag"]) == (signature, flag)


@pytest.mark.parametrize(
    ("lines", "signature"),
    [
        (
            [
                "WARNING:tensorflow:Your environment has TF_USE_LEGACY_KERAS set to True, but you do not have the tf_keras package installed.",
                "ImportError: Keras cannot be imported. Check that it is installed.",
            ],
            ["legacy-keras-package-missing"],
        ),
        (["ImportError: Keras cannot be imported. Check that it is installed."], ["keras-cannot-be-imported"]),
    ],
)
def test_tf_keras_that_cannot_load_says_which_keras_is_missing(lines, signature):
    """TF's lazy_loader.py: TF_USE_LEGACY_KERAS without tf_keras logs a warning before the ImportError (set f)."""
    result = scan(lines)
    assert [h.signature.id for h in result.hits if result.severity(h) is Severity.ERROR] == signature


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            "tensorflow.python.framework.errors_impl.InternalError: cudaSetDevice() on GPU:0 failed. Status: out of memory",
            "oom_gpu_busy",
        ),
        # the same call failing for another reason is not a busy GPU
        (
            "InternalError: cudaSetDevice() on GPU:0 failed. Status: all CUDA-capable devices are busy or unavailable",
            "gpu_exclusive_process_busy",
        ),
    ],
)
def test_a_cuda_context_that_finds_no_memory_is_a_gpu_others_hold(line, category):
    assert scan([line]).hits[0].signature.category == category


@pytest.mark.parametrize(
    ("line", "named"),
    [
        (
            "assertion failed: [You are passing a RNN mask that does not correspond to right-padded sequences, while using cuDNN, which is not supported.",
            True,
        ),
        ("Layer lstm will use cuDNN kernels when running on GPU.", False),
    ],
)
def test_keras_refusing_a_mask_cudnn_cannot_take_is_named(line, named):
    """Keras's check in keras/src/backend/tensorflow/rnn.py, recorded on the GPU (set e: pre-padded and empty sequences)."""
    assert ("rnn-mask-not-right-padded" in [h.signature.id for h in scan([line]).hits]) is named


def test_out_of_memory_on_a_gpu_others_held_at_start_is_theirs():
    # TF 1.0's device line (tensorflow#8170): 190 MiB of 7.92 GiB free when TF started
    start = [
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:885] Found device 0 with properties: ",
        "name: GeForce GTX 1080",
        "Total memory: 7.92GiB",
        "Free memory: 190.31MiB",
    ]
    oom = "E tensorflow/stream_executor/cuda/cuda_driver.cc:1002] failed to allocate 190.31M (199557120 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY"
    held = scan([*start, oom])
    assert held.context.gpu_held and held.hits[0].signature.id == "oom-gpu-held-at-start"
    # TF 1.5+'s one-line form with the GPU free at start: the batch's own out-of-memory
    free = scan(["totalMemory: 7.93GiB freeMemory: 7.40GiB", oom])
    assert not free.context.gpu_held and free.hits[0].signature.id == "cuda-out-of-memory"


def test_a_short_paste_in_other_words_is_read_by_its_words():
    # the words of the launch-timeout message in another sentence, as a title or a summary puts them
    (hit,) = scan(["CUDA error: the launch was terminated because it timed out"]).hits
    assert hit.signature.id == "launch-timeout-watchdog" and hit.reading is Reading.BY_WORDS


def test_words_are_not_read_where_a_message_matched_or_in_a_long_log():
    matched = scan(["CUDA_ERROR_LAUNCH_TIMEOUT: the launch timed out and was terminated"]).hits
    assert matched and all(h.reading is Reading.AS_WRITTEN for h in matched)
    # the same words on line 5 of a log are not a pasted title: nothing is read from them
    long_log = ["Epoch 1/3", "step 1", "step 2", "step 3", "kernel launch timed out and terminated"]
    assert all(h.reading is Reading.AS_WRITTEN for h in scan(long_log).hits)


def test_a_harmless_line_is_never_read_as_a_problem_by_its_words_or_by_resemblance():
    for signature in [s for s in SIGNATURES if s.benign]:
        hits = scan(signature.examples[:1], CONTEXT.get(signature.id)).hits
        assert not [h.signature.id for h in hits if h.reading is not Reading.AS_WRITTEN], signature.id


def test_a_short_paste_is_read_by_a_term_only_one_problem_prints():
    # NCCL's shared-memory failure, named by its call in a sentence of the poster's own
    (hit,) = scan(["posix_fallocate failed inside my docker container"]).hits
    assert hit.signature.id == "nccl-shared-memory-exhausted" and hit.reading is Reading.BY_WORDS


def test_terms_are_identifiers_and_pairs_of_naming_words_not_a_setups_words_or_a_negation():
    assert {"cudnn_status_not_initialized", "cudnnrnnforwardtraining", "illegal instruction"} <= terms(
        "CUDNN_STATUS_NOT_INITIALIZED in cudnnRNNForwardTraining: illegal instruction"
    )
    assert not terms("| NVIDIA-SMI 410.78       Driver Version: 410.78       CUDA Version: 10.0     |")
    # "aren't available" and "are available" must not share a term that names one of them
    avx = terms(
        "The TensorFlow library was compiled to use AVX instructions, but these aren't available on your machine"
    )
    sse = terms(
        "The TensorFlow library wasn't compiled to use SSE instructions, but these are available on your machine"
    )
    assert not (avx & sse) & set(term_index(SIGNATURES))


def test_a_term_names_a_problem_only_when_no_other_category_prints_it():
    index = term_index(SIGNATURES)
    for term, owner in index.items():
        others = [
            s.id
            for s in SIGNATURES
            if s.category != SIGNATURES[owner].category and any(term in terms(e) for e in s.examples)
        ]
        assert not others, (term, others)


def test_driver_versions_the_log_reports_are_compared_not_read_as_words():
    cuinit = "E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to cuInit: CUDA_ERROR_NO_DEVICE"
    libcuda = "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:189] libcuda reported version is: 384.111.0"
    differ = scan([cuinit, libcuda, "I cuda_diagnostics.cc:193] kernel reported version is: 384.90.0"])
    assert differ.context.driver_differs and differ.hits[0].signature.id == "driver-reported-versions-differ"
    same = scan([cuinit, libcuda, "I cuda_diagnostics.cc:193] kernel reported version is: 384.111"])
    assert same.context.driver_differs is False and [h.signature.id for h in same.hits] == ["cuinit-no-device"]


def test_tensor_cores_come_from_the_capability_tf_prints_or_the_gpu_a_paste_names():
    device = "name: NVIDIA GeForce GTX 1660 Ti, pci bus id: 0000:01:00.0, compute capability: 7.5"
    assert scan([*["Epoch 1/3"] * 4, device]).context.tensor_cores is False  # Turing without Tensor Cores
    assert scan([*["Epoch 1/3"] * 4, "major: 8 minor: 6 memoryClockRate(GHz): 1.695"]).context.tensor_cores is True
    said = scan(["mixed_float16 makes my Tesla P40 slower than float32"])
    assert said.context.tensor_cores is False
    assert said.hits[0].signature.id == "mixed-precision-said-no-tensor-cores"
    assert not scan(["mixed_float16 is slow on my GeForce RTX 3090"]).hits


def test_a_paste_is_read_again_where_the_message_it_matched_does_not_hold_or_is_harmless():
    # TF's out-of-memory "held at start" needs a start-up line showing the GPU full; a paste has none
    (oom,) = scan(["after 17825 steps it says: ran out of memory trying to allocate 4.42GiB"]).hits
    assert oom.signature.category == "oom" and not oom.signature.benign
    # TensorRT's missing library is harmless, unless the poster says they use TF-TRT
    (trt,) = scan(["Tensorflow TensorRT: Could not load dynamic library 'libnvinfer.so.5'"]).hits
    assert trt.signature.id == "tensorrt-missing-said"
    assert [h.signature.benign for h in scan(["Could not load dynamic library 'libnvinfer.so.7'"]).hits] == [True]


def test_graphics_of_another_maker_named_where_no_nvidia_gpu_is_mean_no_gpu_here():
    cuinit = "tf-nightly-gpu 1.14.1 failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error"
    intel = scan([cuinit, "the GPU is Intel (R) UHD Graphics 620, and the tf-nightly-gpu is installed."])
    assert intel.context.gpu is GpuKnown.ABSENT
    assert [(h.signature.id, h.signature.benign) for h in intel.hits] == [("cuinit-failed-other-graphics", True)]
    # a laptop's Intel graphics beside the NVIDIA GPU TF names: the GPU is there
    both = scan([cuinit, "Intel(R) UHD Graphics 630 and an NVIDIA GeForce GTX 1650"])
    assert both.context.gpu is GpuKnown.PRESENT and both.hits[0].signature.id == "cuinit-unknown-error"


def test_a_post_naming_a_tf_release_and_another_cuda_that_sees_no_gpu_is_the_wrong_cuda():
    """TF 1.14 is built for CUDA 10.0 (tensorflow.org's tested build configurations); its own CUDA is no mismatch."""
    result = scan(["TF version 1.14 with cuda 10.1 - GPU not detected", "", ""])
    assert result.context.tf_version == "1.14" and result.context.cuda_installed == ("10.1",)
    assert result.hits[0].signature.id == "tf-built-for-another-cuda"
    assert scan(["tensorflow 1.14 with cuda 10.0 - GPU not detected", "", ""]).hits[0].signature.id == "no-gpu-visible"


@pytest.mark.parametrize(
    ("named", "tf"),
    [
        ("Ubuntu 20.04 CUDA 11.0 tfjs-node-gpu 2.0.1 Could not load dynamic library Error", "1.15.0"),
        ("@tensorflow/tfjs-node-gpu@1.4.0", "1.14.0"),
        ('    "@tensorflow/tfjs-node-gpu": "^3.8.0",', "2.5.0"),
        ("tfjs-node-gpu version 4.22.0", "2.9.1"),
    ],
)
def test_a_tfjs_node_release_is_read_as_the_tensorflow_release_it_runs(named, tf):
    """tfjs-node-gpu downloads one TF C library per release (its install script); that TF decides the CUDA it needs."""
    assert scan([named, "i installed CUDA 11 on Ubuntu 20"]).context.tf_version == tf


def test_tensorflow_js_version_counts_only_where_tfjs_node_is_named():
    template = "TensorFlow.js version: 3.4.0"
    assert scan([template, "const tf = require('@tensorflow/tfjs-node-gpu');"]).context.tf_version == "2.4.1"
    assert scan([template, "the browser build renders nothing"]).context.tf_version is None


def test_tfjs_node_gpu_on_another_cuda_is_the_wrong_cuda_and_its_own_cuda_is_not():
    """tfjs-node-gpu 2.0.1 runs TF 1.15, built for CUDA 10.0: CUDA 11 installed is the mismatch, 10.0 is none."""
    log = ["tfjs-node-gpu 2.0.1: Could not load dynamic library Error, Skipping registering GPU devices"]
    other = scan([*log, "I installed CUDA 11 on Ubuntu 20.04"])
    assert other.hits[0].signature.id == "tf-built-for-another-cuda"
    assert other.context.cuda_installed == ("11",)
    same = scan([*log, "I installed CUDA 10.0 on Ubuntu 18.04"])
    assert "tf-built-for-another-cuda" not in {h.signature.id for h in same.hits}


def test_out_of_memory_is_the_busy_gpu_only_where_the_trace_says_a_context_was_being_created():
    error = "jcuda.CudaException: CUDA_ERROR_OUT_OF_MEMORY"
    busy = scan([error, "    at jcuda.driver.JCudaDriver.cuCtxCreate(JCudaDriver.java:1514)"])
    assert busy.hits[0].signature.id == "context-creation-oom-in-trace"
    later = scan([error, "    at jcuda.driver.JCudaDriver.cuMemAlloc(JCudaDriver.java:2410)"])
    assert "context-creation-oom-in-trace" not in {h.signature.id for h in later.hits}


@pytest.mark.parametrize(
    "said", ["I ran out of resource using the sample after the 120th epoch", "报错 CUDA_ERROE_OUT_OF_MEMORY"]
)
def test_a_post_that_says_it_ran_out_of_resources_or_types_the_cuda_error_by_hand_is_out_of_memory(said):
    assert scan([said]).hits[0].signature.id == "resource-exhausted"


def test_tfs_missing_cudart_record_in_a_longer_log_that_shows_no_gpu_is_a_cpu_runs_note():
    record = (
        "2022-06-22 15:44:53.578885: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
        "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
    )
    longer = scan(["cudart64_110.dll not found", "Got the following error:", "", record, "", "Any thoughts on why?"])
    assert [h.signature.id for h in longer.hits] == ["cudart-missing-nothing-shows-gpu"]
    alone = scan([record])
    assert alone.hits[0].signature.id == "cudart-dll-not-found" and alone.severity(alone.hits[0]) is Severity.WARNING
    asked = scan(["My RTX 3060 is not used:", "", record, "", "", ""])
    assert "cudart-missing-nothing-shows-gpu" not in {h.signature.id for h in asked.hits}


def test_a_cudnn_handle_failure_under_a_cudnn_older_than_the_build_is_the_cudnn_version():
    """TF 1.2 was built with cuDNN 5.1 (tested build configurations): 5.0 fails, 5.1 is no mismatch."""
    line = (
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:359] could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"
    )
    older = scan([line], ScanContext(tf_version="1.2", cudnn_installed=("5.0",)))
    assert older.hits[0].signature.id == "dnn-init-failed-cudnn-older-than-build"
    same = scan([line], ScanContext(tf_version="1.2", cudnn_installed=("5.1",)))
    assert "dnn-init-failed-cudnn-older-than-build" not in {h.signature.id for h in same.hits}


def test_a_gpu_image_run_without_the_gpu_is_the_container_only_where_the_log_shows_no_gpu():
    failed = "Num GPUs Available:  0"
    plain = scan(["docker run -it -p 8888:8888 tensorflow/tensorflow:latest-gpu", failed])
    assert plain.hits[0].signature.id == "gpu-image-run-without-gpu-runtime"
    for asked in (
        "docker run --gpus all -it tensorflow/tensorflow:latest-gpu",
        "nvidia-docker run -it tensorflow/tensorflow:latest-gpu",
    ):
        assert "gpu-image-run-without-gpu-runtime" not in {h.signature.id for h in scan([asked, failed]).hits}
    quiet = scan(["docker run -it -p 8888:8888 tensorflow/tensorflow:latest-gpu", "Epoch 1/10 - loss: 0.3"])
    assert "gpu-image-run-without-gpu-runtime" not in {h.signature.id for h in quiet.hits}


def test_a_line_tf_printed_at_info_level_is_not_read_as_a_complaint_to_resemble():
    xla = (
        "1. I tensorflow/compiler/jit/xla_cpu_device.cc:41] Not creating XLA devices, tf_xla_enable_xla_devices not set"
    )
    onednn = "2. I tensorflow/core/platform/cpu_feature_guard.cc:142] This TensorFlow binary is optimized with oneAPI"
    assert not [h for h in scan([xla, onednn]).hits if not h.signature.benign]


@pytest.mark.parametrize(
    "said",
    [
        "tensorflow 1.4 with cuda 7.5 installed:",
        "I installed cuda 7.5 and set the path.",
        "I have only Cuda 7.5",
        "I updated my CUDA version to 7.5",
        "  258  sudo sh cuda_7.5.18_linux.run",
        "Installed CUDA 7.5 from NVIDIA's site",
        "I'm using tensorflow 1.4 and CUDA 7.5",  # a TF release named with the CUDA beside it
        "TF version 1.4, CUDA 7.5, cuDNN 6",
    ],
)
def test_a_cuda_version_the_poster_says_is_installed_is_compared_with_the_one_tf_asks_for(said):
    missing = "importerror: libcudart.so.8.0: cannot open shared object file"
    result = scan([said, missing])
    assert result.context.cuda_installed == ("7.5",)
    assert result.hits[0].signature.id == "cuda-runtime-of-another-version"
    # a version the poster asks about installing, or installed once, is not the one installed now
    for not_now in ("Should I install cuda 8.0?", "I had cuda 8.0 installed before"):
        assert scan([said, not_now, missing]).context.cuda_installed == ("7.5",)


def test_nvidia_smi_missing_is_the_gpu_runtime_in_a_container_and_the_driver_on_a_host():
    assert scan(["bash: nvidia-smi: command not found"], ScanContext(container=True)).hits[0].signature.id == (
        "nvidia-smi-missing-in-container"
    )
    assert scan(["bash: nvidia-smi: command not found"]).hits[0].signature.id == "nvidia-smi-missing"


def test_a_report_s_own_words_confirm_a_cause_the_facts_show_but_never_outrank_tf_s_lines():
    """A template's fields and the poster's sentence, in a log longer than a paste (``said_in_post``)."""
    report = [
        "### Tensorflow Version",
        "2.12.0",
        "### OS Platform and Distribution",
        "Windows 10",
        "`gpus = tf.config.list_physical_devices('GPU')`",
        "_This piece of code return empty array_",
    ]
    assert scan(report, ScanContext(os="windows", tf_version="2.12")).hits[0].signature.id == "windows-native-no-gpu"
    # the same words where the facts show no cause name the symptom alone, never a cause
    told = [
        h.signature for h in scan(report, ScanContext(os="linux", tf_version="2.12")).hits if not h.signature.benign
    ]
    assert [(s.id, s.only_alone) for s in told] == [("no-gpu-visible", True)]
    # and not where TF's own lines show it made a GPU device: that GPU is idle, not unseen
    created = "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1900] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 22290 MB memory"
    assert not [
        h for h in scan([*report, created], ScanContext(os="linux", tf_version="2.12")).hits if not h.signature.benign
    ]
    # TF's own line names the problem: the words are not read over it
    missing = "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cublas64_11.dll'"
    facts = ScanContext(os="windows", tf_version="2.13", cuda_installed=("12.5",))
    assert "windows-native-no-gpu" not in {h.signature.id for h in scan([*report, missing], facts).hits}
    # a TF release built for another CUDA than the one installed, told in words
    said = ["- TensorFlow version: 1.11.0", "- CUDA/cuDNN version: 10", "I'm getting a error GPU is not avalable"]
    hit = scan([*said, "tensorflow-gpu 1.11.0"], ScanContext(os="windows", tf_version="1.11", cuda_installed=("10",)))
    assert hit.hits[0].signature.id == "tf-built-for-another-cuda" and hit.hits[0].groups["built"] == "9.0"


def test_tensorrt_asked_for_in_the_poster_s_words_makes_its_missing_library_a_problem():
    load = "Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file"
    assert scan([load]).hits and all(h.signature.benign for h in scan([load]).hits)  # alone, TRT's load is harmless
    said = ["According to tensorflow I should be installing tensorrt=7.2.2", "i get this warning", load, load]
    assert scan(said).hits[0].signature.id == "tensorrt-missing-said"
    # TF's own advice to install TensorRT is not the poster's intent
    advice = (
        "Cannot dlopen some TensorRT libraries. If you would like to use Nvidia GPU with TensorRT, please make sure "
        "the missing libraries mentioned above are installed properly."
    )
    assert all(h.signature.benign for h in scan(["It works, but:", advice, load, load]).hits)


def test_a_library_tensorrt_needs_is_tensorrt_s_failure_not_a_missing_cuda_library():
    plugin = (
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library "
        "'libnvinfer_plugin.so.6'; dlerror: libnvrtc.so.10.1: cannot open shared object file: No such file or directory"
    )
    hits = scan([plugin], ScanContext(no_gpu=False)).hits
    assert hits and all(h.signature.benign for h in hits)
    # outside TF's loader line the same file is a CUDA library the program could not open
    assert (
        scan(["ImportError: libnvrtc.so.10.1: cannot open shared object file"], ScanContext(no_gpu=False))
        .hits[0]
        .signature.id
        == "cuda-library-not-loaded"
    )


def test_a_crash_on_a_gpu_the_build_s_cuda_predates_is_the_missing_kernels_not_a_slow_jit():
    # TF 1.10 is a CUDA 9.0 build and an RTX 2080 Ti is Turing: CUDA 9's libraries cannot run on it
    report = ["Tensorflow segmentation fault with RTX2080Ti", "- TensorFlow version: 1.10.1", "details", "more"]
    result = scan(report)
    assert result.context.gpu_cc == (7, 5)  # the model as people run it together
    hit = result.hits[0]
    assert hit.signature.id == "build-predates-gpu-crash"
    assert (hit.groups["built"], hit.groups["first"]) == ("9.0", "10.0")
    # TF 1.13 is a CUDA 10.0 build, which targets Turing: the crash is not the build's age
    newer = ["Tensorflow segmentation fault with RTX2080Ti", "- TensorFlow version: 1.13.1", "details", "more"]
    assert "build-predates-gpu-crash" not in {h.signature.id for h in scan(newer).hits}
    # CUDA 11.0's libraries serve compute capability 8.6 through their 8.0 kernels
    assert not build_predates_gpu(ScanContext(tf_version="2.4", gpu_cc=(8, 6)))


def test_an_issue_form_s_headings_and_unanswered_fields_do_not_ask_for_a_gpu():
    """TF's issue form names CUDA and the GPU in every report: a CPU run's report about something else asks for none."""
    form = ["### TensorFlow version", "2.16.1", "### CUDA/cuDNN version", "_No response_", "### GPU model and memory"]
    notice = "I external/local_tsl/tsl/cuda/cudart_stub.cc:32] Could not find cuda drivers on your machine, GPU will not be used."
    cpu_run = scan([*form, "_No response_", "model.predict returns NaN after loading the saved model", notice])
    assert cpu_run.context.gpu is GpuKnown.UNKNOWN
    assert [(h.signature.id, cpu_run.severity(h)) for h in cpu_run.hits] == [
        ("no-cuda-runtime-gpu-unknown", Severity.WARNING)
    ]
    # the form's answers are the writer's: a GPU named under its heading, or a field answered, asks for one
    assert scan([*form, "RTX 3090 24GB", "model.predict returns NaN", notice]).context.gpu is GpuKnown.WANTED
    assert scan(["- CUDA/cuDNN version: 11.2/8.1", "model.predict returns NaN", notice]).context.gpu is GpuKnown.WANTED


@pytest.mark.parametrize(
    ("line", "release"),
    [
        ("  Using cached tensorflow_gpu-1.3.0-cp35-cp35m-win_amd64.whl", "1.3"),  # rstudio/tensorflow#175
        ("Successfully installed tensorflow_gpu-2.3.0-cp38-cp38-manylinux2010_x86_64.whl", "2.3"),
        ("Downloading tensorflow-2.16.1-cp311-cp311-manylinux_2_17_x86_64.whl (589.8 MB)", "2.16"),
    ],
)
def test_a_wheel_s_file_name_gives_the_tf_release_pep_427_writes_with_an_underscore(line, release):
    assert scan(["pip install failed me", line, "", ""]).context.tf_version == release


def test_the_issue_form_gives_the_tf_release_under_its_heading_and_versions_explain_an_empty_gpu_list():
    report = ["GPU not detected", "### TensorFlow version", "", "2.10", "", "### CUDA/cuDNN version", "", "CUDA 12.5"]
    result = scan([*report, "print(tf.config.list_physical_devices('GPU'))", "[]"])
    assert (result.context.tf_version, result.context.cuda_installed) == ("2.10", ("12.5",))
    # the empty list is a symptom; TF 2.10 built for CUDA 11.2 beside CUDA 12.5 is its cause
    assert result.hits[0].signature.id == "tf-built-for-another-cuda"
    # with versions that fit, the symptom is all there is to tell
    fitting = ["GPU not detected", "### TensorFlow version", "", "2.10", "", "### CUDA/cuDNN version", "", "CUDA 11.2"]
    assert scan([*fitting, "[]"]).hits[0].signature.category == "no_gpu_visible"


def test_versions_that_conflict_tell_the_cause_where_no_line_names_a_problem_and_say_so():
    # tensorflow#76038: the issue form's versions and a question, no symptom printed
    post = [
        "GPU use",
        "TensorFlow version: 2.10",
        "CUDA/cuDNN version: 12.5/9.2.1",
        "i successfully setup cuda and able to use GPU in WSL, but how do i use it on my windows Conda Environment",
    ]
    (hit,) = scan(post).hits
    assert (hit.signature.id, hit.reading) == ("tf-built-for-another-cuda", Reading.BY_VERSIONS)
    assert [n for n, _ in hit.quotes] == [2, 3]  # the lines that state the versions
    assert (hit.groups["tf"], hit.groups["built"], hit.groups["installed"]) == ("2.10", "11.2", "12.5")
    explained = explain_lines(post).problems[0]
    assert explained.reading is Reading.BY_VERSIONS and "no line shows the failure itself" in explained.cause
    # versions that fit tell nothing; nor do conflicting ones where TF made its GPU device or the GPU is not asked for
    assert not scan([*post[:2], "CUDA/cuDNN version: 11.2/8.1", post[3]]).hits
    created = "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1616] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 6000 MB memory"
    assert all(h.reading is not Reading.BY_VERSIONS for h in scan([*post, created]).hits)
    assert not scan(
        ["TensorFlow version: 2.10", "CUDA/cuDNN version: 12.5/9.2.1", "the loss diverges after epoch 3"]
    ).hits
    # a report form states its versions and GPU whatever the report is about
    form = ["TensorFlow version: 2.10", "CUDA/cuDNN version: 12.5/9.2.1", "GPU model and memory: RTX 3090, 24 GB"]
    assert not scan([*form, "model.fit gives a different loss on each run"]).hits
    assert not [
        h
        for h in scan([*form, "I train on the GPU.", "Error while saving the model"]).hits
        if h.signature.id == "tf-built-for-another-cuda"
    ]
    # a harmless line TF printed is what such a post is about: a CUDA library it loaded
    loaded = "I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened dynamic library libcudart.so.11.0"
    assert all(h.reading is not Reading.BY_VERSIONS for h in scan([*post, loaded]).hits)


def test_a_cublas_kernel_failing_under_a_cuda_10_build_asks_whether_the_gpu_is_newer_only_while_it_is_unnamed():
    failed = "E tensorflow/stream_executor/cuda/cuda_blas.cc:428] failed to run cuBLAS routine: CUBLAS_STATUS_EXECUTION_FAILED"
    gemm = "InternalError: Blas GEMM launch failed : a.shape=(4096, 2), b.shape=(2, 128), m=4096, n=128, k=2"
    hit = scan([failed, gemm], ScanContext(tf_version="1.15")).hits[0]
    assert (hit.signature.id, hit.groups["tf"], hit.groups["built"]) == (
        "cublas-kernel-failed-cuda10-build",
        "1.15",
        "10.0",
    )
    # a named GPU is compared instead: too new for the build, or one the build serves (cuBLAS's own failure)
    assert scan([failed], ScanContext(tf_version="1.15", gpu_cc=(8, 6))).hits[0].signature.id == "cublas-predates-gpu"
    assert (
        scan([failed], ScanContext(tf_version="1.15", gpu_cc=(7, 0))).hits[0].signature.id == "blas-gemm-launch-failed"
    )
    # a CUDA 11 build has kernels for every GPU up to Ampere; an unknown release says nothing of its CUDA
    for facts in (ScanContext(tf_version="2.4"), ScanContext()):
        assert scan([failed], facts).hits[0].signature.id == "blas-gemm-launch-failed"
    # the handle failing to start is memory, not the architecture
    handle = "E tensorflow/stream_executor/cuda/cuda_blas.cc:238] failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED"
    assert scan([handle], ScanContext(tf_version="1.15")).hits[0].signature.id != "cublas-kernel-failed-cuda10-build"


def test_a_paste_pattern_names_a_shared_phrase_and_an_unknown_name_is_refused():
    from tfgpu.knowledge.signatures import parse_signatures

    entry = {"id": "a-b", "category": "c", "title": "t", "cause": "c", "fix": "f", "paste_patterns": ["@said"]}
    (sig,) = parse_signatures({"phrase": {"said": "(?i)gpu not found"}, "signature": [entry]})
    assert sig.paste_patterns[0].search("My GPU not found")
    with pytest.raises(ValueError, match="unknown phrase"):
        parse_signatures({"signature": [entry]})


def test_a_gpu_newer_than_the_release_s_build_is_compared_from_the_facts_the_device_line_or_the_words():
    gemm = "InternalError: Blas GEMM launch failed : a.shape=(64, 32), b.shape=(32, 32), m=64, n=32, k=32"
    # TF 1.15 is a CUDA 10.0 build: its cuBLAS has no kernels for an RTX 30xx (the facts' GPU)
    hit = scan([gemm], ScanContext(tf_version="1.15", gpu_cc=(8, 6))).hits[0]  # above the GEMM symptom
    assert hit.signature.id == "cublas-predates-gpu"
    assert (hit.groups["tf"], hit.groups["built"], hit.groups["cc"]) == ("1.15", "10.0", "8.6")
    # the same failure on a GPU the build knows, or with a CUDA 11 build, is cuBLAS's own
    for facts in (ScanContext(tf_version="1.15", gpu_cc=(7, 0)), ScanContext(tf_version="2.4", gpu_cc=(8, 6))):
        assert scan([gemm], facts).hits[0].signature.id != "cublas-predates-gpu"
    # the compute capability TF printed, or the model a report names, stands in for the facts
    device = "pciBusID: 0000:01:00.0 name: GeForce RTX 3060 Ti computeCapability: 8.6"
    assert scan([device, gemm], ScanContext(tf_version="2.1")).context.kernels is KernelSupport.PTX_JIT
    report = ["- TensorFlow==2.3.", "- Ubuntu 20.04", "Is TensorFlow can be used with RTX 4090?", "thanks"]
    result = scan(report)
    assert result.context.gpu_cc == (8, 9) and result.hits[0].signature.id == "build-predates-gpu"
    assert scan(["- TensorFlow==2.17.", "- Ubuntu 22.04", "Is TensorFlow fast on an RTX 4090?", "x"]).hits == ()


def test_a_cuda_a_report_lists_on_a_line_of_its_own_is_read_as_installed():
    missing = "**libcublas.so.9.0: cannot open shared object file: No such file or directory**"
    report = ["Ubuntu 18.04", "Tensorflow 1.12", "CUDA 10.0", "CuDNN 7.3.1", missing]
    result = scan(report)
    assert result.context.cuda_installed == ("10.0",)
    assert result.hits[0].signature.id == "cuda-runtime-of-another-version"
    assert scan(["- CUDA/cuDNN version: 11.2 / 8.1"]).context.cuda_installed == ("11.2",)
    # nvidia-smi's CUDA Version is the driver's ceiling, and a version only named is not an install
    banner = "| NVIDIA-SMI 460.32.03    Driver Version: 460.32.03    CUDA Version: 11.2     |"
    assert scan([banner]).context.cuda_installed is None
    assert scan(["TF 2.4 needs CUDA 11.0 here"]).context.cuda_installed is None
    # the template's field holding one number that no CUDA release has is a cuDNN ("8.1"), not a CUDA
    assert scan(["### CUDA/cuDNN version", "CUDA/cuDNN version: 8.1"]).context.cuda_installed is None
    assert scan(["CUDA/cuDNN version: 10.1"]).context.cuda_installed == ("10.1",)
    # conda's toolkit as a poster installs it
    assert scan(["conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0"]).context.cuda_installed == ("11.2",)


def test_pip_reads_the_tensorflow_gpu_version_asked_for_before_calling_the_package_removed():
    top = lambda line: scan([line]).hits[0].signature.category  # noqa: E731
    old = "ERROR: No matching distribution found for tensorflow-gpu<=1.12.0 (from -r requirements_gpu.txt (line 3))"
    assert top(old) == "python_unsupported"  # 1.12 exists, just not for this Python
    assert top("ERROR: No matching distribution found for tensorflow-gpu==2.15.0") == "tensorflow_gpu_removed"
    assert top("ERROR: No matching distribution found for tensorflow-gpu") == "tensorflow_gpu_removed"


def test_a_stub_libcuda_on_the_path_outranks_the_cuinit_failure_it_causes():
    lines = [
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:397] failed call to cuInit: CUresult(-1)",
        " /usr/local/cuda/lib64/stubs/:/usr/local/cuda/lib64:/usr/local/nvidia/lib64",
    ]
    assert [h.signature.id for h in scan(lines).hits][:2] == [
        "stub-libcuda-on-library-path",
        "cuinit-unnamed-in-container",
    ]
    host = [lines[0], " /usr/local/cuda/lib64/stubs/:/usr/local/cuda/lib64"]  # no /usr/local/nvidia: not a container
    assert [h.signature.id for h in scan(host).hits][:2] == ["stub-libcuda-on-library-path", "cuinit-failed"]
    built = [*lines[:1], "Step 9/9 : RUN python3 run_model.py"]  # the same failure inside a docker build
    assert scan(built).hits[0].signature.id == "gpu-code-in-docker-build"


def test_a_gpu_tf_lists_but_its_release_does_not_build_for_is_named_from_the_device_line():
    line = "pciBusID: 0000:01:00.0 name: GeForce GT 630 computeCapability: 3.0"
    assert scan([line], ScanContext(tf_version="2.3")).hits[0].signature.id == "gpu-below-build-minimum-found"
    assert not any(
        h.signature.id == "gpu-below-build-minimum-found" for h in scan([line], ScanContext(tf_version="1.4")).hits
    )


def test_a_poster_s_word_that_the_machine_has_no_gpu_makes_the_driver_lines_harmless():
    cuinit = "E tensorflow/stream_executor/cuda/cuda_driver.cc:314] failed call to cuInit: UNKNOWN ERROR (-1)"
    kernel = (
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does not appear to be running"
        " on this host (worker-1): /proc/driver/nvidia/version does not exist"
    )
    said = scan(["Training does initiate okay (on a non-gpu node).", cuinit, kernel])
    assert said.context.gpu is GpuKnown.ABSENT
    assert not [h for h in said.hits if not h.signature.benign]
    # without the word, the same lines on a machine that shows a GPU are the driver not running
    assert scan(["Training will not start on the GPU node.", cuinit, kernel]).hits[0].signature.id == (
        "kernel-driver-not-running"
    )


def test_a_computer_with_cpus_but_without_gpus_is_a_machine_without_a_gpu():
    """deepimpute#15: cuInit's 303 on "a computer with CPUs but without GPUs" is a CPU run, nothing failed."""
    cuinit = "E tensorflow/stream_executor/cuda/cuda_driver.cc:318] failed call to cuInit: UNKNOWN ERROR (303)"
    said = scan(
        [
            "Warning and error for the example data",
            cuinit,
            "I ran the example on a computer with CPUs but without GPUs.",
        ]
    )
    assert said.context.gpu is GpuKnown.ABSENT
    assert [h.signature.id for h in said.hits] == ["no-nvidia-driver-cpu-run"]


def test_a_failed_launch_outranks_the_library_failures_that_follow_it():
    lines = [
        ": failed to query event: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure",
        "E tensorflow/stream_executor/dnn.cc:613] CUDNN_STATUS_INTERNAL_ERROR",
        "in tensorflow/stream_executor/cuda/cuda_dnn.cc(1867): 'cudnnRNNForwardTraining( cudnn.handle(), rnn_desc)'",
    ]
    assert scan(lines).hits[0].signature.id == "kernel-launch-failed"
    assert scan(lines[1:]).hits[0].signature.id == "cudnn-rnn-status"


def test_libcuda_missing_is_the_pod_s_gpu_request_only_where_the_log_names_kubernetes():
    missing = "W dso_loader.cc:55] Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open"
    cuinit = "E tensorflow/stream_executor/cuda/cuda_driver.cc:351] failed call to cuInit: UNKNOWN ERROR (303)"
    wanted = ScanContext(no_gpu=False)
    assert (
        scan(["When I run this on Kubeflow:", missing, cuinit], wanted).hits[0].signature.id == "libcuda-missing-in-pod"
    )
    assert (
        scan(["When I run this on my server:", missing, cuinit], wanted).hits[0].signature.id
        != "libcuda-missing-in-pod"
    )


def test_an_empty_gpu_list_under_tf_2_16_1_is_its_wheel_missing_the_pip_cuda_libraries():
    asked = ">>> tf.config.list_physical_devices('GPU')"
    assert scan([">>> tf.__version__ '2.16.1'", asked, "[ ]"]).hits[0].signature.id == "tf-2-16-1-gpu-list-empty"
    for release in ("2.16.10", "2.15.1"):
        assert scan([f">>> tf.__version__ '{release}'", asked, "[]"]).hits[0].signature.id == "gpu-list-empty"


def test_a_post_s_words_name_an_avx_crash_and_out_of_memory():
    avx = "I believe 2.4 requires CPU AVX support. Importing it via Python3 results in core dump."
    assert scan(["Wheel does not import", avx]).hits[0].signature.id == "cpu-lacks-avx"
    assert scan(["The GPU is too small, it OOMs often."]).hits[0].signature.id == "oom-allocating-tensor-no-shape"
    assert not scan(["It dumps core when I import it."]).hits  # a crash alone does not name AVX


def test_a_bare_cuda_major_of_the_build_table_is_the_x_0_release_the_wheels_link():
    said = ["It does not use the GPU at all.", "I am using tensorflow-gpu and I've cuda 9.1 installed."]
    (hit,) = scan(said, ScanContext(tf_version="1.5")).hits  # the table lists TF 1.5 as CUDA "9": libcudart.so.9.0
    assert hit.signature.id == "tf-built-for-another-cuda" and hit.groups["built"] == "9.0"
    assert scan([said[0], "I have cuda 9.0 installed."], ScanContext(tf_version="1.5")).hits[0].signature.id != (
        "tf-built-for-another-cuda"
    )


def test_cudnn_s_launch_failure_and_a_launch_out_of_resources_are_named_apart_from_a_crashed_kernel():
    cudnn = "InternalError: cuDNN launch failure : input shape([1,3,933,613]) filter shape([7,7,3,64])"
    assert scan([cudnn]).hits[0].signature.id == "cudnn-launch-failure"
    resources = "GpuLaunchKernel(kernel, config.block_count) status: Internal: too many resources requested for launch"
    assert scan([resources]).hits[0].signature.id == "kernel-launch-out-of-resources"
    assert scan(["CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"]).hits[0].signature.id == "kernel-launch-failed"


def test_a_poster_s_word_that_libcuda_does_not_exist_is_the_driver_library_missing():
    lines = [
        'WSL2: "libcuda.so.1" does not exist. How to create that?',
        "- TensorFlow version: 2.4.0",
        "- Python 3.8",
        "-",
    ]
    assert scan(lines, ScanContext(no_gpu=False)).hits[0].signature.id == "libcuda-not-loaded"


def test_a_chinese_post_s_installed_cuda_makes_tf_1_x_s_missing_dll_the_wrong_cuda():
    missing = "ImportError: Could not find 'cudart64_100.dll'. TensorFlow requires that this DLL be installed"
    result = scan(["现在安装的cuda是10.2的，安装tensorflow-gpu==1.14.0之后运行报错", missing])
    assert result.context.cuda_installed == ("10.2",)
    assert result.hits[0].signature.id == "cuda-runtime-of-another-version"
    assert scan([missing]).hits[0].signature.id == "cudart-dll-not-found"  # no CUDA known: only the DLL is missing


def test_windows_self_check_failing_on_nvcuda_is_the_driver_missing():
    lines = ["    ctypes.WinDLL(build_info.nvcuda_dll_name)", "OSError: [WinError 126] The specified module could not"]
    assert scan(lines).hits[0].signature.id == "windows-self-check-nvcuda-missing"


def test_a_gpu_below_every_build_outranks_the_libraries_tf_could_not_load():
    lines = [
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library 'cudart64_101.dll'",
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1561] Found device 0 with properties:",
        "pciBusID: 0000:01:00.0 name: GeForce GT 220 computeCapability: 1.2",
    ]
    assert scan(lines, ScanContext(tf_version="2.2")).hits[0].signature.id == "gpu-below-build-minimum-found"


@pytest.mark.parametrize("symbol", ["version `GLIBCXX_3.4.22' not found", "version GLIBCXX_3.4.22 not found"])
def test_a_missing_glibcxx_symbol_is_read_quoted_or_not(symbol):
    assert scan([f"libstdc++.so.6: {symbol}"]).hits[0].signature.id == "glibcxx-too-old"


def test_a_post_s_words_name_cudnn_failing_to_initialise_keras_3_breakage_and_a_jetson_nano():
    traceback = ["Epoch 1/100", "UnknownError                              Traceback (most recent call last)"]
    for said in ("*cuDNN failed to initialize*", "CuDNN faild to initialize after correct installation,"):
        assert scan([said, *traceback]).hits[0].signature.id == "conv-algorithm-failed"
    keras = "tensorflow 2.16.1 breaks tensorflow-probability with Keras `3.0` API"
    assert (
        scan([keras, "(venv) root@0046f004ed0d:/# pip list", "", ""]).hits[0].signature.id == "keras-version-mismatch"
    )
    nano = ["Tensorflow GPU support not working on my Jetson Nano.", "It cannot see the GPU.", "", ""]
    assert scan(nano, ScanContext(tf_version="2.13")).hits[0].signature.id == "jetson-cuda-10-2-board"
    # NVIDIA's own wheels for the Nano's JetPack reach TF 2.7: there the board is not the cause
    assert "jetson-cuda-10-2-board" not in {h.signature.id for h in scan(nano, ScanContext(tf_version="2.7")).hits}


def test_a_title_s_missing_dll_beside_the_template_s_cuda_and_cudnn_pair_is_the_wrong_cuda():
    lines = ["cudart64_101.dll not found", "- TensorFlow version: 2.3", "- CUDA/cuDNN version: 10.2 and 7.6.5", ""]
    result = scan(lines)
    assert result.context.cuda_installed == ("10.2",)
    assert result.context.cudnn_installed == ("7.6",)
    assert result.hits[0].signature.id == "cuda-runtime-of-another-version"


def test_tf_1_x_s_truncated_import_failure_is_the_wrong_cuda_only_where_another_cuda_is_installed():
    traceback = [
        "I update tensorflow to 1.5,and reinstall cuda to 9.1,now  I run my program get the error:",
        "ImportError: Traceback (most recent call last):",
        "    from tensorflow.python.pywrap_tensorflow_internal import *",
    ]
    result = scan(traceback, ScanContext(tf_version="1.5"))
    assert result.context.cuda_installed == ("9.1",)
    assert result.hits[0].signature.id == "tf1-import-failed-other-cuda"
    assert result.hits[0].groups["built"] == "9.0"  # the build's CUDA, from the tested build configurations
    matching = scan(["I installed cuda 9.0", *traceback[1:]], ScanContext(tf_version="1.5"))
    assert "tf1-import-failed-other-cuda" not in {h.signature.id for h in matching.hits}
    # TF 2.1 and later load CUDA lazily: their import does not fail on the CUDA installed
    later = scan(["I installed cuda 10.0", *traceback[1:]], ScanContext(tf_version="2.3"))
    assert "tf1-import-failed-other-cuda" not in {h.signature.id for h in later.hits}


def test_runtime_error_77_an_op_pinned_to_an_absent_gpu_and_protobuf_s_advice_are_named():
    error_77 = "F tensorflow/core/common_runtime/gpu/gpu_device.cc:143] Check failed: err == cudaSuccess (77 vs. 0)"
    assert scan([error_77]).hits[0].signature.id == "illegal-memory-access"
    pinned = "was explicitly assigned to /device:GPU:0 but available devices are [ /job:localhost/replica:0/task:0/device:CPU:0, /job:localhost/replic"
    assert scan([pinned]).hits[0].signature.id == "no-gpu-visible"
    with_xla = pinned.replace("/device:CPU:0,", "/device:CPU:0, /job:localhost/replica:0/task:0/device:XLA_GPU:0,")
    assert "no-gpu-visible" not in {h.signature.id for h in scan([with_xla]).hits}
    advice = "Set PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python (but this will use pure-Python parsing and will be much slower)"
    assert scan([advice]).hits[0].signature.id == "protobuf-incompatible"


def test_a_post_s_words_name_tensorflow_gpu_s_removal_a_full_gpu_memory_and_a_factory_title():
    setup_failed = ["× python setup.py bdist_wheel did not run successfully.", "  │ exit code: 1", "", ""]
    for said in ("The tensorflow package has removed the -gpu naming convention", "tensorflow-gpu has been removed"):
        assert scan([said, *setup_failed]).hits[0].signature.id == "tensorflow-gpu-removed"
    full = ["Process finished with exit code -1073740791 (0xC0000409)", "the gpu memory is indeed full.", "", ""]
    assert scan(full).hits[0].signature.category == "oom"
    title = ["Google Colab - Unable to register cuDNN factory", "Runs the whole script then times out.", "", "", ""]
    assert scan(title).hits[0].signature.id == "benign-factory-registration"


def test_cublaslt_no_algorithm_a_ptxas_xla_refuses_and_a_launch_under_windows_tdr_are_named():
    """From the twentieth late set's development part (deep-active-inference-mc#2, BiaPy#19, tensorflow#66716, #45987)."""
    assert (
        scan(["failed to create cublasLt handle: CUBLAS_STATUS_INTERNAL_ERROR"]).hits[0].signature.category
        == "cublas_init_failed"
    )
    no_algorithm = "W tensorflow/core/framework/op_kernel.cc:1763] OP_REQUIRES failed at conv_ops.cc:1106 : Not found: No algorithm worked!"
    assert scan([no_algorithm]).hits[0].signature.id == "conv-algorithm-failed"
    assert (
        scan(["FAILED TO GET CONVOLUTION ALGORITHIM. RTX 2060, CUDA 10"]).hits[0].signature.id
        == "conv-algorithm-failed"
    )
    ptxas = scan(["OP_REQUIRES failed at xla_ops.cc:580 : INTERNAL: XLA requires ptxas version 11.8 or higher"]).hits[0]
    assert (ptxas.signature.id, ptxas.groups["want"]) == ("xla-requires-newer-ptxas", "11.8")
    failed = "E tensorflow/stream_executor/cuda/cuda_driver.cc:1010] failed to synchronize the stop event: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"
    tdr = "Windows has a service called TDR (Timeout Detection and Recovery) which pings the GPU"
    windows = ScanContext(os="windows")
    assert scan([failed, tdr], windows).hits[0].signature.id == "launch-failed-under-tdr"
    assert scan([failed], windows).hits[0].signature.id == "kernel-launch-failed"  # no watchdog named: no guess
    assert scan([failed, tdr], ScanContext(os="linux")).hits[0].signature.id == "kernel-launch-failed"


def test_the_cuda_a_post_is_using_or_its_template_lists_twice_is_the_cuda_installed():
    """tensorflow#16136 ("while using cuda-9.1"), #39972 ("CUDA Version: 10.1" after the label), #36864 ("10.02")."""
    using = scan(
        [
            "import tensorflow",
            "Error while using cuda-9.1, libcublas.so.8.0: cannot open shared object file: No such file or directory",
        ]
    )
    assert (
        using.context.cuda_installed == ("9.1",) and using.hits[0].signature.category == "wrong_cuda_version_installed"
    )
    assert scan(["CUDA/cuDNN version: CUDA Version: 10.1", "", "", ""]).context.cuda_installed == ("10.1",)
    assert scan(["* CUDA/cuDNN version: 10.02", "", "", ""]).context.cuda_installed == ("10.2",)
    assert (
        scan(["TF 2.1 was built with cuda 10.1", "", "", ""]).context.cuda_installed is None
    )  # a build, not an install


@pytest.mark.parametrize(
    "said",
    [
        "the training is not utilizing the GPU",
        "But when I look up the 'nvidia-smi', no gpu is used",
        "Unable to train using GPU",
    ],
)
def test_a_post_s_words_that_tf_does_not_use_the_gpu_are_the_symptom_where_tf_made_no_gpu_device(said):
    """SKU110K_CVPR19#19, softlearning#26: the CPU package was installed; TF's lines named nothing."""
    post = ["I run train.py --gpu 0 on an AWS g3 instance", said, "Epoch 1/10", "100/100 [====] - 50s"]
    assert scan(post).hits[0].signature.id == "no-gpu-visible"
    created = "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1406] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 10405 MB memory)"
    assert not [h for h in scan([*post, created]).hits if not h.signature.benign]
    assert not scan(["I am not using the GPU on purpose, CPU only", "Epoch 1/10", "", ""]).hits


def test_oom_in_a_post_s_title_before_its_log_is_out_of_memory():
    """keras-yolo3#21: "OOM when training raccoon dataset"; a post that had none is not one."""
    post = [
        "OOM when training raccoon dataset",
        "using train.py with only change dataset path",
        "Epoch 1/103",
        "('resizing: ', 320, 320)",
    ]
    assert scan(post).hits[0].signature.category == "oom"
    denied = scan(["No OOM errors when training at batch 64", "Epoch 1/103", "", ""]).hits
    assert not [h for h in denied if h.reading is not Reading.BY_RESEMBLANCE]  # at most a guess, said as one


@pytest.mark.parametrize(
    "missing",
    [
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory",
    ],
)
def test_a_missing_cuda_runtime_is_a_cpu_run_s_note_unless_a_gpu_is_shown_asked_for_or_it_is_the_paste(missing):
    stub = "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine."
    later = [
        "Using TensorFlow backend.",
        "Loading the checkpoint ./models/model.ckpt",
        'Tensor("Sum:0", shape=(), dtype=float32)',
    ]
    cpu_run = scan([missing, stub, *later])
    assert cpu_run.context.gpu is GpuKnown.UNKNOWN
    assert [h.signature.category for h in cpu_run.hits if not h.signature.benign] == []
    assert "benign_cudart_stub" in {h.signature.category for h in cpu_run.hits}
    assert scan([missing, stub]).hits[0].signature.category == "missing_cuda_library"  # the paste's subject
    wanted = scan(["TensorFlow does not use my GPU", missing, stub, *later])
    assert wanted.hits[0].signature.category == "missing_cuda_library"


def test_windows_driver_library_loaded_shows_a_gpu():
    lines = [
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found",
        "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.",
        "I tensorflow/stream_executor/platform/default/dso_loader.cc:44] Successfully opened dynamic library nvcuda.dll",
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found",
    ]
    result = scan(lines)
    assert result.context.gpu is GpuKnown.PRESENT
    assert result.hits[0].signature.id == "cudart-dll-not-found"


def test_a_cluster_module_s_cuda_directory_is_the_cuda_installed():
    lines = [
        "`module load tensorflow/2.0.0`",
        "`module load cuda/10.1`",
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library 'libcudart.so.10.0'; dlerror: libcudart.so.10.0: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /jmain01/apps/cuda/10.1/lib64",
    ]
    result = scan(lines)
    assert result.context.cuda_installed == ("10.1",)
    assert result.hits[0].signature.id == "cuda-runtime-of-another-version"


def test_tf_s_windows_self_check_and_tfjs_s_binding_name_the_missing_cuda_dlls():
    self_check = [
        "ERROR: Failed to import the TensorFlow module.",
        "- Could not load 'cudart64_80.dll'. The GPU version of TensorFlow",
        "  requires that this DLL be installed in a directory that is named in",
    ]
    assert scan(self_check, ScanContext(no_gpu=False)).hits[0].signature.id == "cudart-dll-not-found"
    binding = [
        "Error: The specified module could not be found.",
        r"\\?\C:\app\node_modules\@tensorflow\tfjs-node-gpu\lib\napi-v4\tfjs_binding.node",
    ]
    assert scan(binding).hits[0].signature.id == "tfjs-node-gpu-binding-not-loaded"
    assert "tfjs-node-gpu-binding-not-loaded" not in {h.signature.id for h in scan(binding[1:]).hits}


def test_titles_and_words_name_alloc_failed_no_device_retracing_full_memory_and_a_container_without_the_gpu():
    body = ["### Describe the Bug", "It stops.", "", ""]
    assert scan(["CUDNN_STATUS_ALLOC_FAILED (on 2GB GPU)", *body]).hits[0].signature.id == "cudnn-handle-alloc-failed"
    assert scan(["TensorFlow - cuInit: CUDA_ERROR_NO_DEVICE", *body]).hits[0].signature.id == "cuinit-no-device"
    retracing = "Erroneously triggering tf.function retracing warnings when rapidly creating new TF models."
    assert scan([retracing, *body]).hits[0].signature.id == "tf-function-retracing"
    chinese = ["GPU显存问题", "我也是在用笔记本电脑学习tensorflow，2G显存，也是经常遇到显存不够的问题", "", ""]
    assert scan(chinese).hits[0].signature.category == "oom"
    docker = ["Help with use of the docker image", "when runing the container, i cannot see the nvidia card", ""]
    assert scan(docker).hits[0].signature.category == "docker_no_gpu"


def test_an_op_with_only_gpu_kernels_tells_a_cpu_only_tf_from_cuda_libraries_that_did_not_load():
    cpu_only = "InvalidArgumentError: No OpKernel was registered to support Op 'CudnnRNN' with these attrs.  Registered devices: [CPU], Registered kernels:"
    assert scan([cpu_only, "  <no registered kernels>"]).hits[0].signature.category == "no_gpu_visible"
    skipped = [
        "No OpKernel was registered to support Op 'CudnnRNNCanonicalToParams' used by node lstm/CudnnRNNCanonicalToParams",
        "Registered devices: [CPU, XLA_CPU, XLA_GPU]",
        "Registered kernels:",
        "  device='GPU'; T in [DT_FLOAT]",
    ]
    top = scan(skipped).hits[0]
    assert top.signature.category == "missing_cuda_library"
    assert top.groups["op"] == "CudnnRNNCanonicalToParams"
    nccl = "No OpKernel was registered to support Op 'NcclAllReduce' used by {{node NcclAllReduce}} with these attrs: [T=DT_FLOAT]  Registered devices: [CPU, GPU]"
    assert scan([nccl, ""]).hits[0].signature.category == "nccl_multi_gpu"


def test_an_explicit_gpu_placement_says_whether_the_op_or_the_gpu_is_missing():
    kernel = "Cannot assign a device for operation 'Accuracy/__raw_': Could not satisfy explicit device specification '/device:GPU:0' because no supported kernel for GPU devices is available."
    assert scan([kernel, ""]).hits[0].signature.category == "op_without_gpu_kernel"
    device = "Cannot assign a device for operation MatMul: Could not satisfy explicit device specification '/device:GPU:0' because no devices matching that specification are registered in this process; available devices: /job:localhost/replica:0/task:0/device:CPU:0"
    assert scan([device, ""]).hits[0].signature.category == "no_gpu_visible"


def test_a_post_s_oom_error_and_a_card_tf_cannot_recognise_are_named():
    body = ["### Describe the problem", "Upon starting to train the second fold it results in an OOM error.", "", ""]
    assert scan(["Unable to remove model from memory", *body]).hits[0].signature.category == "oom"
    calm = ["Lowering the batch size helped", "now it trains with no OOM errors at all", "", ""]
    assert not [h for h in scan(calm).hits if h.signature.category == "oom"]
    windows = ScanContext(os="windows", tf_version="2.13")
    card = ["GPU card not recognised?", "The RTX 3500 card cannot be recognised by tensorflow.", "", ""]
    assert scan(card, windows).hits[0].signature.category == "windows_native_after_2_10"
    assert (
        scan(["It says 0 GPUs available", "", "", ""], windows).hits[0].signature.category
        == "windows_native_after_2_10"
    )


def test_cudnn_s_scratch_limit_is_tf_s_setting_and_no_algorithm_worked_is_the_convolution_failing():
    """tf-keras#125: every engine wants more scratch than TF_CUDNN_WORKSPACE_LIMIT_IN_MB allows (4 GiB)."""
    log = [
        "No algorithm worked!  Error messages:",
        "  Profiling failure on CUDNN engine 1#TC: RESOURCE_EXHAUSTED: Allocating 4718624784 bytes exceeds the memory limit of 4294967296 bytes.",
        "  Profiling failure on CUDNN engine 1: RESOURCE_EXHAUSTED: Allocating 4718624784 bytes exceeds the memory limit of 4294967296 bytes.",
        "",
    ]
    top = scan(log).hits[0]
    assert top.signature.id == "cudnn-workspace-limit" and top.groups["limit"] == "4294967296"
    assert "TF_CUDNN_WORKSPACE_LIMIT_IN_MB" in top.signature.fix
    title = 'TensorFlow can\'t communicate with GPU. "No algorithm worked!"'
    assert scan([title, "", "", ""]).hits[0].signature.category == "conv_algorithm_failed"


def test_a_thread_that_finds_the_cuda_does_not_match_tf_names_it_unless_it_says_it_does_not():
    wrong = "Unless you have a custom Tensorflow, you are running the wrong version of Cuda."
    assert scan(["crashes when training", wrong, "", ""]).hits[0].signature.id == "cuda-tf-mismatch-said"
    denied = ["crashes when training", "It is not a CUDA mismatch, the versions match", "", ""]
    assert not [h for h in scan(denied).hits if h.signature.id == "cuda-tf-mismatch-said"]
    found = ["Can't find dependent libraries", "I was not using the correct CUDA version for tf 1.12", "", ""]
    assert scan(found).hits[0].signature.id == "cuda-tf-mismatch-said"  # tensorflow#16660
    asked = ["crashes when training", "I am not sure I have the right CUDA version", "", ""]
    assert not [h for h in scan(asked).hits if h.signature.id == "cuda-tf-mismatch-said"]


def test_multi_backend_keras_s_tf_1_graph_calls_are_the_keras_mismatch_only_through_its_backend():
    """segmentation_models#140: keras 2.2's tensorflow_backend.py calls tf.placeholder under TF 2."""
    error = "RuntimeError: tf.placeholder() is not compatible with eager execution."
    backend = (
        '  File "/usr/local/lib/python3.7/site-packages/keras/backend/tensorflow_backend.py", line 517, in placeholder'
    )
    assert scan([backend, error, "", ""]).hits[0].signature.id == "multi-backend-keras-on-tf2"
    own_code = '  File "train.py", line 12, in <module>'
    assert not [h for h in scan([own_code, error, "", ""]).hits if h.signature.id == "multi-backend-keras-on-tf2"]


def test_a_post_s_words_name_a_missing_cudnn_soname_resource_exhaustion_and_no_working_algorithm():
    said = {
        "The container images have no libcudnn.so.8, and I cannot use GPU acceleration": "cudnn-not-loaded",
        "I am still getting Resource exhausted error on training.": "resource-exhausted",
        "However, I get a 'NotFoundError: No algorithm worked' error when I start training.": "conv-algorithm-failed",
    }
    for words, signature in said.items():
        assert scan(["training fails on the GPU", words, "", ""]).hits[0].signature.id == signature, words


WRONG, MISSING = "wrong_cuda_version_installed", "missing_cuda_library"
CUDART_11 = (
    "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file"
)
CUDART64_110 = "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
CUBLAS_10 = "ImportError: libcublas.so.10.0: cannot open shared object file: No such file or directory"


@pytest.mark.parametrize(
    ("missing", "said", "category"),
    [
        (CUDART_11, "I first installed cuda toolkit 12.3 in windows side", WRONG),
        (CUDART_11, "sudo ln -s /usr/local/cuda/lib64/libcudart.so.12 /usr/local/cuda/lib64/libcudart.so.11.0", WRONG),
        # tensorflow#34059, tensorflow#22202, TensorFlow.NET#1288, StyleFlow#44: another CUDA's library
        (
            "ImportError: libcublas.so.8.0: cannot open shared object file",
            "Is this because I am using CUDA version 10.1.",
            WRONG,
        ),
        (
            "libtensorflow_jni.so: libcublas.so.9.0: cannot open shared object file",
            "I have **libcublas.so.9.2** installed.",
            WRONG,
        ),
        (CUDART64_110, "Under CUDA_PATH there is a file bin\\cudart64_12.dll (along with some others).", WRONG),
        (CUBLAS_10, "I'm running python 3.6, and cuda 10.1 on ubuntu 18.04", WRONG),
        # a DLL the poster says is not found, or "running" with no CUDA release, is no CUDA installed (a DLL's
        # name alone asks for no GPU: a CPU machine prints it too, so this post says the GPU goes unused)
        (CUDART64_110, "I have the error cudart64_110.dll not found on every start; my GPU is not used", MISSING),
        (CUBLAS_10, "I'm running it on ubuntu 18.04", MISSING),
        # cudart64_90.dll is CUDA 9.0's runtime: with CUDA 9.0 installed it is no version mismatch
        (
            "Could not load dynamic library 'cudart64_90.dll'; dlerror: cudart64_90.dll not found",
            "I have CUDA 9.0 installed",
            MISSING,
        ),
    ],
)
def test_the_cuda_a_poster_names_decides_whether_a_missing_library_is_the_wrong_cuda(missing, said, category):
    """The CUDA installed, read from a post's words, a link or a file it finds, against the library TF asks for."""
    assert scan([missing, said, "", ""]).hits[0].signature.category == category


@pytest.mark.parametrize(
    "printed",
    ["Is TensorFlow built with CUDA?: False", "tf.test.is_built_with_cuda() -> False", "is_built_with_cuda(): False"],
)
def test_a_build_without_cuda_on_native_windows_from_tf_2_11_is_the_cpu_only_wheel(printed):
    """tensorflow#68236 prints its own label before the answer; the issue template's "tf 2.16.1" names the release."""
    windows = ["TensorFlow version: tf 2.16.1", "OS platform and distribution: Windows 10", printed, ""]
    assert scan(windows).hits[0].signature.id == "windows-native-no-gpu"
    assert not scan(["TensorFlow version: tf 2.16.1", "Windows 10", "Is TensorFlow built with CUDA?: True", ""]).hits


def test_the_cpu_only_package_a_tool_installs_over_tensorflow_gpu_is_why_no_gpu_is_seen():
    """ml-agents#3729 and #1600: installing the tool puts TF's CPU build back."""
    said = [
        "Installing mlagent via pip installs tensorflow-cpu on my computer and hide tensorflow-gpu from my system",
        "But mlagents-learn script is hardcoded to check if cpu version is installed.",
    ]
    for words in said:
        assert scan(["GPU not used", words, "", ""]).hits[0].signature.id == "cpu-package-shadows-gpu", words
    on_purpose = scan(["GPU not used", "I use tensorflow-cpu on my laptop on purpose", "", ""]).hits
    assert not [h for h in on_purpose if h.signature.id == "cpu-package-shadows-gpu"]


def test_a_title_that_starts_with_oom_is_out_of_memory_but_the_kernel_s_oom_killer_is_not():
    assert (
        scan(["OOM tacotron2", "when trying to run the training I run in the following error:", "", ""])
        .hits[0]
        .signature.id
        == "resource-exhausted"
    )
    assert not [h for h in scan(["OOM killer ended my job", "", "", ""]).hits if h.signature.category == "oom"]


def test_a_thread_that_finds_the_cudnn_does_not_match_names_it_unless_it_says_it_does_not():
    """colabtools#2413: the notebook's new cuDNN; the signature prints no version it cannot know."""
    said = ["training crashes", "it started displaying a message regarding CuDNN version", "", ""]
    hit = scan(said).hits[0]
    assert hit.signature.id == "cudnn-version-mismatch-said"
    assert "{" not in hit.signature.title
    denied = ["training crashes", "It is not a cuDNN mismatch: the versions match", "", ""]
    assert not [h for h in scan(denied).hits if h.signature.id == "cudnn-version-mismatch-said"]


def test_tf_1_14_s_could_not_dlopen_wording_is_read_as_the_missing_library_it_names():
    """NixOS/nixpkgs#65515: TF 1.14 and 2.0 wrote "Could not dlopen library" for the same failure."""
    newer = (
        "dso_loader.cc:53] Could not load dynamic library 'libcudart.so.10.0'; dlerror: libcudart.so.10.0: cannot open"
    )
    older = newer.replace("Could not load dynamic library", "Could not dlopen library")
    assert [h.signature.id for h in scan([older, "", ""]).hits] == [h.signature.id for h in scan([newer, "", ""]).hits]
    assert scan([older, "", ""]).hits[0].signature.category == "missing_cuda_library"


def test_cuda_10_0_s_cusolver_is_not_read_as_cuda_11_0_s():
    """libcusolver.so.10.0 is CUDA 10.0's soname; only the bare libcusolver.so.10 is TF 2.4's CUDA 11.0 one."""
    cuda_10 = "Could not load dynamic library 'libcusolver.so.10.0'; dlerror: libcusolver.so.10.0: cannot open shared object file"
    assert not [h for h in scan([cuda_10, "", ""]).hits if h.signature.id == "cusolver-10-with-cuda-11-1"]
    cuda_11 = (
        "Could not load dynamic library 'libcusolver.so.10'; dlerror: libcusolver.so.10: cannot open shared object file"
    )
    assert scan([cuda_11, "", ""]).hits[0].signature.id == "cusolver-10-with-cuda-11-1"


def test_multi_backend_keras_s_get_default_session_under_tf_2_is_the_keras_mismatch():
    """keras-team/keras#13442: clear_session in keras 2.2's backend asks TF 2 for get_default_session."""
    backend = '  File "/usr/lib/python3.6/site-packages/keras/backend/tensorflow_backend.py", line 74, in clear_session'
    error = "AttributeError: module 'tensorflow' has no attribute 'get_default_session'"
    assert scan([backend, error, "", ""]).hits[0].signature.id == "multi-backend-keras-on-tf2"


def test_a_missing_driver_companion_of_another_release_is_a_mixed_driver_install_but_a_listed_one_is_not():
    """tensorflow#9071: libcuda asks for 375.51's fatbinaryloader while the kernel module is 375.26."""
    missing = "ImportError: libnvidia-fatbinaryloader.so.375.51: cannot open shared object file"
    kernel = "kernel reported version is: 375.26.0"
    assert scan([missing, kernel, "", ""]).hits[0].signature.id == "driver-companion-library-missing"
    listed = "libnvidia-fatbinaryloader.so.384.111 (libc6,x86-64) => /usr/lib/nvidia-384/libnvidia-fatbinaryloader.so.384.111"
    assert not [h for h in scan([listed, "", ""]).hits if h.signature.id == "driver-companion-library-missing"]


def test_ptxas_failing_is_the_cuda_predating_the_gpu_only_where_that_cuda_is_older_than_the_gpu():
    """deepxde#985: TF 2.4 (CUDA 11.0) on an RTX 3070 Ti (8.6, which CUDA 11.1 introduced)."""
    failed = "ptxas returned an error during compilation of ptx to sass"
    device = "pciBusID: 0000:01:00.0 name: NVIDIA GeForce RTX 3070 Ti Laptop GPU computeCapability: 8.6"
    hit = scan([failed, "cuda11.0+tensorflow-gpu==2.4.0", device, ""], ScanContext(tf_version="2.4")).hits[0]
    assert hit.signature.id == "ptxas-predates-gpu"
    assert render_template(hit.signature.title, hit.groups) == (
        "CUDA 11.0's ptxas cannot compile for compute capability 8.6, which CUDA 11.1 introduced"
    )
    newer = scan([failed, "I have cuda 11.2 installed", device, ""], ScanContext(tf_version="2.4")).hits
    assert not [h for h in newer if h.signature.id == "ptxas-predates-gpu"]
    bare_major = scan([failed, device, ""], ScanContext(tf_version="2.4", cuda_installed=("11",))).hits
    assert not [h for h in bare_major if h.signature.id == "ptxas-predates-gpu"]


def test_a_post_s_chinese_words_that_cuda_and_tf_do_not_fit_name_the_wrong_cuda():
    """captcha_trainer#41 ("cuda版本不匹配") and a title naming "cuda10.1与tensorflow1.15.0GPU不兼容"."""
    said = scan(["tensorflow_gpu=1.6 cuda9.1 要怎么用", "训练提示cuda版本不匹配 我本机已经配置了tf环境", ""]).hits
    assert said[0].signature.id == "cuda-tf-mismatch-said"
    title = "cuda10.1与tensorflow1.15.0GPU不兼容"
    missing = "会报错：ImportError: libcublas.so.9.0: cannot open shared object file: No such file or directory"
    assert scan([title, missing, ""]).hits[0].signature.category == "wrong_cuda_version_installed"


def test_a_bare_dlerror_title_and_a_launch_with_too_many_resources_in_a_post_s_words_are_named():
    title = "dlerror: libcublas.so.10.0: cannot open shared object file: No such file or directory"
    assert scan([title, "[0706 13:50:34 @base.py:228] Creating the session ...", ""]).hits[0].signature.id == (
        "cuda-library-not-loaded"
    )
    said = "I receive the following error stating that the there are are too many resources requested to launch."
    assert scan(["Object Detection API inference on Tegra GPU", said, ""]).hits[0].signature.category == (
        "gpu_kernel_launch_failure"
    )


def test_nccl_s_own_warning_of_a_cuda_failure_is_the_multi_gpu_failure():
    """horovod#893: NCCL's shared-memory transport fails and the all-reduce hangs."""
    line = "Horovod hangs -- include/shm.h:42 NCCL WARN Cuda failure 'invalid argument'"
    assert scan([line, "", ""]).hits[0].signature.category == "nccl_multi_gpu"


def test_keras_2_code_under_keras_3_is_the_keras_mismatch():
    """tensorflow#70796 (an import through keras/_tf_keras) and keras-tuner#1039 (a tf_keras model)."""
    imported = (
        "ImportError: cannot import name 'mean_absolute_error' from 'tensorflow.keras.losses' "
        "(/usr/lib/python3.10/site-packages/keras/_tf_keras/keras/losses/__init__.py)"
    )
    received = (
        "keras_tuner.src.errors.FatalTypeError: Expected the model-building function, or HyperModel.build() to return"
        " a valid Keras Model instance. Received: <tf_keras.src.engine.functional.Functional object at 0x7fe49809f8d0>"
    )
    for line in (imported, received):
        assert scan([line, "", ""]).hits[0].signature.id == "keras-2-code-under-keras-3", line
    own = "ImportError: cannot import name 'helper' from 'mypackage.utils' (/src/mypackage/utils.py)"
    assert not [h for h in scan([own, "", ""]).hits if h.signature.category == "keras_version_mismatch"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # LPCNet#81: keras 2.3 moved activations out of keras.layers.
        ("ImportError: cannot import name 'activations' from 'keras.layers' (/opt/keras/layers/__init__.py)", True),
        ("ImportError: cannot import name 'ImageDataGenerator' from 'keras.preprocessing.image'", True),  # diploSHIC#55
        ("ModuleNotFoundError: No module named 'keras.wrappers'", True),  # Keras 2.12 dropped the scikit-learn wrappers
        # No submodule missing: Keras itself is absent, which is not another release of it.
        ("ModuleNotFoundError: No module named 'keras'", False),
        # A script named keras.py shadowing the package: a circular import, not a release.
        ("ImportError: cannot import name 'Dense' from partially initialized module 'keras'", False),
    ],
)
def test_a_name_or_submodule_keras_lacks_is_another_keras_release(line: str, expected: bool):
    """The generic reading: a keras module that exists but lacks what the code imports."""
    ids = [h.signature.id for h in scan([line, "", ""]).hits]
    assert ("keras-name-of-another-release" in ids) is expected, ids


def test_an_unknown_layer_is_a_newer_keras_s_model_only_for_keras_s_own_functional_class():
    """keras-retinanet#1480 (saved by TF 2.3, loaded by 2.2); a layer of the user's own needs custom_objects."""
    saved = (
        "ValueError: Unknown layer: Functional. Please ensure this object is passed to the `custom_objects` argument."
    )
    assert scan([saved, "", ""]).hits[0].signature.id == "keras-model-saved-by-newer-release"
    own = "ValueError: Unknown layer: AttentionBlock. Please ensure this object is passed to the `custom_objects` argument."
    assert not [h for h in scan([own, "", ""]).hits if h.signature.category == "keras_version_mismatch"]


def test_a_common_float_op_without_a_gpu_kernel_is_a_tf_without_a_gpu_not_a_cpu_only_op():
    """deepmedic#138: Softmax has GPU kernels, so TF registered no GPU; InTopK has none of its own."""
    error = (
        "InvalidArgumentError (see above for traceback): Cannot assign a device for operation 'net/Softmax_2': Could"
        " not satisfy explicit device specification '/device:GPU:0' because no supported kernel for GPU devices is"
        " available."
    )
    softmax = '         [[Node: net/Softmax_2 = Softmax[T=DT_FLOAT, _device="/device:GPU:0"](net/truediv_17)]]'
    top = scan([error, softmax, ""]).hits[0]
    assert top.signature.id == "float-op-without-gpu-build"
    assert render_template(top.signature.title, top.groups).startswith("TF has no GPU kernel even for Softmax")
    in_top_k = '	 [[Node: InTopK = InTopK[T=DT_INT64, k=3, _device="/device:GPU:0"](Softmax, label_batch)]]'
    assert scan([error, in_top_k, ""]).hits[0].signature.category == "op_without_gpu_kernel"


def test_a_jetson_s_little_free_shared_memory_is_not_another_process_holding_the_gpu():
    """Codes-for-Lane-Detection#75: a Tegra X2 shares the system's RAM; 1.2 of 7.7 GiB free is not a busy GPU."""
    lines = [
        "name: NVIDIA Tegra X2 major: 6 minor: 2 memoryClockRate(GHz): 1.3005",
        "totalMemory: 7.66GiB freeMemory: 1.21GiB",
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:936] failed to allocate 1.00G (1073741824 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY",
        "",
    ]
    assert scan(lines).hits[0].signature.category == "oom"
    discrete = [lines[0].replace("NVIDIA Tegra X2", "GeForce GTX 1080"), *lines[1:]]
    assert scan(discrete).hits[0].signature.category == "oom_gpu_busy"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Killed", True),  # bash, after the OOM killer's SIGKILL (tensorflow/models#3497)
        ("已杀死", True),  # the same in a Chinese locale
        ("[2]-  Killed                  python3 train.py --batch 64", True),  # job control
        ("Out of memory: Killed process 2231 (python3) total-vm:30212340kB", True),  # the kernel log
        ("The job was Killed by the scheduler after its time limit", False),  # a sentence, not the shell's word
    ],
)
def test_a_shell_s_killed_is_the_oom_killer_and_host_memory(line: str, expected: bool):
    ids = [h.signature.id for h in scan(["Epoch 1/10", line, ""]).hits]
    assert ("killed-by-the-oom-killer" in ids) is expected, ids


def test_a_post_short_of_gpu_memory_is_not_told_as_the_oom_killer():
    """Read by resemblance, a GPU-memory complaint gets a GPU-memory signature, not the host's OOM killer."""
    ids = [h.signature.id for h in scan(["not enough GPU memory to train with batch size 32", "", ""]).hits]
    assert ids and "killed-by-the-oom-killer" not in ids, ids


def test_a_generator_iterator_torn_down_at_exit_is_harmless_not_a_guessed_oom():
    """tensorflow#35100: the warning ends runs that stopped early (EarlyStopping) with exit status 0."""
    teardown = (
        "W tensorflow/core/kernels/data/generator_dataset_op.cc:108] Error occurred when finalizing GeneratorDataset"
        " iterator: FAILED_PRECONDITION: Python interpreter state is not initialized. The process may be terminated."
    )
    hits = scan([teardown, "\t [[{{node PyFunc}}]]", ""]).hits
    assert [h.signature.id for h in hits] == ["benign-dataset-iterator-teardown"]


@pytest.mark.parametrize(
    "line",
    [
        # tensorflow#41949: fit runs successfully with it; the dropout's SelectV2 is the usual graph.
        "E tensorflow/core/grappler/optimizers/meta_optimizer.cc:954] layout failed: INVALID_ARGUMENT: Size of values 0"
        " does not match size of permutation 4 @ fanin shape inmodel/dropout/dropout/SelectV2-2-TransposeNHWCToNCHW-Layout",
        "W tensorflow/core/common_runtime/gpu/gpu_bfc_allocator.cc:47] Overriding orig_value setting because the"
        " TF_FORCE_GPU_ALLOW_GROWTH environment variable is set. Original config value was 0.",
    ],
    ids=["grappler-layout", "allow-growth-honoured"],
)
def test_tf_s_own_notices_at_error_or_warning_level_raise_no_problem(line: str):
    """Each was named by resemblance or by its words as a problem (a cuDNN mismatch, an invalid variable)."""
    hits = scan([line, "", ""]).hits
    assert hits and all(h.signature.benign for h in hits), [h.signature.id for h in hits]


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        ("GPU is not being used during training", True),
        ("tf.test.is_gpu_available() returns False", True),
        ("Training runs on CPU instead of GPU", True),
        ("tensorflow not using gpu", True),
        ("the model trains only on the CPU, nvidia-smi shows 0% usage", True),
        ("I am not using any GPU on this laptop", False),  # a CPU machine by choice, not a GPU unseen
        ("the GPU is being used: 95% utilisation", False),
    ],
)
def test_a_post_s_words_that_the_gpu_goes_unused_are_no_gpu_visible(post: str, expected: bool):
    ids = [h.signature.id for h in scan([post, "", ""]).hits]
    assert ("no-gpu-visible" in ids) is expected, ids


def test_a_post_on_wsl_names_windows_as_its_host_not_the_os_tf_runs_on():
    """tensorflow#60101: "Windows 11 + WSL2" is Linux under TF; native Windows' GPU limit (TF > 2.10) does not apply."""
    wsl = [
        "TensorFlow 2.12.0 WSL2 GPU support",
        "OS Platform and Distribution: Windows 11 + WSL2",
        "GPU is NOT AVAILABLE",
    ]
    result = scan(wsl)
    assert result.context.os is None
    assert "windows-native-no-gpu" not in {h.signature.id for h in result.hits}
    native = ["TensorFlow 2.12.0 GPU support", "OS Platform and Distribution: Windows 11", "GPU is NOT AVAILABLE"]
    assert scan(native).context.os == "windows"
    # a Windows path means TF itself runs on Windows, whatever else the post says
    assert (
        scan(["tried WSL2 before", "C:\\Users\\ada> python check.py", "GPU is NOT AVAILABLE"]).context.os == "windows"
    )


def test_opened_libraries_alone_are_not_told_as_a_gpu_device_created():
    """The issue's "'Successfully opened dynamic library' lines read as 'GPU device created' when none was"."""
    opened = scan(
        [
            "I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened dynamic library libcudart.so.11.0"
        ]
    )
    assert [h.signature.id for h in opened.hits] == ["benign-gpu-libraries-loaded"]
    assert "device" not in opened.hits[0].signature.title.split("(")[0]
    created = scan(
        [
            "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1616] Created device "
            "/job:localhost/replica:0/task:0/device:GPU:0 with 13781 MB memory:  -> device: 0, name: Tesla T4"
        ]
    )
    assert [h.signature.id for h in created.hits] == ["benign-gpu-created"]


@pytest.mark.parametrize(
    ("installed", "expected"),
    [
        (("9.0",), True),
        (("9.1", "8.9"), True),
        (("9.3",), False),
        (("9.5",), False),
        (("9",), False),
        (("9.0", "9.3"), False),
    ],
)
def test_dnn_initialization_failing_is_the_older_cudnn_only_where_every_cudnn_installed_is_older(installed, expected):
    """TF 2.18 is built with cuDNN 9.3 (tested build configurations); cuDNN loads at that major and the same or a later minor."""
    line = "W0000 op_kernel.cc:1841] OP_REQUIRES failed at xla_ops.cc:577 : FAILED_PRECONDITION: DNN library initialization failed."
    found = scan(
        ["TF 2.18 training log", "x", "y", line], ScanContext(tf_version="2.18", cudnn_installed=installed)
    ).hits
    assert ("dnn-init-failed-cudnn-older-than-build" in {h.signature.id for h in found}) is expected


def test_a_template_listing_cuda_and_cudnn_with_their_names_is_read():
    """tensorflow#82669's "CUDA/cuDNN version: CUDA 12.6; CUDNN 9.0": both versions are the machine's."""
    result = scan(["TF 2.18 fails to use GPU", "CUDA/cuDNN version: CUDA 12.6; CUDNN 9.0", "x", "y"])
    assert result.context.cudnn_installed == ("9.0",)
    assert result.context.cuda_installed == ("12.6",)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            'KeyError: "Couldn\'t find field google.protobuf.DescriptorProto.ExtensionRange.options"',
            "protobuf-descriptor-pool-mismatch",
        ),
        ("ImportError: No module named google.protobuf", "protobuf-not-importable"),
        ("ModuleNotFoundError: No module named 'protobuf_to_dict'", None),
        (
            "ValueError: The layer sequential has never been called and thus has no defined output.",
            "keras3-model-never-called",
        ),
        ("AttributeError: The layer has never been called and thus has no defined output shape.", None),
        ("ImportError: cannot import name 'keras_export'", "keras-tensorflow-releases-apart"),
        (
            "  (0) UNKNOWN: CUDNN failed to allocate the scratch space for the runner or to find a working no-scratch runner.",
            "cudnn-scratch-space-not-allocated",
        ),
    ],
)
def test_protobuf_keras_and_cudnn_workspace_messages_are_named(line: str, expected: str | None):
    found = {h.signature.id for h in scan([line]).hits}
    expected_ids = {
        "protobuf-descriptor-pool-mismatch",
        "protobuf-not-importable",
        "keras3-model-never-called",
        "keras-tensorflow-releases-apart",
        "cudnn-scratch-space-not-allocated",
    }
    assert (found & expected_ids) == ({expected} if expected else set())


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        ("I ran Dependency Walker and it complained about cudnn64_5.dll not being found.", "cudnn-not-loaded"),
        ("I copied cudnn64_8.dll into bin and now it is found", None),
        ("'CUDA_ERROR_UNKNOWN' error using DeepVariant GPU version.", "cuinit-unknown-error"),
        ("For TensorFlow 2.4.1 it still refers to `libcusolver.so.10`.", "cusolver-10-with-cuda-11-1"),
        ("TF 2.5 no longer refers to libcusolver.so.10, fixed", None),
        ("please support rtx50xx...", "blackwell-gpu-said-unsupported"),
        ("My RTX 5080 runs fine with the NGC container", None),
    ],
)
def test_a_post_s_words_name_a_missing_cudnn_dll_cuinit_unknown_the_cuda_11_0_cusolver_and_blackwell(post, expected):
    """deepvariant#619, tensorflow#9819, #45263, #95705: the cause said in a title or a post's own words."""
    ids = {"cudnn-not-loaded", "cuinit-unknown-error", "cusolver-10-with-cuda-11-1", "blackwell-gpu-said-unsupported"}
    found = {h.signature.id for h in scan([post]).hits if h.reading is not Reading.BY_RESEMBLANCE}
    assert (found & ids) == ({expected} if expected else set())


def test_the_kernel_module_version_nvrm_prints_is_compared_with_libcuda_s():
    """dlami#5: /proc/driver/nvidia/version's NVRM line is the kernel side of TF's own comparison."""
    cuinit = "E tensorflow/stream_executor/cuda/cuda_driver.cc:466] failed call to cuInit: CUDA_ERROR_NO_DEVICE"
    libcuda = "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:146] libcuda reported version is: 367.57.0"
    nvrm = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  367.48  Sat Sep  3 18:21:08 PDT 2016"
    differ = scan([cuinit, libcuda, nvrm])
    assert differ.context.driver_differs and differ.hits[0].signature.id == "driver-reported-versions-differ"
    same = scan([cuinit, libcuda, nvrm.replace("367.48", "367.57")])
    assert same.context.driver_differs is False


def test_a_release_older_than_the_architecture_table_runs_a_newer_gpu_by_ptx_at_best():
    """A CUDA 9.0 build (TF 1.9) on an RTX 2080 Ti (sm_75, first targeted by CUDA 10.0): no SASS, no cuBLAS kernels."""
    gemm = "InternalError: Blas GEMM launch failed : a.shape=(64, 32), b.shape=(32, 32), m=64, n=32, k=32"
    result = scan([gemm], ScanContext(tf_version="1.9", gpu_cc=(7, 5)))
    assert result.context.kernels is KernelSupport.PTX_JIT
    assert scan([gemm], ScanContext(tf_version="1.9", gpu_cc=(6, 1))).context.kernels is None  # a GPU CUDA 9.0 targets


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "2019-09-10 09:44:48.460733: W tensorflow/core/framework/op_kernel.cc:1502] OP_REQUIRES failed at cudnn_rnn_ops.cc:1336 : Unknown: CUDNN_STATUS_BAD_PARAM",
            "cudnn-rnn-op-failed",
        ),
        (
            "2024-01-01 10:00:00.000000: I tensorflow/core/common_runtime/bfc_allocator.cc:1066] InUse at 7f1c2a000000 of size 1048576 next 18",
            "resource-exhausted",
        ),
        (
            "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover this GPU",
            "gpu-fallen-off-bus",
        ),
        (
            "RuntimeError: Usage of cuDNN RNN layers require GPU along with cuDNN library",
            "deeppavlov-cudnn-rnn-without-gpu",
        ),
        ("NVIDIA-SMI has failed because it couldn‘t communicate with the NVIDIA driver.", "nvidia-smi-no-driver"),
        (
            "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.11 (from versions: 2.9.3, 2.10.0, 2.10.1, 2.12.0)",
            "tensorflow-gpu-after-2-10-on-windows",
        ),
        # Linux lists 2.11.0 before 2.12.0: there the version exists, and the cause is elsewhere
        (
            "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.13 (from versions: 2.10.0, 2.10.1, 2.11.0, 2.12.0)",
            None,
        ),
        (
            "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.10 (from versions: 2.9.3, 2.10.0, 2.10.1)",
            None,
        ),
    ],
)
def test_an_rnn_op_status_a_bfc_chunk_a_lost_gpu_deeppavlov_and_the_windows_tensorflow_gpu_list_are_named(
    line, expected
):
    """Kashgari#236 / tensorflow#33148, dcscn#124, OWOD#81, DeepPavlov#258, envs#4, TFODCourse#118 / tensorflow#62073."""
    ids = {
        "cudnn-rnn-op-failed",
        "resource-exhausted",
        "gpu-fallen-off-bus",
        "deeppavlov-cudnn-rnn-without-gpu",
        "tensorflow-gpu-after-2-10-on-windows",
        "keras-version-mismatch",
        "nvidia-smi-no-driver",
    }
    found = {h.signature.id for h in scan([line]).hits if h.reading is not Reading.BY_RESEMBLANCE}
    assert (found & ids) == ({expected} if expected else set())


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        ("Tensorflow GPU libarary Libcudart.so.11.0 not found", "cudart-so-not-loaded"),
        ("libcudart.so.11.0 is found now, thanks", None),
        ("Tensorflow 1.1not compatible with cuda 9 or 10", "cuda-tf-mismatch-said"),
        ("TF1.5.0 not working with CUDA 8.0", "cuda-tf-mismatch-said"),
        ("TF 2.4 is compatible with CUDA 11.0", None),
        ("it works perfectly when I use tensorflow 2.13.1 but errors on 2.16.1", "keras-version-mismatch"),
        ("it fails with tensorflow 2.16.1 and with tensorflow 2.15.1 too", None),
    ],
)
def test_a_post_s_words_name_a_missing_cudart_a_tf_cuda_mismatch_and_a_keras_3_regression(post, expected):
    """tf-keras-stacked-hourglass#13, NLP-Models-Tensorflow#19 / tensorflow#16513, DeepSlice#52."""
    ids = {"cudart-so-not-loaded", "cuda-tf-mismatch-said", "keras-version-mismatch"}
    found = {h.signature.id for h in scan([post]).hits if h.reading is not Reading.BY_RESEMBLANCE}
    assert (found & ids) == ({expected} if expected else set())


def test_a_keras_3_regression_is_read_as_written_through_a_long_log():
    """inaFaceAnalyzer#36: the post's line ranks above the CUDA-runtime note TF 2.16 printed on that node."""
    stub = "2024-10-07 17:18:33.688590: I external/local_tsl/tsl/cuda/cudart_stub.cc:32] Could not find cuda drivers on your machine, GPU will not be used."
    head = ["loading models with tensorflow >= 2.16.1", "I cannot load face classification models"]
    said = "the following lines of code works well with tf 2.15.1 but do not finish with tensorflow 2.16.1"
    assert scan([*head, said, stub, stub]).hits[0].signature.id == "keras-version-mismatch"
    fine = "the following lines of code works well with tf 2.15.1 and with tensorflow 2.16.1"
    assert "keras-version-mismatch" not in {h.signature.id for h in scan([*head, fine, stub, stub]).hits}


def test_a_string_op_pinned_to_the_gpu_is_the_op_without_a_gpu_kernel_and_grappler_s_note_of_it_is_not():
    refused = (
        "tensorflow.python.framework.errors_impl.NotFoundError: No registered 'Size' OpKernel for GPU devices"
        " compatible with node module_apply_default/compound_bigrams/boolean_mask/Prod = Size[T=DT_STRING]"
    )
    executor = "Executor failed to create kernel. Not found: No registered 'Size' OpKernel for GPU devices compatible with node {{node a/Prod}}"
    for line in (refused, executor, "NotFoundError (see above for traceback): " + refused.split(": ", 1)[1]):
        assert scan([line]).hits[0].signature.id == "op-without-gpu-kernel", line
    grappler = (
        "2021-01-05 21:47:57.979252: W tensorflow/core/grappler/utils/graph_view.cc:830] No registered 'att_sum_dot'"
        " OpKernel for GPU devices compatible with node {{node model/att_sum_dot}}.  Registered:  <no registered kernels>"
    )
    assert not any(  # only a guess by its words may name it: as written it is Grappler's note, not the refusal
        h.signature.id == "op-without-gpu-kernel" and h.reading is Reading.AS_WRITTEN for h in scan([grappler]).hits
    )


def test_a_title_s_bare_libcuda_import_error_is_read_and_a_container_makes_it_the_runtime():
    title = "ImportError: libcuda.so.1"
    assert scan([title], ScanContext(container=True)).hits[0].signature.id == "libcuda-import-failed-in-container"
    assert scan([title]).hits[0].signature.id == "libcuda-import-failed"
    assert not any(
        h.signature.id.startswith("libcuda-import") for h in scan(["ImportError: libcuda.so.1 was found"]).hits
    )


def test_a_factory_notice_cut_short_where_the_paste_ends_is_harmless_and_another_unable_to_is_not():
    lines = [
        "E0000 00:00:1737659286.484845  763412 cuda_dnn.cc:8310] Unable to register cuDNN factory: Attempting to"
        " register factory for plugin cuDNN when one has already been registered",
        "E0000 00:00:1737659286.489647  763412 cuda_blas.cc:1418] Unable to",
    ]
    result = scan(lines)
    assert result.hits and all(h.signature.benign for h in result.hits)
    other = "E0000 00:00:1737659286.489647  763412 cuda_blas.cc:190] Unable to create a cuBLAS handle: out of memory"
    assert any(not h.signature.benign for h in scan([other]).hits)


def test_a_missing_cuda_runtime_where_nothing_shows_a_gpu_is_a_warning_and_an_error_where_one_is():
    title = ["Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"]
    unknown = scan(title)
    assert (unknown.hits[0].signature.id, unknown.severity(unknown.hits[0])) == (
        "cudart-dll-not-found",
        Severity.WARNING,
    )
    present = scan(title, ScanContext(no_gpu=False))  # the facts: a GPU is here
    assert (present.hits[0].signature.id, present.severity(present.hits[0])) == ("cudart-dll-not-found", Severity.ERROR)
    wanted = scan([*title, "I installed CUDA 11.2 but TF does not use my RTX 3060"])
    assert wanted.hits[0].signature.id == "cudart-dll-not-found" and wanted.severity(wanted.hits[0]) is Severity.ERROR


def test_library_names_and_tf_records_stripped_of_their_level_are_not_a_poster_asking_for_a_gpu():
    assert not asks_for_gpu("cudart64_110.dll not found")
    assert not asks_for_gpu(
        "tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library"
        " 'cudart64_101.dll'; dlerror: cudart64_101.dll not found"
    )
    assert asks_for_gpu("I have CUDA 10.1 and cudnn64_7.dll installed")
    assert asks_for_gpu("My GPU is not used")


def test_a_record_broken_mid_word_is_read_as_one_word_and_a_wrap_at_a_blank_still_reads_with_the_blank():
    broken = [
        "2017-07-25 21:11:16.630413: E tensorflow/core/common_runtime/direct_session.cc:138] Internal: failed"
        " initializing StreamExecutor for CUDA device ordinal 0: Internal: failed call to cuDevicePrimary",
        "CtxRetain: CUDA_ERROR_OUT_OF_MEMORY; total memory reported: 11711807488",
    ]
    assert scan(broken).hits[0].signature.id == "context-creation-oom"
    wrapped = [
        "2019-04-10 10:31:07.215519: E tensorflow/stream_executor/cuda/cuda_dnn.cc:378] Loaded runtime CuDNN library: 7201"
        " (compatibility version 7200) but source was",
        "compiled with 7004 (compatibility version 7000).",
    ]
    assert scan(wrapped).hits[0].signature.category == "cudnn_version_mismatch"


def test_cuda_error_216_is_a_context_bound_to_another_thread_and_another_check_failure_is_not():
    line = "Check failed: CUDA_SUCCESS == dynload::cuCtxSetCurrent(context) (0 vs. 216)"
    assert scan([line]).hits[0].signature.id == "context-in-use-exclusive-thread"
    other = "Check failed: CUDA_SUCCESS == cuCtxSetCurrent(cuda_context->context()) (0 vs. 4)"
    assert all(h.signature.id != "context-in-use-exclusive-thread" for h in scan([other]).hits)


@pytest.mark.parametrize(
    ("post", "tf", "first"),
    [
        ("TF 2.4 not using GPU", "2.4", "no-gpu-visible"),
        ("Tensorflow 2.10 Cuda 12.1 gpu not found", "2.10", "tf-built-for-another-cuda"),  # 2.10 is built for 11.2
        ("TF 2.4 + CUDA 10.1: GPU not found", "2.4", "tf-built-for-another-cuda"),  # 2.4 is built for 11.0
    ],
)
def test_a_post_s_tf_abbreviation_and_a_cuda_beside_its_release_are_read(post, tf, first):
    result = scan([post])
    assert result.context.tf_version == tf
    assert result.hits[0].signature.id == first


def test_a_tf_abbreviation_needs_a_release_beside_it():
    assert scan(["TF32 is on for matmuls", "tf 1.x code"]).context.tf_version is None


def test_cudnn_running_out_of_gpu_memory_while_profiling_is_an_oom_and_tf_s_workspace_cap_is_not():
    profiling = [
        "No algorithm worked!  Error messages:",
        "  Profiling failure on CUDNN engine 1#TC: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 95420720 bytes.",
    ]
    assert scan(profiling).hits[0].signature.category == "oom"
    capped = [
        "No algorithm worked!  Error messages:",
        "  Profiling failure on CUDNN engine 1#TC: RESOURCE_EXHAUSTED: Allocating 4718624784 bytes exceeds the memory"
        " limit of 4294967296 bytes.",
    ]
    assert scan(capped).hits[0].signature.id == "cudnn-workspace-limit"


@pytest.mark.parametrize(
    ("post", "first"),
    [
        ("cuDNN 7.1 incompatible", "cudnn-version-mismatch-said"),
        (
            "when installing tensorflow-gpu tensorflow (cpu version) also installs. gpu becomes unaccessible.",
            "cpu-package-shadows-gpu",
        ),
    ],
)
def test_a_cudnn_release_said_incompatible_and_the_cpu_package_installed_in_parentheses_are_named(post, first):
    assert scan([post]).hits[0].signature.id == first


def test_a_cudnn_release_said_not_incompatible_names_nothing():
    assert all(h.signature.category != "cudnn_version_mismatch" for h in scan(["cuDNN 7.1 is not incompatible"]).hits)


@pytest.mark.parametrize(
    ("line", "first"),
    [
        ("Python import error, undefined symbol: secure_getenv", "glibc-symbol-missing"),
        (
            "F tensorflow/stream_executor/cuda/cuda_dnn.cc:222] Check failed: s.ok() could not find cudnnCreate in cudnn"
            " DSO; dlerror: /x/tensorflow/python/_pywrap_tensorflow.so: undefined symbol: cudnnCreate",
            "cudnn-not-loaded",
        ),
        (
            "System.DllNotFoundException: 'Unable to load DLL 'tensorflow': The specified module could not be found."
            " (Exception from HRESULT: 0x8007007E)'",
            "windows-dll-load-failed",
        ),
    ],
)
def test_an_undefined_libc_or_cudnn_symbol_and_a_dotnet_tensorflow_dll_are_named(line, first):
    assert scan([line]).hits[0].signature.id == first


def test_another_undefined_symbol_is_not_an_old_glibc():
    line = "ImportError: _pywrap_tensorflow_internal.so: undefined symbol: _ZN10tensorflow8internal"
    assert all(h.signature.category != "glibc_too_old" for h in scan([line]).hits)


@pytest.mark.parametrize(
    "post",
    [
        "the notebook could not see my GPU",
        "during training, DLC is using only my CPU",
        "the model is running on CPU only",
    ],
)
def test_a_poster_s_could_not_see_and_cpu_only_are_the_no_gpu_complaint(post):
    assert scan([post]).hits[0].signature.id == "no-gpu-visible"


@pytest.mark.parametrize(
    ("post", "context", "first"),
    [
        (
            [
                "GPU not found on docker",
                "as i tried to train a model, docker could not see my GPU.",
                "Instead of this docker run -itd --rm --name c -v /a:/b image,",
                "more words",
            ],
            ScanContext(container=True),
            "gpu-not-used-in-container",
        ),
        (
            [
                "TypeError linked to protobuf on Rasa 3.3.2 when trying to import Validator",
                "from rasa.validator import Validator",
                "/x/rasa/validator.py:5: in <module>",
                "    import rasa.core.training.story_conflict",
            ],
            None,
            "protobuf-incompatible",
        ),
    ],
)
def test_a_container_s_no_gpu_complaint_and_a_protobuf_type_error_are_read_in_a_longer_post(post, context, first):
    assert scan(post, context).hits[0].signature.id == first


def test_asking_to_use_another_makers_gpu_on_a_machine_without_nvidia_is_benign():
    post = ["SLEAP with Radeon GPU", "I am looking to use SLEAP with an AMD Radeon GPU."]
    first = scan(post, ScanContext(gpu=GpuKnown.ABSENT)).hits[0]
    assert (first.signature.id, first.signature.benign) == ("gpu-asked-other-graphics", True)


@pytest.mark.parametrize(
    ("post", "category"),
    [
        ("Importing the model fails with a TypeError from protobuf", "protobuf_incompatible"),
        ("Had to downgrade to keras 2.1.5 to load it", "keras_version_mismatch"),
        ("\t [[replica_1/batch_normalization/NcclAllReduce]]", "nccl_multi_gpu"),
        ("NotFoundError running the xla example: libdevice.compute_35.10.bc", "xla_libdevice_ptxas_missing"),
        ("XLA is unable to find libdevice when run outside bazel", "xla_libdevice_ptxas_missing"),
        ("The run-nvidia image lacks cudnn7", "missing_cuda_library"),
        ("训练时内存持续增长到OOM", "oom"),
    ],
)
def test_set_32_s_phrasings_name_their_problem(post, category):
    assert scan([post]).hits[0].signature.category == category


@pytest.mark.parametrize(
    "post",
    [
        "pip install of tensorflow-text disables tensorflow-gpu",
        "After installing this package my model is running on CPU only",
    ],
)
def test_a_package_that_replaces_the_gpu_build_is_named(post):
    assert scan([post]).hits[0].signature.id == "cpu-package-shadows-gpu"


@pytest.mark.parametrize(
    ("post", "category"),
    [
        ("protobuf 3.20 works fine here", "protobuf_incompatible"),
        ("we upgraded keras last week", "keras_version_mismatch"),
        ("OOMKilled by the kubelet? no, 训练正常", "oom"),
    ],
)
def test_near_misses_of_set_32_s_phrasings_name_nothing(post, category):
    assert all(h.signature.category != category for h in scan([post]).hits)


def test_an_op_library_asking_for_another_cuda_than_tf_s_build_is_the_wrong_cuda():
    line = "NotFoundError: libcudart.so.10.0: cannot open shared object file: No such file or directory"
    first = scan([line], ScanContext(tf_version="2.2")).hits[0]  # TF 2.2 is built for CUDA 10.1
    assert first.signature.id == "cuda-library-for-another-tf-build"
    assert first.groups["built"] == "10.1" and first.groups["library"] == "libcudart.so.10.0"
    same = scan([line], ScanContext(tf_version="1.14")).hits  # TF 1.14 is built for CUDA 10.0: TF's own runtime
    assert all(h.signature.id != "cuda-library-for-another-tf-build" for h in same)


def test_a_writer_without_a_gpu_gets_no_error_for_tf_s_missing_cuda_notices():
    post = [
        "Cuda Library not found",
        "I don't have a GPU in my Laptop. I installed tensorflow using Pip inside a Conda Environment.",
        "pip install tensorflow",
        ">>> import tensorflow",
        "and I got this error -",
    ]
    result = scan(post)
    assert result.context.gpu is GpuKnown.ABSENT
    assert not [h for h in result.hits if result.severity(h) is Severity.ERROR]
    assert result.hits[0].signature.id == "no-gpu-said"


def test_the_no_gpu_complaint_stays_where_the_writer_has_a_gpu():
    assert scan(["Cuda Library not found, my GTX 1060 is not detected"]).hits[0].signature.id == "no-gpu-visible"


@pytest.mark.parametrize(
    ("post", "first"),
    [
        ("ADC: libcublas.so.9.0 issue", "cuda-library-import-error"),
        (
            "one notebook was working, but not a second, because the first notebook had not released the GPU resources",
            "gpu-held-by-another-process-said",
        ),
        ("the jupyter kernel still holds the GPU memory after training", "gpu-held-by-another-process-said"),
    ],
)
def test_a_soname_s_issue_and_a_notebook_holding_the_gpu_are_named(post, first):
    assert scan([post]).hits[0].signature.id == first


def test_a_notebook_that_released_the_gpu_is_not_holding_it():
    hits = scan(["after the first notebook released the GPU memory the second ran"]).hits
    assert all(h.signature.category != "oom_gpu_busy" for h in hits)


@pytest.mark.parametrize("mark", ["# ", "> "])
def test_a_log_quoted_or_commented_out_is_read_as_the_records_it_quotes(mark):
    post = [
        "Set LD_LIBRARY_PATH on activate",
        f"{mark}W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic",
        f"{mark}library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object",
        f"{mark}file: No such file or directory",
    ]
    first = scan(post, ScanContext(no_gpu=False)).hits[0]
    assert first.signature.category == "missing_cuda_library"
    assert first.quotes[0][1].startswith("W tensorflow/")


AMD_REPORT = [
    "TensorFlow does not support AMD Graphics Cards on Windows",
    "### CUDA/cuDNN version",
    "Not applicable (as I am using an AMD GPU)",
    "### GPU model and memory",
    "{gpu}, 8GB VRAM",
    "TensorFlow does not detect or utilize my GPU for training models on Windows. It defaults to CPU.",
    "print(len(tf.config.list_physical_devices('GPU')))",
    "# Num GPUs Available: 0",
    "2024-09-14 12:34:56.789123: I tensorflow/stream_executor/platform/default/dso_loader.cc:44] "
    "Successfully opened dynamic library cudart64_110.dll",
]


def test_a_report_naming_only_another_makers_gpu_is_a_cpu_machine_not_a_windows_build_problem():
    context = ScanContext(os="windows", tf_version="2.12")
    amd = scan([line.format(gpu="AMD Radeon RX 580") for line in AMD_REPORT], context)
    assert amd.context.gpu is GpuKnown.ABSENT
    assert not [h for h in amd.hits if amd.severity(h) is Severity.ERROR]
    assert "gpu-asked-other-graphics" in [h.signature.id for h in amd.hits]
    nvidia = scan([line.format(gpu="NVIDIA GeForce GTX 1060") for line in AMD_REPORT], context)
    assert nvidia.hits[0].signature.id == "windows-native-no-gpu"


def test_other_graphics_named_beside_a_gpu_device_tf_created_leave_the_gpu_present():
    log = [
        "my laptop also has Intel UHD Graphics 620",
        "step one",
        "step two",
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1510] Created device "
        "/job:localhost/replica:0/task:0/device:GPU:0 with 3000 MB memory",
    ]
    assert scan(log).context.gpu is GpuKnown.PRESENT


@pytest.mark.parametrize(
    ("post", "category", "named"),
    [
        ("How can I run it on a 5090?", "blackwell_unsupported_arch", True),
        ("I train on my RTX 5080 daily", "blackwell_unsupported_arch", True),
        ("How can I run it on a 3090?", "blackwell_unsupported_arch", False),
        ("this is just because tf 2.18 needs cuDNN 9.3 library on the runtime", "cudnn_version_mismatch", True),
        ("tf 2.18 needs numpy 2.0 on the runtime", "cudnn_version_mismatch", False),
        ("TensorFlow 2.4 requires CUDA 11.0 and cuDNN 8.0", "cudnn_version_mismatch", False),
    ],
)
def test_an_rtx_50_card_to_run_on_and_a_release_said_to_need_another_cudnn_are_named(post, category, named):
    assert (category in [h.signature.category for h in scan([post]).hits]) is named


@pytest.mark.parametrize(
    ("post", "first"),
    [
        ("libdevice was found at /usr/local/cuda/nvvm/libdevice", None),
        ("Successfully installed tensorflow-2.3.1-cp36-cp36m-linux_aarch64.whl", None),
        ("ERROR: tensorflow-2.3.1-cp36-cp36m-linux_aarch64.whl is not a supported wheel on this platform.", "3.6"),
    ],
)
def test_a_wheel_pip_rejects_names_the_python_it_was_built_for_and_found_libdevice_is_no_error(post, first):
    hits = [h for h in scan([post]).hits if not h.signature.benign]
    if first is None:
        assert not hits
    else:
        assert hits[0].signature.id == "tensorflow-wheel-for-another-python"
        assert f"{hits[0].groups['py']}.{hits[0].groups['minor']}" == first


def test_a_cudnn_that_loaded_without_a_versioned_entry_point_is_another_version_not_a_missing_library():
    missing = "F tensorflow/stream_executor/cuda/cuda_dnn.cc:222] Check failed: s.ok() could not find cudnnCreate in cudnn DSO"
    assert scan([missing]).hits[0].signature.id == "cudnn-not-loaded"
    other = "could not find cudnnConvolutionBackwardData_v2 in cudnn DSO; dlerror: libcudnn.so: undefined symbol"
    first = scan([other]).hits[0]
    assert first.signature.id == "cudnn-symbol-of-another-version"
    assert first.groups["symbol"] == "cudnnConvolutionBackwardData_v2"


@pytest.mark.parametrize(
    ("post", "installed", "signature", "named"),
    [
        ("I didn't have tensorflow-gpu installed, only tensorflow", None, "cpu-package-shadows-gpu", True),
        ("I have tensorflow-gpu installed and it works", None, "cpu-package-shadows-gpu", False),
        ("I'm getting the 'can't find libcusolver.so.90' error", ("10",), "cuda-runtime-of-another-version", True),
        ("I'm getting the 'can't find libcusolver.so.10.0' error", ("10.0",), "cuda-runtime-of-another-version", False),
    ],
)
def test_a_gpu_build_not_installed_and_a_soname_of_another_cuda_said_in_a_post_are_named(
    post, installed, signature, named
):
    hits = scan([post], ScanContext(cuda_installed=installed)).hits
    assert (signature in [h.signature.id for h in hits]) is named


def test_cuinit_s_system_not_ready_is_the_fabric_manager_and_other_codes_stay_cuinit_failed():
    """alphafold#749: error 802 on NVSwitch machines, whose Fabric Manager is not running."""
    not_ready = "E external/xla/xla/stream_executor/cuda/cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_SYSTEM_NOT_READY: system not yet initialized"
    first = scan([not_ready]).hits[0]
    assert first.signature.id == "cuinit-system-not-ready"
    assert "fabricmanager" in first.signature.fix
    other = "E tensorflow/stream_executor/cuda/cuda_driver.cc:491] failed call to cuInit: CUDA_ERROR_INVALID_VALUE"
    assert scan([other]).hits[0].signature.id == "cuinit-failed"


def test_tf_1_x_s_own_words_for_a_missing_cupti_are_the_profiler_s_not_a_missing_cuda_library():
    """tensorflow#11640: TF 1.2's dso_loader names libcupti.so.8.0 when a FULL_TRACE asks for it."""
    cupti = "I tensorflow/stream_executor/dso_loader.cc:129] Couldn't open CUDA library libcupti.so.8.0. LD_LIBRARY_PATH: /usr/lib"
    fatal = "F ./tensorflow/stream_executor/lib/statusor.h:205] Non-OK-status: status_ status: Failed precondition: could not dlopen DSO: libcupti.so.8.0; dlerror: libcupti.so.8.0: cannot open shared object file"
    assert [h.signature.category for h in scan([cupti, fatal]).hits][:1] == ["profiler_cupti_missing"]
    cudnn = (
        "I tensorflow/stream_executor/dso_loader.cc:105] Couldn't open CUDA library libcudnn.so.5. LD_LIBRARY_PATH: "
    )
    assert scan([cudnn]).hits[0].signature.id == "cuda-library-not-opened-tf0"


def test_cuda_11_0_s_cusolver_retyped_in_lower_case_is_still_tf_2_4_s():
    """TensorRT#964: a poster retypes TF's line without its capital or quotes."""
    said = "could not load dynamic library libcusolver.so.10"
    assert (
        scan([said, "", ""], ScanContext(cuda_installed=("11.1",))).hits[0].signature.id == "cusolver-10-with-cuda-11-1"
    )


@pytest.mark.parametrize(
    ("post", "named"),
    [
        ("Cannot make use of the GPU when trying to use this app", True),
        ("TensorFlow 1.14 or 1.15 not detecting the Titan XP GPU", True),
        ("I am not seeing any improvement with the gpu", False),
        ("it can make use of the CPU only for now", False),
    ],
)
def test_a_gpu_a_poster_cannot_make_use_of_or_a_named_card_not_detected_is_a_gpu_not_found(post, named):
    """tensorflow#58875, #44330: with TF 2.11 and CUDA 12 installed, the release's CUDA is the cause.

    Where the words say no GPU was found; a post about the GPU that says no such thing gets the same cause from the
    versions alone, told as such.
    """
    context = ScanContext(tf_version="2.11", cuda_installed=("12",))
    hits = scan([post, "", ""], context).hits
    by_words = [h.signature.id for h in hits if h.reading is not Reading.BY_VERSIONS]
    assert ("tf-built-for-another-cuda" in by_words) is named


@pytest.mark.parametrize(
    ("post", "signature", "named"),
    [
        ("I don't believe I have any NVIDIA hardware or software on my computer.", "no-gpu-said", True),
        ("I don't have any hardware problems, the GPU is fine", "no-gpu-said", False),
        (
            "my laptop has Intel HD graphics 4000. it seemed like does not support the CUDA.",
            "gpu-asked-other-graphics",
            True,
        ),
        ("my laptop has Intel HD graphics 4000 and it renders fine", "gpu-asked-other-graphics", False),
    ],
)
def test_a_writer_without_nvidia_hardware_or_whose_intel_graphics_lack_cuda_is_a_cpu_machine(post, signature, named):
    """tensorflow#9302, #6993: the machine's graphics are Intel's, so TF runs on the CPU."""
    assert (signature in [h.signature.id for h in scan([post, "", ""]).hits]) is named


@pytest.mark.parametrize(
    ("lines", "named"),
    [
        (["Cannot detect GPU because its install new tensorflow version"], True),
        (["!pip install keras-nlp", "In google colab, after importing keras-nlp, access to GPU is lost:"], True),
        (["I installed a newer version of tensorflow and training is faster now"], False),
        (["after installing keras-nlp the notebook runs fine"], False),
    ],
)
def test_a_package_install_that_replaced_tensorflow_before_the_gpu_vanished_is_the_wrong_cuda(lines, named):
    """mediapipe#4967, keras-hub#1321: a package's requirements replaced Colab's TF with a release for another CUDA."""
    ids = [h.signature.id for h in scan([*lines, "", ""]).hits]
    assert ("package-install-replaced-tf" in ids) is named


def test_a_poster_s_access_to_the_gpu_lost_is_not_the_gpu_falling_off_the_bus():
    lost = "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost.  Reboot the system to recover this GPU"
    assert scan([lost]).hits[0].signature.id == "gpu-fallen-off-bus"
    said = "after importing keras-nlp, access to GPU is lost"
    assert "gpu-fallen-off-bus" not in [h.signature.id for h in scan([said]).hits]


def test_pip_finding_no_nvidia_cuda_wheel_on_native_windows_is_the_windows_platform():
    """birdnet#4: the [and-cuda] extra's NVIDIA wheels exist for Linux only."""
    pip = (
        "ERROR: Could not find a version that satisfies the requirement nvidia-cuda-nvcc-cu12 (from birdnet[and-cuda])"
    )
    windows = ScanContext(os="windows", tf_version="2.15")
    assert scan([pip, "", ""], windows).hits[0].signature.id == "windows-native-no-gpu"
    assert "windows-native-no-gpu" not in [h.signature.id for h in scan([pip, "", ""], ScanContext(os="linux")).hits]


@pytest.mark.parametrize(
    ("line", "signature"),
    [
        # tensorflow/addons#574: a source-built TF (GCC 5+, C++11 strings) beside the PyPI wheel's old-ABI op
        (
            "NotFoundError: /opt/conda/lib/python3.6/site-packages/tensorflow_addons/custom_ops/activations/"
            "_activation_ops.so: undefined symbol: _ZN10tensorflow12OpDefBuilder4AttrESs",
            "op-library-old-string-abi",
        ),
        # tensorflow#1569: an op gcc 5 compiled with C++11 strings, against a TF built with the old ABI
        (
            "zero_out.so: undefined symbol: _ZN10tensorflow8internal21CheckOpMessageBuilder9NewStringB5cxx11Ev",
            "op-library-cxx11-string-abi",
        ),
        # tensorflow#13607: since TF 1.4 an op must link libtensorflow_framework
        (
            "./max_align_bytes_op.so: undefined symbol: _ZTIN10tensorflow8OpKernelE",
            "op-library-not-linked-to-framework",
        ),
        # tensorflow/text#961: a tensorflow_text release built for another TF
        (
            "NotFoundError: /usr/local/lib/python3.7/dist-packages/tensorflow_text/python/metrics/"
            "_text_similarity_metric_ops.so: undefined symbol: _ZN10tensorflow8OpKernel11TraceStringEPNS_15OpKernelContextEb",
            "op-library-built-for-other-tf",
        ),
        # tensorflow/addons#990: the GPU-built op under tensorflow-cpu
        (
            "/usr/lib/python3.7/site-packages/tensorflow_addons/custom_ops/activations/_activation_ops.so: "
            "undefined symbol: __cudaPushCallConfiguration",
            "op-library-built-for-other-tf",
        ),
    ],
)
def test_an_op_library_s_missing_symbol_says_which_side_of_the_build_differs(line, signature):
    """The mangled name tells the C++ string ABI (Ss vs B5cxx11), a missing framework link, or another release."""
    hits = scan([line]).hits
    assert hits[0].signature.id == signature
    assert hits[0].signature.category == "op_library_mismatch"


@pytest.mark.parametrize(
    "line",
    [
        # TF's own CUDA libraries: a cuDNN or nvJitLink without its symbol is not an op library built for another TF
        "libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12",
        "F tensorflow/stream_executor/cuda/cuda_dnn.cc:222] could not find cudnnCreate in cudnn DSO; dlerror: "
        "/usr/lib/python3.5/site-packages/tensorflow/python/_pywrap_tensorflow.so: undefined symbol: cudnnCreate",
        # an old glibc's symbol is the C library, not TensorFlow's ABI
        "ImportError: /usr/lib/libstdc++.so.6: undefined symbol: __cxa_thread_atexit_impl",
    ],
)
def test_undefined_symbols_of_tf_s_own_libraries_or_the_c_library_are_not_an_op_library(line):
    assert "op_library_mismatch" not in [h.signature.category for h in scan([line]).hits]


def test_a_library_path_and_its_undefined_symbol_broken_after_a_colon_are_joined():
    """tensorflow/io#1871: the post broke 'libtensorflow_io.so: ' / 'undefined symbol:' / the symbol over three lines."""
    lines = [
        "caused by: ['/opt/conda/lib/python3.11/site-packages/tensorflow_io/python/ops/libtensorflow_io.so: ",
        "undefined symbol:",
        "_ZNK10tensorflow4data11DatasetBase8FinalizeEPNS_15OpKernelContextE']",
    ]
    assert scan(lines).hits[0].signature.category == "op_library_mismatch"


@pytest.mark.parametrize(
    ("lines", "named"),
    [
        (["Segmentation fault when using tfa.rotate in tf-nightly"], True),
        (["Horovod+tensorflow 1.14.0 throw segmentation fault"], True),
        (["my training with tfa losses runs fine"], False),
        # a named cause in the same log outranks the guess
        (
            [
                "Horovod crashed during allreduce",
                "NCCL WARN Error : ring 0 does not contain rank 1",
                "tensorflow.python.framework.errors_impl.UnknownError: ncclUnhandledCudaError: Call to CUDA function failed.",
            ],
            False,
        ),
    ],
)
def test_an_add_on_that_crashed_the_process_is_read_as_built_for_another_release_only_alone(lines, named):
    """tensorflow/addons#1277, horovod#1232: an add-on's ops loaded into a TF they were not built for can crash."""
    assert ("add-on-crashed" in [h.signature.id for h in scan([*lines, "", ""]).hits]) is named


@pytest.mark.parametrize(
    ("lines", "signature"),
    [
        (
            ['Setting up TensorFlow plugin "fused_bias_act.cu": Preprocessing... Compiling... Failed!'],
            "op-plugin-compile-failed",
        ),
        (
            [
                "RuntimeError: NVCC returned an error. See below for full command line and output log:",
                "/bin/sh: nvcc: command not found",
            ],
            "op-build-nvcc-missing",
        ),
        (["RuntimeError: Could not find MSVC/GCC/CLANG installation on this computer."], "op-build-compiler-unusable"),
        (
            [
                "INFO: Compiler /usr/bin/g++ (version 5.4.0 20160609) is not usable for this TensorFlow installation. "
                "Require g++ (version >=7.3.1 20180303, <999)."
            ],
            "op-build-compiler-unusable",
        ),
    ],
)
def test_an_op_compiled_at_run_time_that_fails_names_what_the_build_lacked(lines, signature):
    """stylegan2-ada#11, #71; StyleFlow#13; nvtx-plugins#18."""
    hits = scan(lines).hits
    assert hits[0].signature.id == signature
    assert hits[0].signature.category == "custom_op_build_failed"


def test_nvcc_missing_outside_an_op_build_is_not_a_failed_build():
    """A poster checking `nvcc --version` on a pip-wheel install: TF needs no nvcc, so nothing failed to build."""
    ids = [h.signature.id for h in scan(["$ nvcc --version", "bash: nvcc: command not found", ""]).hits]
    assert "op-build-nvcc-missing" not in ids


def test_pytorch_out_of_memory_beside_tf_s_own_gpu_device_is_the_memory_tf_reserved():
    """alibi-detect#432, finetuner#328: TF reserves nearly all of the GPU when it creates its device."""
    created = (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1525] Created device /job:localhost/replica:0/task:0/"
        "device:GPU:0 with 14626 MB memory:  -> device: 0, name: Tesla T4, pci bus id: 0000:00:04.0, compute capability: 7.5"
    )
    oom = (
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 14.76 GiB total capacity; 3.75 MiB free)"
    )
    beside = [h.signature.id for h in scan([created, oom]).hits]
    assert "pytorch-oom-beside-tf-device" in beside and "oom-pytorch-cuda" not in beside
    alone = [h.signature.id for h in scan([oom]).hits]
    assert "oom-pytorch-cuda" in alone and "pytorch-oom-beside-tf-device" not in alone


@pytest.mark.parametrize(
    ("lines", "named"),
    [
        (
            [
                "import tensorflow_datasets as tfds",
                "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory",
            ],
            True,
        ),
        # JAX alone running out is its own batch, not TF's reservation
        (
            [
                "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1048576 bytes."
            ],
            False,
        ),
        # TF's own XLA running out is TF's out-of-memory, whatever it imported
        (
            [
                "import tensorflow as tf",
                "ResourceExhaustedError: Out of memory while trying to allocate 1048576 bytes.",
            ],
            False,
        ),
    ],
)
def test_jax_out_of_memory_is_tensorflow_s_reservation_only_where_tf_is_in_the_process(lines, named):
    """google/flax#445, jax#1075's memory notes: TF and JAX both preallocate the GPU."""
    assert ("jax-oom-beside-tensorflow" in [h.signature.id for h in scan([*lines, "", ""]).hits]) is named


WHOLE_LINE_PATTERNS = {
    "killed-by-the-oom-killer",
    "windows-native-no-gpu",
    "tf-2-16-1-gpu-list-empty",
    "gpu-list-empty",
}
"""Signatures whose line is short and whole ("Killed", "[]"): no longer literal is in it, and such lines are rare."""


def test_every_pattern_waits_for_a_keyword_most_lines_lack():
    """A pattern is tried only on lines holding its keyword: one of ':' (gpu-mostly-held-at-start's first draft)
    ran its regex on every line of a training log and cost 17% of explain's throughput (19.5 against 23.6 MB/s)."""
    short = {
        (signature.id, key)
        for signature in load_signatures()
        if not signature.fallback and signature.id not in WHOLE_LINE_PATTERNS
        for keys in pattern_keywords(signature)
        for key, _ in keys
        if len(key) < 4
    }
    assert not short


def test_tf_2_21_package_and_api_changes_are_named_and_their_neighbours_are_not():
    """Set k's and set j's messages (TF 2.21 / Keras 3.15 runs), each against a near miss that is something else."""

    def top(*lines):
        return top_problem(*lines)[0]

    tfa_range = (
        "UserWarning: Tensorflow Addons supports using Python ops for all Tensorflow versions above or equal to 2.13.0 "
        "and strictly below 2.16.0 (nightly versions are not supported). "
    )
    tfa = " The versions of TensorFlow you are currently using is 2.21.0 and is not supported. "
    keras_engine = "ModuleNotFoundError: No module named 'keras.src.engine'"
    assert top(tfa_range, tfa, keras_engine) == "tensorflow-addons-unsupported-tf"
    assert top(keras_engine) == "keras2-module-in-keras3"  # without TF Addons' warning: Keras 2 code under Keras 3
    assert top("RuntimeError: Tensorflow has not been built with TensorRT support.") == "tf-built-without-tensorrt"
    assert top("TypeError: TensorFlowTrainer.fit() got an unexpected keyword argument 'nb_epoch'") == (
        "keras1-fit-arguments"
    )
    assert top("TypeError: TensorFlowTrainer.fit() got an unexpected keyword argument 'workers'") == (
        "keras3-fit-loader-arguments"
    )
    assert top("AttributeError: 'Sequential' object has no attribute 'predict_classes'") == (
        "keras-predict-classes-removed"
    )
    assert top("AttributeError: 'Sequential' object has no attribute 'predict_step'") != "keras-predict-classes-removed"
    assert top("RuntimeError: tf.placeholder() is not compatible with eager execution.") == (
        "tf1-placeholder-under-eager"
    )
    assert top("AttributeError: module 'tensorflow' has no attribute 'gfile'. Did you mean: 'fill'?") == (
        "tf1-api-in-tf2"
    )
    assert top("AttributeError: module 'tensorflow' has no attribute 'gfile_utils'") != "tf1-api-in-tf2"
    constant = "INVALID_ARGUMENT: Input 0 to node `zeros` with op Fill must be a compile-time constant."
    assert top(constant) == "xla-shape-not-compile-time-constant"
    assert top("ValueError: A KerasTensor cannot be used as input to a TensorFlow function.") == (
        "keras3-kerastensor-in-tf-function"
    )


def test_set_l_messages_keras_2_layers_numpy_builds_and_an_empty_gpu_list():
    """Set l's messages (TF 2.21 on a machine without a GPU), each beside what it must not be read as."""

    def ids(*lines, context=None):
        return [h.signature.id for h in scan(list(lines), context).hits if not h.signature.benign]

    hub = "ValueError: Only instances of `keras.Layer` can be added to a Sequential model. Received: "
    assert (
        ids(hub + "<tensorflow_hub.keras_layer.KerasLayer object at 0x7f2bc9785f90>")[0] == "keras-2-code-under-keras-3"
    )
    numpy = (
        "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88"
    )
    assert ids(numpy) == ["numpy-struct-size-changed"]
    indexed = "    tf.config.experimental.set_memory_growth(gpus[0], True)"
    assert ids(indexed, "IndexError: list index out of range")[0] == "gpu-list-indexed-empty"
    assert "gpu-list-indexed-empty" not in ids(indexed)  # the line alone: nothing failed
    # Keras 2's mixed-precision check: its own sentences are not a poster asking for a GPU
    check = [
        "WARNING:tensorflow:Mixed precision compatibility check (mixed_float16): WARNING",
        "The dtype policy mixed_float16 may run slowly because this machine does not have a GPU. Only Nvidia GPUs with "
        "compute capability of at least 7.0 run quickly with mixed_float16.",
        "If you will use compatible GPU(s) not attached to this host, e.g. by running a multi-worker model, you can "
        "ignore this warning. This message will only be logged once",
    ]
    result = scan(check)
    assert [h.signature.id for h in result.hits] == ["mixed-precision-check-no-gpu"]
    assert result.context.gpu is GpuKnown.UNKNOWN
    assert ids(*check, context=ScanContext(no_gpu=False)) == ["mixed-precision-check-gpu-not-seen"]
    # the header alone no longer says the GPU lacks Tensor Cores; the GPU's own line still does
    assert ids(check[0]) != ["mixed-precision-slow-gpu"]
    slow = "Your GPU may run slowly with dtype policy mixed_float16 because it does not have compute capability of at least 7.0."
    assert ids(check[0], slow) == ["mixed-precision-slow-gpu"]


def test_a_cudnn_check_naming_another_build_than_tfs_is_another_library_s():
    """Set j: Keras on JAX beside TF's tf.data logged XLA's cuDNN check for JAX's build (9.12), not TF 2.21's (9.3)."""
    line = "Loaded runtime CuDNN library: 9.3.0 but source was compiled with: {want}.  CuDNN library needs to have matching"

    def top(want, tf_version):
        hits = scan([line.format(want=want)], ScanContext(tf_version=tf_version)).hits
        return hits[0].signature.id, hits[0].groups

    signature, groups = top("9.12.0", "2.21")
    assert signature == "cudnn-version-mismatch-not-tf-build" and groups["built"] == "9.3"
    assert top("9.12.0", None)[0] == "cudnn-version-mismatch"  # TF's release unknown: no claim about whose build
    assert top("9.3.0", "2.21")[0] == "cudnn-version-mismatch"  # TF's own build: TF's own check
    assert top("8.6.0", "2.21")[0] == "cudnn-version-mismatch"  # another major: likely another TF release's log


def test_a_gpu_pinned_op_in_a_process_with_no_gpu_device_is_no_gpu_not_a_missing_kernel():
    """TF 2.21's eager placement error lists every device the process has (set m under tensorflow-cpu; set b on the H100)."""
    error = (
        "tensorflow.python.framework.errors_impl.InvalidArgumentError: Could not satisfy device specification "
        "'/job:localhost/replica:0/task:0/device:GPU:0'. enable_soft_placement=0. Supported device types [CPU]. "
        "All available devices [{devices}]."
    )
    cpu_only = error.format(devices="/job:localhost/replica:0/task:0/device:CPU:0")
    with_gpu = error.format(
        devices="/job:localhost/replica:0/task:0/device:CPU:0, /job:localhost/replica:0/task:0/device:GPU:0"
    )
    assert scan([cpu_only]).hits[0].signature.id == "gpu-device-spec-none-registered"
    assert scan([with_gpu]).hits[0].signature.id == "op-without-gpu-kernel"


def test_set_n_training_faults_are_named_and_their_neighbours_are_not():
    """Set n's messages (Keras 3.15 training on TF 2.21), each beside a line that must not take it."""

    label = "Received a label value of 10 which is outside the valid range of [0, 10).  Label values: 3 10 7 1"
    assert top_problem(label) == ("labels-outside-classes", {"label": "10", "classes": "10"})
    assert top_problem("Received a label value of 3")[0] != "labels-outside-classes"  # no range: not TF's sentence
    op = '!!! Detected Infinity or NaN in output 0 of graph op "Log" (# of outputs: 1) !!!'
    assert top_problem(op, " : Tensor had NaN values") == ("check-numerics-op-named", {"op": "Log"})
    assert top_problem(" : Tensor had NaN values")[0] == "check-numerics-tensor-had-nan"
    assert top_problem("Epoch 3/10 - loss: nan")[0] == "loss-is-nan"  # the symptom, below any line that names a cause
    assert top_problem(label, "Epoch 3/10 - loss: nan")[0] == "labels-outside-classes"
    assert top_problem("Epoch 3/10 - loss: nanometre_error")[0] != "loss-is-nan"
    thread = "RuntimeError: Inter op parallelism cannot be modified after initialization."
    assert top_problem(thread) == ("threading-modified-after-init", {"what": "Inter"})
    proto = "ValueError: Cannot create a tensor proto whose content is larger than 2GB."
    assert top_problem(proto)[0] == "tensor-proto-over-2gb"
    lam = "ValueError: Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda."
    assert top_problem(lam)[0] == "keras-lambda-unsafe-deserialization"
    assert (
        top_problem("ValueError: Requested the deserialization of a `Dense` layer")[0]
        != "keras-lambda-unsafe-deserialization"
    )


def test_input_running_out_of_data_is_a_warning_not_an_error():
    """Keras 3 ends each epoch where an unrepeated dataset ends and the run exits 0 (set n): a warning."""
    ran_out = (
        "UserWarning: Your input ran out of data; interrupting training. Make sure that your dataset or generator "
        "can generate at least `steps_per_epoch * epochs` batches."
    )
    result = scan([ran_out, "50/50 - 0s - 2ms/step - loss: 2.2865"])
    assert [(h.signature.id, result.severity(h)) for h in result.hits] == [("input-ran-out-of-data", Severity.WARNING)]


def test_set_p_keras_data_mistakes_are_named_and_their_neighbours_are_not():
    """Set p's messages (Keras 3.15's own words, with Keras 2's for the same mistakes), each beside a near miss."""

    assert top_problem("ValueError: Shapes (None, 1) and (None, 10) are incompatible")[0] == "loss-label-shape-mismatch"
    assert (
        top_problem("ValueError: Shapes (2, 3) and (3, 4) are incompatible")[0] != "loss-label-shape-mismatch"
    )  # no batch
    located = "TypeError: Could not locate class 'Scale'. Make sure custom classes are decorated with"
    assert top_problem(located) == ("keras-custom-object-unknown", {"name": "Scale"})
    assert top_problem("ValueError: Unknown layer: Functional")[0] == "keras-model-saved-by-newer-release"
    assert top_problem("ValueError: Invalid dtype: object")[0] == "input-dtype-object"
    float8 = scan(["ValueError: Invalid dtype: float8_e4m3"]).hits  # only the words tier's nearest guess, if any
    assert all(h.reading is not Reading.AS_WRITTEN for h in float8 if h.signature.id == "input-dtype-object")
    assert top_problem("ValueError: No gradients provided for any variable.")[0] == "no-gradients-provided"
    some = "WARNING:tensorflow:Gradients do not exist for variables ['dense/bias:0'] when minimizing the loss."
    assert (
        top_problem(some)[0] != "no-gradients-provided"
    )  # some weights unreached: a warning about those, not this error
    keras3 = (
        "Invalid input shape for input Tensor(\"data:0\", shape=(32, 28, 28), dtype=float32) with name 'keras_tensor' "
        "and path ''. Expected shape (None, 784), but input has incompatible shape (32, 28, 28)"
    )
    assert top_problem("\x1b[1m" + keras3 + "\x1b[0m") == (
        "input-shape-mismatch",
        {"expected": "None, 784", "got": "32, 28, 28"},
    )


def test_set_r_training_code_mistakes_are_named_and_their_neighbours_are_not():
    """Set r's messages (TF 2.21 / Keras 3.15's own words, with older releases' for the same mistakes), each beside a near miss."""

    shadow = "AttributeError: partially initialized module 'keras' has no attribute 'Sequential' (most likely due to a circular import)"
    assert top_problem(shadow) == ("module-shadowed-by-user-file", {"module": "keras"})
    site = "ImportError: cannot import name 'keras' from partially initialized module 'keras.api._v2' (most likely due to a circular import)"
    assert top_problem(site)[0] != "module-shadowed-by-user-file"  # a package's own submodule: a broken install
    assert (
        top_problem("AttributeError: module 'tensorflow' has no attribute 'reduce_sum'")[0]
        == "module-shadowed-by-user-file"
    )
    assert top_problem("AttributeError: module 'tensorflow' has no attribute 'Session'")[0] == "tf1-api-in-tf2"
    assert (
        top_problem("AttributeError: module 'tensorflow' has no attribute 'keras'")[0] != "module-shadowed-by-user-file"
    )
    assert top_problem('  File "/home/me/project/keras.py", line 2, in <module>')[0] == "module-shadowed-by-user-file"
    installed = '  File "/usr/lib/python3/dist-packages/keras.py", line 2, in <module>'
    assert top_problem(installed)[0] != "module-shadowed-by-user-file"
    assert (
        top_problem(
            "ModuleNotFoundError: No module named 'keras.backend.tensorflow_backend'; 'keras.backend' is not a package"
        )[0]
        != "module-shadowed-by-user-file"
    )  # Keras 2.4 made keras.backend a module: an old import, not a file of the user's
    old = "AttributeError: module 'ml_dtypes' has no attribute 'float4_e2m1fn'. Did you mean: 'float8_e4m3fn'?"
    assert top_problem(old) == ("ml-dtypes-incompatible", {"name": "float4_e2m1fn"})
    assert top_problem("AttributeError: 'SymbolicTensor' object has no attribute 'numpy'")[0] == "eager-code-in-graph"
    assert top_problem("AttributeError: 'EagerTensor' object has no attribute 'numpy_'")[0] != "eager-code-in-graph"
    singleton = "ValueError: tf.function only supports singleton tf.Variables created on the first call."
    assert top_problem(singleton)[0] == "tf-function-variable-per-call"
    assert top_problem("ValueError: A total of 2 objects could not be loaded. Example error message for object")[0] == (
        "weights-other-architecture"
    )
    user_assign = "ValueError: Dimension 0 in both shapes must be equal, but are 64 and 3 for 'MatMul' (op: 'MatMul')"
    assert top_problem(user_assign)[0] != "weights-other-architecture"
    unbatched = (
        "Invalid input shape for input Tensor(\"data:0\", shape=(784,), dtype=float32) with name 'keras_tensor' "
        "and path ''. Expected shape (None, 784), but input has incompatible shape (784,)"
    )
    assert top_problem(unbatched) == ("input-unbatched", {"expected": "None, 784", "dims": "784", "got": "784,"})
    other = unbatched.replace("incompatible shape (784,)", "incompatible shape (28, 28)")
    assert top_problem(other)[0] == "input-shape-mismatch"  # a shape of its own, not the model's less its batch axis


def test_set_s_callbacks_data_files_and_optional_packages_are_named_and_their_neighbours_are_not():
    """Set s's messages (Keras 3.15 and TF 2.21, with Keras 2's and TF 1.x's for the same mistakes), each beside a near miss."""

    keras3 = "ValueError: EarlyStopping callback received monitor=val_acc, but Keras isn't able to automatically determine whether"
    assert top_problem(keras3) == (
        "callback-metric-named-as-keras-2",
        {"callback": "EarlyStopping", "metric": "val_acc"},
    )
    custom = keras3.replace("val_acc", "val_f1")
    assert top_problem(custom) == (
        "callback-metric-direction-unknown",
        {"callback": "EarlyStopping", "metric": "val_f1"},
    )
    keras2 = "WARNING:tensorflow:Early stopping conditioned on metric `val_acc` which is not available. Available metrics are: loss"
    assert top_problem(keras2)[0] == "callback-metric-not-available"
    data = "FileNotFoundError: [Errno 2] No such file or directory: 'dataset/train'"
    assert top_problem(data) == ("input-file-not-found", {"path": "dataset/train"})
    for tool in ("nvcc", "/usr/local/cuda/bin/ptxas", "/usr/lib/libcudnn.so.8"):  # a program or library, not the data
        assert (
            top_problem(f"FileNotFoundError: [Errno 2] No such file or directory: '{tool}'")[0]
            != "input-file-not-found"
        )
    record = "NotFoundError: {{function_node __wrapped__IteratorGetNext}} data/a.tfrecord; No such file or directory [Op:IteratorGetNext]"
    assert top_problem(record) == ("input-file-not-found", {"path": "data/a.tfrecord"})
    library = "libcudart.so.11.0: cannot open shared object file: No such file or directory"
    assert top_problem(library)[0] != "input-file-not-found"
    assert top_problem("InvalidArgumentError: Unknown image file format. One of JPEG, PNG, GIF, BMP required.")[0] == (
        "image-file-not-an-image"
    )
    assert top_problem("ImportError: Could not import PIL.Image. The use of `load_img` requires PIL.") == (
        "python-dependency-missing",
        {"package": "PIL"},
    )
    assert (
        top_problem("ModuleNotFoundError: No module named 'PIL._imaging'")[0] != "python-dependency-missing"
    )  # Pillow installed but broken: another fault


def test_set_q_memory_the_process_cannot_have_is_named_and_its_neighbours_are_not():
    """Set q's messages (TF 2.21 on an H100 and NumPy 2), each beside a near miss."""

    capped = "E0000 cuda_platform.cc:52] failed call to cuInit: RESOURCE_EXHAUSTED: Failed call to cuInit: CUDA_ERROR_OUT_OF_MEMORY: out of memory"
    assert top_problem(capped)[0] == "cuinit-out-of-memory"
    device = "failed to allocate 10.74G (11534336000 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory"
    assert top_problem(device)[0] == "cuda-out-of-memory"  # the GPU's own memory, asked for after CUDA started
    array = "numpy._core._exceptions._ArrayMemoryError: Unable to allocate 298. GiB for an array with shape (200000, 200000) and data type float64"
    assert top_problem(array) == (
        "numpy-array-out-of-host-memory",
        {"size": "298. GiB", "shape": "200000, 200000", "dtype": "float64"},
    )
    host = "OOM when allocating tensor with shape[200000,200000] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator mklcpu"
    gpu = host.replace("device:CPU:0 by allocator mklcpu", "device:GPU:0 by allocator GPU_0_bfc")
    assert [scan([line]).hits[0].signature.category for line in (host, gpu)] == ["oom_host", "oom"]


def test_two_processes_creating_one_gpu_at_once_name_the_sharing_not_the_batch():
    """Set q's Pool of two TF workers on one H100: the device lines' threads and times say two processes ran at once."""

    def created(seconds, thread):
        return (
            f"I0000 00:00:{seconds:.6f} {thread:>8} gpu_device.cc:2043] Created device "
            "/job:localhost/replica:0/task:0/device:GPU:0 with 78228 MB memory:  -> device: 0, name: NVIDIA H100 80GB HBM3"
        )

    failed = "E0000 00:00:1796586585.661855    1937 cuda_dnn.cc:466] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"
    backoff = (
        "I0000 00:00:1796586582.594773    1775 cuda_executor.cc:522] failed to allocate 76.39GiB (82028593152 bytes) "
        "from device: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory"
    )  # the second process's allocator backing off from the whole card
    at_once = [created(1796586582.571046, 1776), created(1796586582.574706, 1775), backoff, failed]
    assert top_problem(*at_once)[0] == "oom-tf-processes-share-gpu"
    one_process = [created(1796586582.571046, 1776), created(1796586583.0, 1776), backoff, failed]
    one_after_another = [
        created(1796586582.571046, 1776),
        created(1796587182.0, 1775),
        backoff,
        failed,
    ]  # ten minutes apart
    assert top_problem(*one_process)[0] != "oom-tf-processes-share-gpu"
    assert top_problem(*one_after_another)[0] != "oom-tf-processes-share-gpu"


def test_processes_that_each_create_their_own_card_as_gpu_0_do_not_share_it():
    """Horovod and multi-worker jobs give each process its own card, which each calls GPU:0: its bus id tells them apart."""
    lines = [
        f"I0000 00:00:1796586582.{n}    {1775 + n} gpu_device.cc:2043] Created device /job:localhost/replica:0/task:0/"
        f"device:GPU:0 with 78228 MB memory:  -> device: 0, name: NVIDIA H100 80GB HBM3, pci bus id: 0000:0{n}:00.0, "
        "compute capability: 9.0a"
        for n in (1, 2)
    ]
    failed = "E0000 00:00:1796586585.661855    1937 cuda_dnn.cc:466] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"
    backoff = "I0000 00:00:1796586582.594773    1775 cuda_executor.cc:522] failed to allocate 76.39GiB (82028593152 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY"
    assert top_problem(*lines, backoff, failed)[0] != "oom-tf-processes-share-gpu"


def test_a_device_configured_above_the_card_is_a_limit_that_limits_nothing_not_an_out_of_memory():
    """Set q's memory_limit=400000 on an H100 80GB trained; its allocator's backing off is not the run's failure."""
    created = (
        "I0000 00:00:1796586539.504467    1376 gpu_device.cc:2043] Created device /job:localhost/replica:0/task:0/"
        "device:GPU:0 with {mb} MB memory:  -> device: 0, name: NVIDIA H100 80GB HBM3, pci bus id: 0000:00:06.0"
    )
    backoff = (
        "I0000 00:00:1796586539.528253    1376 cuda_executor.cc:522] failed to allocate 390.62GiB (419430400000 bytes) "
        "from device: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory"
    )
    over = scan([created.format(mb=400000), backoff]).hits
    assert [h.signature.id for h in over] == ["logical-device-over-gpu-memory"]
    assert over[0].groups["mb"] == "400000"
    unified = scan(
        [created.format(mb=162158)]
    ).hits  # per_process_gpu_memory_fraction=2.0: unified memory, no backing off
    assert "logical-device-over-gpu-memory" not in [h.signature.id for h in unified]
    fits = scan([created.format(mb=78228), backoff]).hits  # a device within the card that cannot get its memory
    assert "cuda-out-of-memory" in [h.signature.id for h in fits]


def test_no_pattern_ends_in_a_blank_that_a_line_ending_there_lacks():
    """TOML's ''' cannot close right after a quote, so a pattern once ended "'gpu-name' " with a blank: ptxas's
    "Value 'sm_90a' is not defined for option 'gpu-name'" at the end of its line went unmatched."""
    assert not [
        (signature.id, pattern.pattern)
        for signature in SIGNATURES
        for pattern in (*signature.patterns, *signature.paste_patterns, *signature.also)
        if pattern.pattern.endswith("' ")
    ]
    assert (
        top_problem("ptxas fatal   : Value 'sm_90a' is not defined for option 'gpu-name'")[0] == "ptxas-too-old-for-gpu"
    )
    assert top_problem("No OpKernel was registered to support Op 'NcclAllReduce'")[0] == "nccl-allreduce-no-kernel"


def test_set_2026_12_07_options_tfgpu_turns_on_are_named_and_their_neighbours_are_not():
    # Each line is a development log's (the thirty-ninth late set), or its neighbour that must not match.
    assert top_problem(
        "ValueError: Tensor conversion requested dtype float16 for Tensor with dtype float32: <tf.Tensor>"
    )[0] == ("mixed-precision-dtype-mismatch")
    assert top_problem("ValueError: Tensor conversion requested dtype int64 for Tensor with dtype int32: <tf.Tensor>")[
        0
    ] != ("mixed-precision-dtype-mismatch")
    assert top_problem(
        "TypeError: Value passed to parameter 'scale' has DataType float16 not in list of allowed values: float32"
    ) == (
        "float16-model-op-needs-float32",
        {"low": "float16"},
    )
    assert top_problem(
        "No registered 'EagerPyFunc' OpKernel for XLA_GPU_JIT devices compatible with node {{node EagerPyFunc}}"
    ) == (
        "xla-op-without-kernel",
        {"op": "EagerPyFunc"},
    )
    assert (
        top_problem("NotFoundError: No registered 'Foo' OpKernel for GPU devices compatible with node Foo")[0]
        != "xla-op-without-kernel"
    )
    assert top_problem("ValueError: Batch size: 32 is not divisible by num_workers: 3") == (
        "batch-not-divisible-by-replicas",
        {"batch": "32", "replicas": "3"},
    )
    assert (
        top_problem("AttributeError: 'LossScaleOptimizer' object has no attribute 'get_scaled_loss'")[0]
        == "keras3-loss-scale-optimizer-api"
    )
    assert top_problem("F gpu_cudamallocasync_allocator.cc:390] Trying to set the stream twice. This isn't supported.")[
        0
    ] == ("cuda-malloc-async-stream-twice")


def test_a_package_module_named_tensorflow_py_does_not_shadow_the_package():
    # slideflow/model/tensorflow.py is slideflow's submodule, imported by its dotted name; a file that hides the
    # package runs as a top-level module (the frame Python names "<module>").
    log = [
        '  File "/home/u/slideflow/slideflow/model/tensorflow.py", line 1045, in __init__',
        "    policy = tf.keras.mixed_precision.experimental.Policy(policy_str)",
        "AttributeError: module 'keras.api._v2.keras.mixed_precision' has no attribute 'experimental'",
    ]
    hits = [h.signature.id for h in scan(log).hits]
    assert hits[0] == "mixed-precision-experimental-api-removed" and "module-shadowed-by-user-file" not in hits
    assert (
        top_problem('  File "/home/u/project/tensorflow.py", line 3, in <module>')[0] == "module-shadowed-by-user-file"
    )


def test_keras_training_without_xla_and_tf_datas_element_sharding_are_not_errors():
    fallback = scan(
        ["trainer.py:205: UserWarning: Model doesn't support `jit_compile=True`. Proceeding with `jit_compile=False`."]
    )
    assert [(h.signature.id, fallback.severity(h)) for h in fallback.hits] == [
        ("keras-jit-compile-unsupported", Severity.WARNING)
    ]
    shard = scan(
        [
            "W auto_shard.cc:776] AUTO sharding policy will apply DATA sharding policy as it failed to apply FILE sharding policy"
        ]
    )
    assert [h.signature.id for h in shard.hits] == ["benign-autoshard-falls-back-to-data"]
    assert "MultiWorkerMirroredStrategy" in shard.hits[0].signature.cause  # says when it stops being harmless


def test_what_tf_says_is_not_a_failure_is_a_warning_until_an_out_of_memory_follows():
    retry = (
        "W bfc_allocator.cc:296] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.17GiB with freed_by_count=0."
        " The caller indicates that this is not a failure, but this may mean that there could be performance gains"
    )
    collect = (
        "W bfc_allocator.cc:290] Garbage collection: deallocate free memory regions (i.e., allocations) so that we can"
        " re-allocate a larger region to avoid OOM due to memory fragmentation."
    )
    for line, signature in ((retry, "allocator-retry-not-a-failure"), (collect, "allocator-garbage-collection")):
        alone = scan([line])
        assert [(h.signature.id, alone.severity(h)) for h in alone.hits] == [(signature, Severity.WARNING)]
    failed = scan([retry, "ResourceExhaustedError: OOM when allocating tensor with shape[8192,65536] and type float"])
    assert failed.severity(failed.hits[0]) is Severity.ERROR and failed.hits[0].signature.category == "oom"
    slow = scan(
        [
            "WARNING:tensorflow:Callback method `on_train_batch_end` is slow compared to the batch time"
            " (batch time: 0.0030s vs `on_train_batch_end` time: 0.0077s). Check your callbacks."
        ]
    )
    (hit,) = slow.hits
    assert (hit.signature.id, hit.groups["hook"], hit.groups["batch"]) == (
        "keras-callback-slower-than-step",
        "0.0077",
        "0.0030",
    )


def test_a_paste_pattern_reads_a_posters_words_not_a_record_tf_printed_as_info_or_warning():
    words = "the widget cache was trimmed to avoid OOM later"
    assert top_problem(words)[0] == "oom-allocating-tensor-no-shape"  # a poster's "OOM" is their complaint
    assert not scan([f"2024-01-01 00:00:00.000000: W tensorflow/core/widget/cache.cc:12] {words}"]).hits
    assert not scan([f"I0000 00:00:1709832534.134273     948 cache.cc:12] {words}"]).hits


def test_tf_2_x_notices_of_a_working_run_are_named_harmless_and_their_error_twins_are_not():
    timer = "E external/local_xla/xla/stream_executor/cuda/cuda_timer.cc:86] Delay kernel timed out: measured time has sub-optimal accuracy."
    ended = "W0000 00:00:1796366164.121710    4021 local_rendezvous.cc:412] Local rendezvous is aborting with status: OUT_OF_RANGE: End of sequence"
    for line, signature in ((timer, "benign-autotuner-timer-notice"), (ended, "benign-rendezvous-end-of-sequence")):
        # logged at ERROR or WARNING level, yet nothing failed: named harmless, not left to the fallback tier
        assert [(h.signature.id, h.signature.benign) for h in scan([line]).hits] == [(signature, True)]
    failed = "W0000 00:00:1796596583.730780 2291 local_rendezvous.cc:412] Local rendezvous is aborting with status: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 16.02GiB."
    assert top_problem(failed)[0] is not None


def test_a_record_wrapped_before_its_last_words_is_read_whole_when_they_say_more():
    head = "2019-10-23 16:47:58.849902: W tensorflow/core/common_runtime/bfc_allocator.cc:243] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.17GiB with freed_by_count=0. The caller"
    tail = "indicates that this is not a failure, but may mean that there could be performance gains if more memory were available."
    whole = scan([head, tail])
    assert [(h.signature.id, whole.severity(h)) for h in whole.hits] == [
        ("allocator-retry-not-a-failure", Severity.WARNING)
    ]
    assert whole.hits[0].quotes == [(1, f"{head} {tail}")]
    # a line of its own after the record is not a tail: the record keeps what it matched
    assert [h.signature.id for h in scan([head, "Epoch 2/10"]).hits] == ["allocator-ran-out-of-memory"]


def test_a_posts_spacing_inside_a_message_does_not_hide_it():
    # Colab's log copied from its HTML viewer doubles the blanks (colabtools#2013)
    copied = "W  tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not  load dynamic library 'libcusolver.so.11'; dlerror: libcusolver.so.11:  cannot open shared object file"
    assert top_problem(copied)[0] != "unrecognised-library-load"
    # a retyped error puts a blank before the library's colon (tensorflow#1675)
    retyped = '"ImportError libcudart.so.7.5 : cannot open shared object file: no such file or directory"'
    assert scan([retyped]).hits[0].signature.category == "missing_cuda_library"
    # a long run of blanks aligns columns and is kept as it is: the shell's job line still reads as a kill
    assert top_problem("[1]+  Killed                  python3 train.py")[0] == "killed-by-the-oom-killer"


def test_a_poster_saying_the_cpu_alone_is_used_is_a_gpu_not_seen_but_not_a_package_that_fails_with_a_layer():
    assert scan(["When running the mnist-node example only the CPU is used."]).hits[0].signature.category == (
        "no_gpu_visible"
    )
    assert scan(["and when I run the demo, GPU doesn't work!"]).hits[0].signature.category == "no_gpu_visible"
    # the package's name and a failure tied to one layer are not a GPU unseen (anaconda-issues#11156)
    assert not [
        h for h in scan(["Tensorflow-gpu does not work when using Conv2D"]).hits if h.signature.id == "no-gpu-visible"
    ]


def test_the_cpu_package_installed_along_with_the_gpu_build_is_named_as_the_cause():
    said = (
        "After configuring sonnet, I found out tensorflow 1.01 is installed along with my original tensorflow-gpu 1.01."
    )
    assert top_problem(said)[0] == "cpu-package-shadows-gpu"


def test_ptx_left_to_the_driver_is_a_warning_below_the_reason_tf_gives_before_it():
    alone = scan(["Relying on driver to perform ptx compilation. Modify $PATH to customize ptxas location."])
    assert [(h.signature.id, alone.severity(h)) for h in alone.hits] == [("ptx-compiled-by-driver", Severity.WARNING)]
    reason = "W tensorflow/stream_executor/cuda/redzone_allocator.cc:312] Internal: ptxas exited with non-zero error code 65280, output: ptxas fatal   : Value 'sm_86' is not defined for option 'gpu-name'"
    both = [
        h.signature.id
        for h in scan(
            [reason, "Relying on driver to perform ptx compilation. This message will be only logged once."]
        ).hits
    ]
    assert both[0] != "ptx-compiled-by-driver" and "ptx-compiled-by-driver" in both


def test_a_binding_calling_a_function_its_native_tensorflow_lacks_is_a_version_mismatch():
    line = "Unhandled Exception: System.EntryPointNotFoundException: Unable to find an entry point named 'TF_StringEncodedSize' in DLL 'tensorflow'."
    assert top_problem(line) == ("native-tensorflow-lacks-entry-point", {"entry": "TF_StringEncodedSize"})


def test_an_rnn_and_a_convolution_without_cudnn_name_one_cause():
    # TF's stream executor raises both when it has no cuDNN support (StreamExecutor::createRnnDescriptor and
    # GetConvolveRunners in stream_executor_pimpl.cc), so the two messages are one class, not an RNN kernel failing
    rnn = "tensorflow.python.framework.errors_impl.UnknownError: Fail to find the dnn implementation. [Op:CudnnRNN]"
    conv = "OP_REQUIRES failed at conv_ops.cc:1068 : UNIMPLEMENTED: DNN library is not found."
    assert {scan([rnn]).hits[0].signature.category, scan([conv]).hits[0].signature.category} == {"dnn_not_found"}
    # the lines above, which say why cuDNN did not start, stay the answer when the log holds them
    handle = (
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"
    )
    assert scan([handle, rnn]).hits[0].signature.category == "cudnn_handle_internal_error"


def test_a_gpu_whose_architecture_the_build_skips_is_jit_compiled_not_newer_than_the_build():
    # TF 2.2's wheel carries SASS and PTX for 3.5, 3.7 and 5.2 but not 5.0: a 940MX (5.0) runs the 3.7 PTX, JIT-compiled,
    # though the build does not predate it (tf_archs.csv)
    line = "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1697] Adding visible gpu devices: 0"
    result = scan([line], ScanContext(tf_version="2.2", gpu_cc=(5, 0)))
    hit = next(h for h in result.hits if h.signature.id == "build-predates-gpu")
    assert result.context.kernels is KernelSupport.PTX_JIT
    title = render_template(hit.signature.title, hit.groups)
    assert "no machine code for this GPU (compute capability 5.0)" in title and "predates" not in title
