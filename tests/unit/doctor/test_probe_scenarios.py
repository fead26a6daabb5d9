"""The doctor's verdict on the three runs recorded on the H200 (issue 3), replayed through FakeProbe."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.fakes.elf import write_elf
from tests.fakes.machines import NVJITLINK_SYMBOLS, gpu_machine, lib_dir
from tests.fakes.nvml import FakeNvml
from tests.fakes.probe import FakeProbe

from tfgpu.doctor.collect import collect_facts
from tfgpu.doctor.diagnose import diagnose
from tfgpu.model.findings import Severity
from tfgpu.model.probe import TrainingState
from tfgpu.probe.collect import run_tensorflow_probe


def verdict(tmp_path, recording, environ=None, status="ok"):
    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml.from_recording("h200")
    if environ is not None:
        m.environ = {**m.environ, **environ(m)}
    facts = collect_facts(m.sources())
    probe = run_tensorflow_probe(FakeProbe(recording, status=status), m.environ)
    d = diagnose(replace(facts, probe=probe))
    return m, d, {f.id: f for f in d.findings}


def test_wheel_layout_verdict_names_cusolver_and_gives_the_export_line(tmp_path):
    m, _d, found = verdict(tmp_path, "h200-wheel-layout")
    f = found["gpu-not-visible-to-tensorflow"]
    assert f.severity is Severity.ERROR and f.summary.endswith("it could not load libcusolver.so.11")
    assert f.hint.startswith(f"export LD_LIBRARY_PATH={lib_dir(m, 'cusolver')}")


def test_fixed_verdict_is_healthy_with_gpu_results_and_xla(tmp_path):
    _, d, found = verdict(
        tmp_path, "h200-fixed", lambda m: {"LD_LIBRARY_PATH": f"{lib_dir(m, 'cusolver')}:{lib_dir(m, 'cuda_nvrtc')}"}
    )
    assert not d.problems()
    assert "registered 1 GPU" in found["tensorflow-sees-gpus"].summary
    assert "bfloat16" in found["gpu-results-match-cpu"].summary
    assert "xla-works" in found and "138 GiB" in found["tf-grabs-all-memory"].summary
    # the recorded float32 matmul error (2.7e-4) is TF32's, said as information, not as a fault
    tf32 = found["tf32-in-float32"]
    assert tf32.severity is Severity.INFO and "matmul" in tf32.summary and "2.7e-04" in tf32.summary


def test_hidden_verdict_blames_cuda_visible_devices(tmp_path):
    _, _, found = verdict(
        tmp_path, "h200-hidden", lambda m: {"LD_LIBRARY_PATH": lib_dir(m, "cusolver"), "CUDA_VISIBLE_DEVICES": ""}
    )
    assert found["gpu-not-visible-to-tensorflow"].hint == "unset CUDA_VISIBLE_DEVICES"
    assert "cuda-visible-devices-hides-all" in found


def test_failed_probes_become_errors_with_their_own_ids(tmp_path):
    for status, finding in (
        ("timed_out", "probe-timed-out"),
        ("crashed", "probe-crashed"),
        ("protocol_error", "probe-protocol-error"),
    ):
        _, d, found = verdict(tmp_path / status, None, status=status)
        assert found[finding].severity is Severity.ERROR and d.problems()


def both_dirs(m):
    return {"LD_LIBRARY_PATH": f"{lib_dir(m, 'cusolver')}:{lib_dir(m, 'cuda_nvrtc')}"}


def test_issue_14_fixed_layout_trains_without_xla_and_warns_that_xla_is_still_compiling(tmp_path):
    """H200, 2026-12-03, the fix tfgpu env prints applied: the CNN trained; XLA was still compiling at 60 s."""
    _, d, found = verdict(tmp_path, "h200-training-fixed", both_dirs)
    assert not d.problems() and d.problems(strict=True)
    works = found["keras-training-works"]
    assert "float32 no XLA first epoch 3.3 s" in works.summary and "mixed_bfloat16" in works.summary
    slow = found["xla-compile-timed-out"]
    assert slow.severity is Severity.WARNING and "after 60 s" in slow.summary and "jit_compile=False" in slow.hint
    assert "keras-xla-by-default" not in found  # the probe measured XLA, so the generic note goes


def test_issue_14_without_nvrtc_the_doctor_names_it_and_never_says_healthy(tmp_path):
    """H200, 2026-12-03: cusolver's directory alone; cuDNN cannot load libnvrtc, XLA's bf16 conv has no engine."""
    m, d, found = verdict(tmp_path, "h200-nvrtc-hidden", lambda m: {"LD_LIBRARY_PATH": lib_dir(m, "cusolver")})
    assert d.problems()
    failed = found["keras-training-failed"]
    assert (
        failed.severity is Severity.ERROR and "mixed_bfloat16 with Keras's default jit_compile (XLA)" in failed.summary
    )
    assert "libnvrtc.so.12 could not be loaded" in failed.detail and "Autotuner could not find" in failed.detail
    assert "for HLO" not in failed.detail  # the HLO dump stays in the log
    assert failed.hint.startswith(f"export LD_LIBRARY_PATH={lib_dir(m, 'cuda_nvrtc')}$")
    assert "jit_compile=False" in failed.hint  # jit off trained in both precisions
    assert "libnvrtc.so.12" in found["cuda-dependency-not-on-search-path"].summary


def test_issue_14_a_child_that_dies_while_training_keeps_what_it_learned_before(tmp_path):
    _, d, _ = verdict(tmp_path, "h200-training-fixed", both_dirs)
    died = replace(
        d.facts.probe, training=(), training_state=TrainingState.DIED, signal=6, stderr_tail="F cuda.cc:1] Check failed"
    )
    found = {f.id: f for f in diagnose(replace(d.facts, probe=died)).findings}
    assert (
        "signal 6" in found["keras-training-crashed"].summary
        and "Check failed" in found["keras-training-crashed"].detail
    )
    assert "gpu-results-match-cpu" in found  # the op checks before training are kept


def test_issue_19_missing_tensorflow_is_said_once_and_a_pep668_python_gets_a_venv(tmp_path):
    from tests.fakes.machines import gpu_machine as machine

    from tfgpu.model.probe import ProbeFacts

    m = machine(tmp_path, tf=None)
    facts = collect_facts(m.sources())
    facts = replace(facts, host=replace(facts.host, externally_managed=True, python_executable="/usr/bin/python3"))
    missing = ProbeFacts(
        "tensorflow_missing", "/usr/bin/python3", 1.0, 180.0, error_message="No module named 'tensorflow'"
    )
    found = [f for f in diagnose(replace(facts, probe=missing)).findings if "tensorflow" in f.id]
    assert [f.id for f in found] == ["tensorflow-not-installed"]
    assert (
        found[0].hint
        == "/usr/bin/python3 -m venv ~/tf-gpu && ~/tf-gpu/bin/python -m pip install 'tensorflow[and-cuda]==2.21.*'"
    )


def test_issue_19_a_probe_timeout_without_a_gpu_does_not_blame_ptx_jit(tmp_path):
    from tfgpu.model.probe import ProbeFacts, ProbeOutcome

    m = gpu_machine(tmp_path)
    m.nvml = FakeNvml.no_driver()
    facts = collect_facts(m.sources())
    slow = ProbeFacts(ProbeOutcome.TIMED_OUT, "python3", 180.0, 180.0)
    (finding,) = [f for f in diagnose(replace(facts, probe=slow)).findings if f.id == "probe-timed-out"]
    assert "PTX" not in finding.detail and "--probe-timeout 360" in finding.hint


def test_an_older_nvjitlink_first_names_cusparse_and_gives_the_line_that_puts_the_wheels_copy_first(tmp_path):
    """TF 2.21 names no library in 'Cannot dlopen some GPU libraries' (the worker recorded on an H100 from `device.sh
    raw` with CUDA 12.1's libnvJitLink.so.12 first on LD_LIBRARY_PATH, 2026-12-07); the static facts know it was
    cuSPARSE, beside an nvJitLink that lacks the symbols it binds."""

    def shadowed(m):
        old = tmp_path / "opt/nvjitlink-12.1"
        defines = tuple(NVJITLINK_SYMBOLS["nvjitlink-12.1.105-defines"])
        write_elf(old / "libnvJitLink.so.12", soname="libnvJitLink.so.12", defines=defines)
        return {"LD_LIBRARY_PATH": f"{old}:{both_dirs(m)['LD_LIBRARY_PATH']}"}

    m, d, found = verdict(tmp_path, "h100-nvjitlink-shadowed", shadowed)
    f = found["gpu-not-visible-to-tensorflow"]
    assert f.summary.endswith(
        f"it could not load libcusparse.so.12 (beside {tmp_path}/opt/nvjitlink-12.1/libnvJitLink.so.12)"
    )
    assert f.hint.startswith(f"export LD_LIBRARY_PATH={lib_dir(m, 'nvjitlink')}$")
    assert found["ld-library-path-shadows-wheel"].severity is Severity.ERROR
    assert d.problems()[0].id == "ld-library-path-shadows-wheel"  # "Start with:" names the cause, not the symptom


def test_an_older_nvjitlink_wheel_gets_its_upgrade_where_no_line_can_help(tmp_path):
    """The wheel's own nvJitLink lacks the symbols cuSPARSE binds (pip resolved 12.1, NVIDIA/cuvs#1794): no copy here has
    them, so the no-GPU verdict's fix is that wheel's upgrade, the same as the static finding's, not TF's reinstall."""

    def old_wheel(m):
        wheel = Path(lib_dir(m, "nvjitlink")) / "libnvJitLink.so.12"
        write_elf(wheel, soname="libnvJitLink.so.12", defines=tuple(NVJITLINK_SYMBOLS["nvjitlink-12.1.105-defines"]))
        return both_dirs(m)

    m, d, found = verdict(tmp_path, "h200-wheel-layout", old_wheel)
    f = found["gpu-not-visible-to-tensorflow"]
    assert f.summary.endswith(
        "it could not load libcusparse.so.12 (beside " + lib_dir(m, "nvjitlink") + "/libnvJitLink.so.12)"
    )
    assert f.hint.endswith("-m pip install --upgrade nvidia-nvjitlink-cu12")
    assert f.hint == found["cuda-dependency-lacks-symbols"].hint
    assert d.problems()[0].id == "cuda-dependency-lacks-symbols"
