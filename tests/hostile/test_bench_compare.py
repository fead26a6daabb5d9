"""bench takes nothing on trust (issue 25 classes 5 and 9): ``--compare`` reads a bounded regular file and refuses a
bad one before the suite runs; a child's answer of the wrong shape gives failed entries, not an internal error."""

from __future__ import annotations

import os

import pytest
from tests.fakes.cli import mock_environment, run_cli
from tests.fakes.probe import FakeProbe

from tfgpu.bench.run import previous_figures, run_benchmark
from tfgpu.bench.suites import suite
from tfgpu.cli.exit_status import ExitStatus


class NoWorkers:
    """A worker factory that fails the test if the suite starts."""

    def __call__(self, worker, python):
        raise AssertionError("the suite started before the --compare file was checked")


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "content",
    [b"[1, 2]", b'{"entries": 5}', b"\xff\xfe", b"not json"],
)
def test_a_bad_compare_file_is_a_usage_error_before_the_suite(tmp_path, content):
    path = tmp_path / "old.json"
    path.write_bytes(content)
    env = mock_environment()
    env.worker_factory = NoWorkers()
    result = run_cli("bench", "--compare", str(path), env=env)
    assert result.exit_status == ExitStatus.USAGE and str(path) in result.stderr


@pytest.mark.timeout(30)
def test_a_fifo_or_an_endless_device_is_refused_at_once(tmp_path):
    fifo = tmp_path / "old.json"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero"):
        env = mock_environment()
        env.worker_factory = NoWorkers()
        result = run_cli("bench", "--compare", path, env=env)
        assert result.exit_status == ExitStatus.USAGE and "not a regular file" in result.stderr


def test_malformed_entries_are_left_out_not_trusted():
    document = {
        "entries": [
            1,
            "x",
            {"name": 3},
            {"name": "a", "ok": True, "value": float("nan")},
            {"name": "b", "ok": True, "value": 2},
        ]
    }
    assert previous_figures(document) == {"b": 2.0}


def test_a_child_answer_of_the_wrong_shape_gives_failed_entries_not_an_internal_error():
    specs = suite("quick", tiny=True, gpus=0)
    result = run_benchmark("quick", specs, FakeProbe(), gpu_name=None, environ={})  # it answers a devices probe
    assert len(result.entries) == len(specs) and not any(e.ok for e in result.entries)
    assert all("shape tfgpu does not know" in (e.error or "") for e in result.entries)
