"""ProbeFacts shaped from runs recorded on the H200 and on this CPU machine."""

from tests.fakes.probe import FakeProbe

from tfgpu.model.probe import TrainingState
from tfgpu.probe.collect import probe_environment, run_tensorflow_probe
from tfgpu.probe.runner import RunStatus


def test_h200_fixed_run_has_one_gpu_with_correct_results():
    facts = run_tensorflow_probe(FakeProbe("h200-fixed"), {})
    assert facts.outcome == "ok" and facts.tf_version == "2.21.0"
    (gpu,) = facts.gpus
    assert gpu.name == "NVIDIA H200" and gpu.compute_capability == "9.0"
    assert len(gpu.ops) == 9 and all(op.ok for op in gpu.ops)
    assert gpu.xla_ok is True and 0 < gpu.first_op_seconds < 30


def test_h200_wheel_layout_run_has_no_gpu_and_the_cannot_dlopen_event():
    facts = run_tensorflow_probe(FakeProbe("h200-wheel-layout"), {})
    assert facts.outcome == "ok" and facts.gpus == ()
    assert "cannot_dlopen" in {e.kind for e in facts.log_events}


def test_failed_runs_keep_their_outcome():
    for status in ("timed_out", "crashed", "protocol_error"):
        assert run_tensorflow_probe(FakeProbe(status=status), {}).outcome == status


def test_probe_environment_keeps_every_log_line_and_the_callers_variables():
    env = probe_environment({"TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "1"})
    assert env == {"TF_CPP_MIN_LOG_LEVEL": "0", "CUDA_VISIBLE_DEVICES": "1"}


def test_h200_training_runs_are_shaped_with_their_state_and_timings():
    fixed = run_tensorflow_probe(FakeProbe("h200-training-fixed"), {})
    assert fixed.training_state is TrainingState.DONE
    assert [(t.jit_compile, t.policy, t.ok, t.timed_out) for t in fixed.training] == [
        ("off", "float32", True, False),
        ("off", "mixed_bfloat16", True, False),
        ("auto", "float32", False, True),
    ]
    hidden = run_tensorflow_probe(FakeProbe("h200-nvrtc-hidden"), {})
    assert "libnvrtc.so.12" in {e.library for e in hidden.log_events if e.kind == "library_load_failed"}
    assert [t.ok for t in hidden.training] == [True, True, False, True]


def test_a_checkpoint_without_training_results_means_the_child_died_while_training():
    import json

    from tests.fakes.probe import FIXTURES

    from tfgpu.probe.collect import shape
    from tfgpu.probe.runner import ProbeRun

    envelope = json.loads((FIXTURES / "h200-training-fixed.json").read_text())
    envelope["data"]["training"] = "started"  # what the worker writes before it trains
    facts = shape(ProbeRun(RunStatus.OK, "python3", 30.0, 180.0, envelope, "F check failed", -6, 6))
    assert facts.training_state is TrainingState.DIED and facts.training == () and facts.signal == 6
    assert run_tensorflow_probe(FakeProbe("h200-fixed"), {}).training_state is TrainingState.NOT_RUN  # an older worker
