"""explain's fallback tier on real crash lines: never "no known problem" on a log that failed."""

from __future__ import annotations

import pytest

from tfgpu.explain.explain import explain_lines

# (line, component expected when only the fallback tier knows it, or None when a signature does, source)
REAL_CRASH_LINES = [
    (
        "F tensorflow/core/kernels/conv_ops.cc:659] Check failed: stream->parent()->GetConvolveAlgorithms(&algorithms)",
        None,
        "https://github.com/torrvision/siamfc-tf/issues/21",
    ),
    (
        "./tensorflow/core/util/cuda_launch_config.h:127] Check failed: work_element_count > 0 (-608567296 vs. 0)",
        "TensorFlow",
        "https://github.com/tensorflow/tensorflow/issues/24784",
    ),
    (
        "python: external/eigen_archive/unsupported/Eigen/CXX11/src/Tensor/TensorDeviceCuda.h:218: void "
        "Eigen::GpuDevice::memcpy(void*, const void*, size_t) const: Assertion `err == cudaSuccess' failed.",
        "CUDA driver",
        "https://github.com/tensorpack/tensorpack/issues/157",
    ),
    ("Segmentation fault (core dumped)", "Segmentation fault", "https://github.com/tensorflow/tensorflow/issues/32701"),
    (
        "tensorflow.python.framework.errors_impl.InternalError: Graph execution error:",
        "TensorFlow",
        "H200, 2026-12-03: the guide's CNN without libnvrtc (tests/fixtures/tf_logs/h200-tf-2.21-nvrtc-crash.log)",
    ),
    (
        "tensorflow.python.framework.errors_impl.UnknownError: CUDNN_STATUS_NOT_SUPPORTED",
        None,
        "H200, 2026-12-03: the tiny CNN under XLA_FLAGS=--xla_gpu_autotune_level=0 (docs/examples)",
    ),
    (
        "2024-03-01 10:00:00.123456: E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:152] "
        "failed call to cuStreamSynchronize: CUDA_ERROR_LAUNCH_TIMEOUT",
        None,
        "tensorflow/tensorflow GPU threads: a display-attached GPU hitting the watchdog",
    ),
]


@pytest.mark.parametrize(("line", "component", "source"), REAL_CRASH_LINES)
def test_every_real_crash_line_is_a_problem(line, component, source):
    problems = explain_lines([line]).problems
    assert problems, f"no problem found in a crash line from {source}"
    if component is not None:
        assert problems[0].id.startswith("unrecognised-") and component in problems[0].title


def test_fallback_names_the_component_and_gives_its_next_step():
    (problem,) = explain_lines(["E0000 00:00:1 12 nccl_manager.cc:1] NCCL operation ncclBroadcast failed"]).problems
    assert problem.id == "unrecognised-error-line" and "NCCL" in problem.title and "NCCL_DEBUG=INFO" in problem.fix


def test_an_all_reduce_that_nccl_failed_is_the_nccl_problem_not_the_fallback():
    (problem,) = explain_lines(["E0000 00:00:1 12 nccl_manager.cc:1] NCCL operation ncclAllReduce failed"]).problems
    assert problem.id == "nccl-error"


def test_a_specific_problem_hides_the_fallback_but_a_lone_fallback_is_reported():
    crash = [
        "E0000 00:00:1 2 cuda_dnn.cc:463] Could not load library libnvrtc.so.12. Error: libnvrtc.so.12: cannot open",
        "tensorflow.python.framework.errors_impl.InternalError: Graph execution error:",
    ]
    assert [p.id for p in explain_lines(crash).problems] == ["cudnn-nvrtc-not-loaded"]
    assert [p.id for p in explain_lines(crash[1:]).problems] == ["unrecognised-tf-exception"]


def test_harmless_error_level_lines_are_not_problems():
    benign = "E0000 00:00:1 1 cuda_blas.cc:1418] Unable to register cuBLAS factory: Attempting to register factory for plugin cuBLAS when one has already been registered"
    explanation = explain_lines([benign])
    assert not explanation.problems and explanation.harmless


def test_a_cpu_side_oom_is_not_called_out_of_gpu_memory():
    """Issue 17: `allocator mklcpu` / `device:CPU:0` is host memory."""
    cpu = "OOM when allocating tensor with shape[10000,10000] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator mklcpu"
    gpu = "OOM when allocating tensor with shape[64,3,224,224] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"
    (cpu_problem,) = explain_lines([cpu]).problems
    (gpu_problem,) = explain_lines([gpu]).problems
    assert cpu_problem.id == "oom-cpu-allocating-tensor" and "host (CPU) memory" in cpu_problem.title
    assert cpu_problem.category == "oom_host"
    assert gpu_problem.id == "oom-allocating-tensor"


def test_one_cuinit_no_device_line_is_one_problem():
    """Issue 17: it was also 'cuInit failed' with a conflicting cause."""
    line = "E cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
    assert [p.id for p in explain_lines([line]).problems] == ["cuinit-no-device"]
