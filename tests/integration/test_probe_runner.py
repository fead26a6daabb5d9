"""SubprocessProbeRunner with real children: stand-in workers, the real worker on tensorflow-cpu."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tfgpu.probe import child_envelope
from tfgpu.probe.collect import run_tensorflow_probe, shape
from tfgpu.probe.runner import STDERR_TAIL_BYTES, RunStatus, SubprocessProbeRunner

WORKERS = Path(__file__).parents[1] / "fakes" / "workers"


def fake(name: str) -> SubprocessProbeRunner:
    return SubprocessProbeRunner(worker=str(WORKERS / f"{name}.py"))


@pytest.mark.timeout(60)  # the worker sleeps longer than this: only the kill ends the test in time
def test_hanging_worker_is_killed_at_the_timeout():
    run = fake("sleeps").run("devices", timeout_seconds=2)
    assert run.status == "timed_out"
    assert shape(run).outcome == "timed_out"


def test_crashing_worker_is_reported_with_signal_and_log_tail():
    run = fake("aborts").run("devices", timeout_seconds=30)
    assert run.status == "crashed" and run.signal == 6
    assert "Segmentation fault in libcudnn" in shape(run).stderr_tail


def test_garbage_and_missing_output_are_protocol_errors():
    assert fake("garbage_output").run("devices", timeout_seconds=30).status == "protocol_error"
    assert fake("no_output").run("devices", timeout_seconds=30).status == "protocol_error"


def test_stderr_flood_is_bounded_and_its_end_still_parsed():
    run = fake("floods_stderr").run("devices", timeout_seconds=60)
    assert run.status == "ok" and len(run.stderr.encode()) <= STDERR_TAIL_BYTES
    assert "cannot_dlopen" in {e.kind for e in shape(run).log_events}


def test_real_worker_on_tensorflow_cpu_reports_no_gpu():
    facts = run_tensorflow_probe(SubprocessProbeRunner(), dict(os.environ), timeout_seconds=120)
    assert facts.outcome == "ok" and facts.gpus == ()
    assert facts.tf_version and facts.tf_version.startswith("2.") and facts.import_seconds > 0


def test_broken_library_on_ld_library_path_is_an_import_failure(tmp_path):
    (tmp_path / "libtensorflow_framework.so.2").write_bytes(b"this is not an ELF file")
    env = {**os.environ, "LD_LIBRARY_PATH": str(tmp_path)}
    facts = run_tensorflow_probe(SubprocessProbeRunner(), env, timeout_seconds=120)
    assert facts.outcome == "import_failed"
    assert "libtensorflow_framework.so.2" in (facts.error_message or "")


def test_interpreter_without_tensorflow_is_reported_as_missing():
    base = Path(sys.base_prefix) / "bin" / "python3"
    facts = run_tensorflow_probe(
        SubprocessProbeRunner(str(base)), {"PATH": os.environ.get("PATH", "")}, timeout_seconds=60
    )
    assert facts.outcome == "tensorflow_missing" and facts.python == str(base)


def test_missing_interpreter_is_a_crash_with_the_reason():
    run = SubprocessProbeRunner("/nonexistent/python").run("devices", timeout_seconds=5)
    assert run.status == "crashed" and "cannot start" in (run.problem or "")


@pytest.mark.timeout(90)  # a hang that is not cut would outlast it
def test_a_warm_job_answers_from_one_child_and_replaces_a_dead_or_hung_one():
    from tfgpu.probe.jobs import WarmJob

    with WarmJob(fake("serves"), "trial", environ=dict(os.environ), args=("--script", "x.py")) as job:
        first, second = job.submit({"do": "answer"}, 30), job.submit({"do": "answer"}, 30)
        assert first.ok and first.data["pid"] == second.data["pid"] and first.data["args"] == ["--script", "x.py"]
        assert job.starts == 1
        crashed = job.submit({"do": "crash"}, 30)
        assert crashed.status == "crashed" and crashed.failure_reason == "the worker died (signal 6)"
        after = job.submit({"do": "answer"}, 30)
        assert after.ok and after.data["pid"] != first.data["pid"] and job.starts == 2
        hung = job.submit({"do": "hang"}, 1.5)  # the test's own timeout fails it if the hang is not cut
        assert hung.status == "timed_out"
        with_no_answer = job.submit({"do": "exit"}, 30)
        assert with_no_answer.status == "protocol_error" and "no output" in with_no_answer.failure_reason
        assert job.submit({"do": "answer"}, 30).ok and job.starts == 4  # crash, hang and exit cost one each


def test_a_session_keeps_the_crash_log_and_leaves_no_process():
    session = fake("serves").serve("trial", env=dict(os.environ))
    run = session.request({"do": "crash"}, 30)
    assert run.status == "crashed" and run.signal == 6 and "illegal memory access" in run.stderr
    assert not session.alive
    live = fake("serves").serve("trial", env=dict(os.environ))
    pid = live.request({"do": "answer"}, 30).envelope["data"]["pid"]
    live.close()
    assert not live.alive
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        pass
    else:
        raise AssertionError(f"the worker {pid} outlived close()")


@pytest.mark.timeout(120)
def test_a_worker_run_by_path_finds_its_shared_envelope_even_under_pythonsafepath():
    """The child imports child_envelope from its own directory, which PYTHONSAFEPATH would leave off sys.path."""
    run = SubprocessProbeRunner().run("interpreter", env={**os.environ, "PYTHONSAFEPATH": "1"}, timeout_seconds=60)
    assert run.status is RunStatus.OK, run.problem + run.stderr
    assert run.envelope["schema_version"] == child_envelope.SCHEMA_VERSION and run.envelope["ok"] is True
    assert run.envelope["data"]["interpreter"]["executable"]
