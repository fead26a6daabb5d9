"""Options, environment and apply() against a recording fake tf and FakeNvml."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tests.fakes.interpreter import FakeInterpreter
from tests.fakes.nvml import FakeGpu, FakeNvml
from tests.fakes.tf import Recorder, fake_tf

from tfgpu.configure.apply import apply_options
from tfgpu.configure.environ import environment_for, needs_code
from tfgpu.configure.gpus import resolve_gpus
from tfgpu.configure.options import make_options
from tfgpu.model.errors import DiagnosticError
from tfgpu.nvml.client import MemoryInfo, ProcessInfo

GIB = 2**30


@pytest.mark.parametrize(
    ("kwargs", "reference"),
    [
        ({"memory": "lots"}, "setup-invalid-option"),
        ({"memory": "120%"}, "setup-invalid-option"),
        ({"precision": "half"}, "setup-invalid-option"),
        ({"gpus": "first"}, "setup-invalid-option"),
        ({"gpus": "auto:0"}, "setup-invalid-option"),
        ({"split": 0}, "setup-invalid-option"),
        ({"memory": "growth", "split": 2}, "setup-growth-with-split"),
        ({"strategy": "fast"}, "setup-invalid-option"),
        # issue 18: a string where a flag belongs ("no" is truthy) and a split that would allocate gigabytes
        ({"tf32": "on"}, "setup-invalid-option"),
        ({"deterministic": "no"}, "setup-invalid-option"),
        ({"log_placement": 1}, "setup-invalid-option"),
        ({"split": 2**40}, "setup-invalid-option"),
        ({"xla_cache": "sometimes"}, "setup-invalid-option"),
        ({"xla_cache": 1}, "setup-invalid-option"),
    ],
)
def test_invalid_options_and_conflicts_are_diagnostic_errors(kwargs, reference):
    with pytest.raises(DiagnosticError) as info:
        make_options(**kwargs)
    assert info.value.reference == reference and info.value.hint


def test_environment_for_options():
    options = make_options(memory="async", xla=True, deterministic=True)
    assert environment_for(options, ["0", "GPU-abc"]) == {
        "CUDA_VISIBLE_DEVICES": "0,GPU-abc",
        "TF_GPU_ALLOCATOR": "cuda_malloc_async",
        "TF_XLA_FLAGS": "--tf_xla_auto_jit=2",
        "TF_DETERMINISTIC_OPS": "1",
    }
    assert not needs_code(make_options(memory="growth")) and needs_code(make_options(precision="auto"))


def test_auto_picks_the_freest_gpus_without_processes():
    gpus = [
        replace(FakeGpu(), memory_info=MemoryInfo(140 * GIB, 100 * GIB, 40 * GIB)),
        replace(FakeGpu(), memory_info=MemoryInfo(140 * GIB, 1 * GIB, 139 * GIB), processes=(ProcessInfo(7, GIB),)),
        replace(FakeGpu(), memory_info=MemoryInfo(140 * GIB, 10 * GIB, 130 * GIB)),
    ]
    assert resolve_gpus(("auto:2",), FakeNvml(gpus)) == ["2", "0"]
    with pytest.raises(DiagnosticError, match="has 3 GPU"):
        resolve_gpus(("auto:4",), FakeNvml(gpus))
    with pytest.raises(DiagnosticError, match="does not exist"):
        resolve_gpus(("5",), FakeNvml(gpus))


def test_growth_precision_auto_and_strategy_on_one_h200():
    tf, rec = fake_tf(gpus=1, cc=(9, 0))
    setup = apply_options(
        make_options(memory="growth", precision="auto", tf32=False), nvml=FakeNvml.single_gpu(), tf=tf, environ={}
    )
    names = [c[0] for c in rec.calls]
    assert "experimental.set_memory_growth" in names and ("keras.set_global_policy", ("mixed_bfloat16",)) in rec.calls
    assert setup.precision_policy == "mixed_bfloat16" and setup.strategy.kind == "OneDevice"
    assert "float32" in setup.summary()


def test_precision_on_volta_is_float16_and_on_pascal_float32_with_a_warning():
    assert (
        apply_options(make_options(precision="mixed"), tf=fake_tf(cc=(7, 0))[0], environ={}).precision_policy
        == "mixed_float16"
    )
    setup = apply_options(make_options(precision="auto"), tf=fake_tf(cc=(6, 1))[0], environ={})
    assert setup.precision_policy == "float32" and "Tensor Cores" in setup.warnings[0]


def test_split_makes_logical_gpus_and_a_mirrored_strategy_over_them():
    tf, rec = fake_tf(gpus=1)
    two = [type("D", (), {"name": f"/device:GPU:{i}"})() for i in (0, 1)]
    tf.config.list_logical_devices = lambda kind: two if kind == "GPU" else []
    setup = apply_options(make_options(split=2), nvml=FakeNvml.single_gpu(), tf=tf, environ={})
    (call,) = [c for c in rec.calls if c[0] == "set_logical_device_configuration"]
    assert len(call[1][1]) == 2 and call[1][1][0][1] == int(143771 * 2**20 * 0.9 / 2) // 2**20
    assert setup.strategy.kind == "Mirrored" and setup.global_batch_size(64) == 128


def test_too_late_is_a_diagnostic_error_naming_the_callers_line():
    rec = Recorder()
    rec.fail_with = "Physical devices cannot be modified after being initialized"
    tf, _ = fake_tf(recorder=rec)
    with pytest.raises(DiagnosticError) as info:
        apply_options(make_options(memory="growth"), tf=tf, environ={})
    assert info.value.reference == "tf-runtime-already-initialized"
    assert "test_configure.py:" in info.value.hint


def test_visible_gpus_after_tensorflow_started_use_set_visible_devices():
    tf, rec = fake_tf(gpus=2)
    env: dict[str, str] = {}
    apply_options(make_options(gpus="1"), nvml=FakeNvml([FakeGpu(), FakeGpu()]), tf=tf, environ=env)
    assert "CUDA_VISIBLE_DEVICES" not in env
    (call,) = [c for c in rec.calls if c[0] == "set_visible_devices"]
    assert call[1][0][0].name == "/physical_device:GPU:1"


def test_issue_19_gpu_choices_on_a_machine_without_nvidia_gpus_warn_instead_of_failing():
    warnings: list[str] = []
    assert resolve_gpus(("auto:1",), FakeNvml.no_driver(), warnings) is None
    assert resolve_gpus(("0",), FakeNvml.no_driver(), warnings) == ["0"]
    assert len(warnings) == 2 and all("no NVIDIA GPU is visible" in w and "CPU" in w for w in warnings)


def test_setup_with_a_runner_points_tf_at_the_checked_xla_cache(tmp_path):
    environ = {"TFGPU_CACHE_DIR": str(tmp_path)}
    tf, _ = fake_tf(gpus=1, cc=(9, 0))
    setup = apply_options(make_options(), nvml=FakeNvml.single_gpu(), tf=tf, environ=environ, runner=FakeInterpreter())
    assert environ["TF_XLA_FLAGS"].startswith(f"--tf_xla_persistent_cache_directory={tmp_path / 'xla'}/")
    assert any(line.startswith("XLA cache on: ") for line in setup.applied)


def test_setup_xla_cache_off_leaves_the_flags_alone(tmp_path):
    environ = {"TFGPU_CACHE_DIR": str(tmp_path), "TF_XLA_FLAGS": "--tf_xla_auto_jit=2"}
    runner = FakeInterpreter()
    apply_options(make_options(xla_cache=False), tf=fake_tf()[0], environ=environ, runner=runner)
    assert environ["TF_XLA_FLAGS"] == "--tf_xla_auto_jit=2" and runner.calls == []
