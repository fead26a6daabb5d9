import os

from tests.fakes.interpreter import FakeInterpreter
from tests.fakes.nvml import FakeNvml
from tests.fakes.probe import FakeProbe

from tfgpu.model.xla_cache import CacheMode
from tfgpu.tuning.run import TrialRunner
from tfgpu.xlacache.plan import plan_cache, training_python
from tfgpu.xlacache.store import KEY_FILE


def plan(tmp_path, runner, mode=CacheMode.ON, gpus=("NVIDIA A100-SXM4-80GB sm_80",), levers=True, **environ):
    env = {"TFGPU_CACHE_DIR": str(tmp_path), **environ}
    return plan_cache(
        mode,
        python="/venv/bin/python",
        environ=env,
        driver="580.159.04",
        gpus=list(gpus),
        runner=runner,
        cpu="x86_64",
        levers=levers,
    )


HOPPER = ("NVIDIA H200 sm_90",)
LEVER = "--xla_disable_hlo_passes=cudnn-fused-convolution-rewriter"


def test_plan_cache_exports_the_checked_flags_for_a_key_directory(tmp_path):
    runner = FakeInterpreter()
    result = plan(tmp_path, runner)
    assert result.active and result.mode is CacheMode.ON
    assert result.directory == str(tmp_path / "xla" / result.key.digest)
    assert dict(result.variables) == {"TF_XLA_FLAGS": f"--tf_xla_persistent_cache_directory={result.directory}"}
    assert (tmp_path / "xla" / result.key.digest / KEY_FILE).exists()
    assert any("checked against this TensorFlow" in n for n in result.notes)


def test_plan_cache_checks_the_flags_once_per_install(tmp_path):
    runner = FakeInterpreter()
    plan(tmp_path, runner)
    again = plan(tmp_path, runner)
    assert len(runner.checks) == 1
    assert not any("checked" in n for n in again.notes)
    other = FakeInterpreter(versions={"tensorflow": "2.20.0"})
    plan(tmp_path, other)
    assert len(other.checks) == 1  # another install: checked anew


def test_plan_cache_never_exports_a_flag_this_tensorflow_refuses(tmp_path):
    runner = FakeInterpreter(refuses=("tf_xla_persistent_cache_directory",))
    result = plan(tmp_path, runner)
    assert not result.active and result.variables == ()
    assert any("unknown flag --tf_xla_persistent_cache_directory" in n for n in result.notes)
    plan(tmp_path, runner)
    assert len(runner.checks) == 1  # the refusal is remembered too


def test_plan_cache_keeps_the_users_flags_first(tmp_path):
    result = plan(tmp_path, FakeInterpreter(), TF_XLA_FLAGS="--tf_xla_auto_jit=2")
    value = dict(result.variables)["TF_XLA_FLAGS"]
    assert value.startswith("--tf_xla_auto_jit=2 --tf_xla_persistent_cache_directory=")


def test_plan_cache_leaves_a_users_own_cache_directory_alone(tmp_path):
    runner = FakeInterpreter()
    result = plan(tmp_path, runner, TF_XLA_FLAGS="--tf_xla_persistent_cache_directory=/team/cache")
    assert result.directory == "/team/cache" and result.variables == ()
    assert runner.calls == []


def test_plan_cache_read_only_adds_the_read_only_flag_and_writes_nothing(tmp_path):
    result = plan(tmp_path, FakeInterpreter(), CacheMode.READ_ONLY)
    assert "--tf_xla_persistent_cache_read_only=true" in dict(result.variables)["TF_XLA_FLAGS"]
    assert not (tmp_path / "xla").exists()


def test_plan_cache_when_a_file_stands_where_the_cache_goes_is_used_read_only(tmp_path):
    (tmp_path / "xla").write_text("not a directory")
    result = plan(tmp_path, FakeInterpreter())
    assert result.mode is CacheMode.READ_ONLY
    assert any("cannot be written" in n for n in result.notes)


def test_plan_cache_off_asks_nothing(tmp_path):
    runner = FakeInterpreter()
    assert not plan(tmp_path, runner, CacheMode.OFF).active
    assert runner.calls == []


def test_plan_cache_without_tensorflow_in_the_interpreter_is_silent(tmp_path):
    result = plan(tmp_path, FakeInterpreter(versions={"python": "CPython 3.12.3"}))
    assert not result.active and result.notes == ()


def test_plan_cache_for_a_command_that_is_not_python_says_why(tmp_path):
    result = plan_cache(CacheMode.ON, python=None, environ={}, driver=None, gpus=[], runner=FakeInterpreter())
    assert not result.active
    assert "not a Python interpreter" in result.notes[0]


def test_plan_cache_in_a_directory_with_spaces_is_not_used(tmp_path):
    spaced = tmp_path / "my cache"
    result = plan(spaced, FakeInterpreter())
    assert not result.active
    assert "spaces or quotes" in result.notes[0]


def test_training_python_reads_a_scripts_shebang(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("#!/usr/bin/env -S python3 -u\nprint()\n")
    script.chmod(0o755)
    found = training_python([str(script)], {"PATH": os.environ["PATH"]})
    assert found is not None and os.path.basename(found).startswith("python3")
    shell = tmp_path / "run.sh"
    shell.write_text("#!/bin/sh\n")
    assert training_python([str(shell)], {}) is None
    assert training_python([str(tmp_path / "missing")], {}) is None


def test_plan_cache_on_a_hopper_gpu_adds_the_measured_compile_lever_and_says_so(tmp_path):
    runner = FakeInterpreter()
    result = plan(tmp_path, runner, gpus=HOPPER)
    assert dict(result.variables)["XLA_FLAGS"] == LEVER
    assert any("fused conv+bias+activation rewrite is off" in n for n in result.notes)
    assert any(LEVER in c[3] for c in runner.checks)  # checked against this TensorFlow like the cache's flags


def test_plan_cache_the_lever_is_part_of_the_key(tmp_path):
    with_lever = plan(tmp_path, FakeInterpreter(), gpus=HOPPER)
    without = plan(tmp_path, FakeInterpreter(), gpus=HOPPER, levers=False)
    assert with_lever.key.digest != without.key.digest
    assert "XLA_FLAGS" not in dict(without.variables)


def test_plan_cache_adds_no_lever_where_none_was_measured(tmp_path):
    result = plan(tmp_path, FakeInterpreter())
    assert set(dict(result.variables)) == {"TF_XLA_FLAGS"}


def test_plan_cache_keeps_the_users_own_disabled_passes(tmp_path):
    result = plan(tmp_path, FakeInterpreter(), gpus=HOPPER, XLA_FLAGS="--xla_disable_hlo_passes=algsimp")
    assert "XLA_FLAGS" not in dict(result.variables)  # theirs stays as it is in the environment
    assert any("XLA_FLAGS: --xla_disable_hlo_passes is kept" in n for n in result.notes)
    assert not any("rewrite is off" in n for n in result.notes)


def test_plan_cache_refused_lever_leaves_the_cache_working_without_it(tmp_path):
    runner = FakeInterpreter(refuses=("xla_disable_hlo_passes",))
    result = plan(tmp_path, runner, gpus=HOPPER)
    assert result.active and "XLA_FLAGS" not in dict(result.variables)
    assert not any("rewrite is off" in n for n in result.notes)


def test_tune_trials_use_the_cache_as_tfgpu_run_would(tmp_path):
    script = tmp_path / "tune_me.py"
    script.write_text("")
    environ = {"TFGPU_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin"}
    runner = TrialRunner(str(script), FakeProbe(), FakeNvml.single_gpu(), environ, command_runner=FakeInterpreter())
    assert runner.cache is not None and runner.cache.active
    assert f"--tf_xla_persistent_cache_directory={runner.cache.directory}" in runner.environ["TF_XLA_FLAGS"]
    assert LEVER in runner.environ["XLA_FLAGS"]  # the H200's measured first-compile lever, as under tfgpu run
    off = TrialRunner(
        str(script), FakeProbe(), None, {**environ, "TFGPU_XLA_CACHE": "off"}, command_runner=FakeInterpreter()
    )
    assert "TF_XLA_FLAGS" not in off.environ
