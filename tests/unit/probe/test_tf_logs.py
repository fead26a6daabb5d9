"""The log parser on lines recorded from real runs (H200, TF 2.21) and from the public corpus."""

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tfgpu.probe.tf_logs import failed_libraries, parse_lines, parse_log, summarize_error

FIXTURES = Path(__file__).parents[2] / "fixtures"
CORPUS = Path(__file__).parents[4] / "shared" / "data" / "errors" / "corpus.jsonl"


def kinds(text: str) -> list[str]:
    return [e.kind for e in parse_log(text)]


def test_h200_wheel_layout_log_says_cannot_dlopen():
    assert kinds((FIXTURES / "tf_logs/h200-tf-2.21-wheel-layout.log").read_text()) == ["cannot_dlopen"]


def test_h200_probe_log_has_the_created_device_with_its_memory():
    events = parse_log((FIXTURES / "probe/h200-fixed.stderr").read_text())
    created = [e for e in events if e.kind == "device_created"]
    assert created[0].library == "/job:localhost/replica:0/task:0/device:GPU:0" and created[0].detail == "140829"


@pytest.mark.parametrize(
    ("line", "kind", "library", "detail"),
    [
        (
            "2022-08-11 14:21:29.345331: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
            "dso_failed",
            "cudart64_110.dll",
            "cudart64_110.dll not found",
        ),
        ("Could not load dynamic library ‘libcusolver.so.10’; ", "dso_failed", "libcusolver.so.10", None),
        (
            "2020-12-14 09:24:30.113136: I tensorflow/stream_executor/platform/default/dso_loader.cc:48] Successfully opened dynamic library cudart64_101.dll",
            "dso_loaded",
            "cudart64_101.dll",
            None,
        ),
        (
            "2019-04-11 14:19:57.904577: I tensorflow/stream_executor/dso_loader.cc:152] successfully opened CUDA library libcublas.so.10.0 locally",
            "dso_loaded",
            "libcublas.so.10.0",
            None,
        ),
        (
            "2023-08-25 11:11:47.521702: I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU will not be used.",
            "cuda_drivers_not_found",
            None,
            None,
        ),
        (
            "2020-12-29 10:10:44.476602: E tensorflow/stream_executor/cuda/cuda_driver.cc:318] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
            "cuinit_failed",
            None,
            "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
        ),
        (
            "2018-03-05 13:43:54.533246: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1283] Ignoring visible gpu device (device: 0, name: Quadro K2000M, pci bus id: 0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. The minimum required Cuda capability is 3.5.",
            "device_ignored",
            "3.0",
            "3.5",
        ),
        (
            "W0000 00:00:1753232013.685876   24341 gpu_device.cc:2431] TensorFlow was not built with CUDA kernel binaries compatible with compute capability 12.0. CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer.",
            "ptx_jit",
            "12.0",
            None,
        ),
        (
            "2023-06-19 17:03:27.840554: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.6.0.  CuDNN library needs",
            "cudnn_mismatch",
            "8.0.5",
            "8.6.0",
        ),
        (
            "2019-04-11 14:19:56.948126: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1115] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 6955 MB memory) -> physical GPU (device: 0, name: GeForce RTX 2070, pci bus id: 0000:01:00.0, compute capability: 7.5)",
            "device_created",
            "/job:localhost/replica:0/task:0/device:GPU:0",
            "6955",
        ),
        (
            "2023-06-06 21:40:11.673658: W tensorflow/core/framework/op_kernel.cc:1830] OP_REQUIRES failed at xla_ops.cc:362 : INTERNAL: libdevice not found at ./libdevice.10.bc",
            "libdevice_missing",
            None,
            None,
        ),
        (
            "2025-02-01 13:44:34.523685: W tensorflow/compiler/mlir/tools/kernel_gen/tf_gpu_runtime_wrappers.cc:40] 'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_UNSUPPORTED_PTX_VERSION'",
            "cuda_error",
            "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
            None,
        ),
    ],
)
def test_parse_each_loader_message_class(line, kind, library, detail):
    (event,) = parse_lines([line])
    assert (event.kind, event.library, event.detail) == (kind, library, detail)


def test_parse_tolerates_ansi_and_crlf_and_numbers_lines():
    events = parse_lines(["noise\r\n", "\x1b[33mCannot dlopen some GPU libraries.\x1b[0m\r\n"])
    assert [(e.kind, e.line_number) for e in events] == [("cannot_dlopen", 2)]


def test_failed_libraries_are_unique_and_ordered():
    lines = ["Could not load dynamic library 'libcudnn.so.8'; dlerror: x"] * 2 + [
        "Could not load dynamic library 'libcublas.so.11'"
    ]
    assert failed_libraries(parse_lines(lines)) == ["libcudnn.so.8", "libcublas.so.11"]


@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not present")
def test_benign_corpus_logs_produce_no_loader_failure_events():
    for raw in CORPUS.read_text().splitlines():
        case = json.loads(raw)
        if case["benign"]:
            assert not {"dso_failed", "cannot_dlopen", "cuinit_failed"} & set(kinds(case["log"])), case["id"]


@given(st.lists(st.text(max_size=300), max_size=30))
def test_parser_never_raises_on_arbitrary_text(lines):
    events = parse_lines(lines)
    assert all(1 <= e.line_number <= len(lines) for e in events)


def test_error_summary_skips_the_graph_execution_boilerplate():
    message = (
        "Graph execution error:\n\n"
        "Detected at node 'sequential/conv2d/Conv2D' defined at (most recent call last):\n"
        '    File "train.py", line 10, in <module>\n'
        "      model.fit(x, y)\n"
        "Node: 'sequential/conv2d/Conv2D'\n"
        "OOM when allocating tensor with shape[65536,32,26,26] and type float on /job:localhost/replica:0/task:0/device:GPU:0\n"
        "\t [[{{node sequential/conv2d/Conv2D}}]]\n"
        "Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom.\n"
        " [Op:__inference_train_function_1234]"
    )
    assert summarize_error(message).startswith("OOM when allocating tensor with shape[65536")
    assert summarize_error("plain message\nsecond line") == "plain message"
    assert summarize_error("Graph execution error:\n\n\t [[{{node x}}]]") == "Graph execution error:"
