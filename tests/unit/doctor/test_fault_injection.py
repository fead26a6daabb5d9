"""Every collector and every check made to raise in turn: still a report, exit 3, no traceback."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from tests.fakes.machines import gpu_machine

from tfgpu.cli.exit_status import ExitStatus
from tfgpu.doctor.collect import COLLECTOR_NAMES, Collectors, collect_facts
from tfgpu.doctor.diagnose import CHECKS, diagnose
from tfgpu.report.json import render_json
from tfgpu.report.text import make_console, render_text


def _boom(*args, **kwargs):
    raise RuntimeError("injected fault")


@pytest.mark.parametrize("name", COLLECTOR_NAMES)
def test_collector_that_raises_becomes_an_error_finding(tmp_path, name):
    m = gpu_machine(tmp_path)
    facts = collect_facts(m.sources(), replace(Collectors(), **{name: _boom}))
    d = diagnose(facts)
    failed = [f for f in d.findings if f.id == f"collector-{name}-failed"]
    assert failed and "injected fault" in failed[0].detail
    assert d.problems()  # exit status 3
    out = io.StringIO()
    render_text(d, make_console(out, color=False))
    assert "Could not collect" in out.getvalue()
    assert '"verdict": "errors"' in render_json(d)


@pytest.mark.parametrize("index", range(len(CHECKS)))
def test_check_that_raises_becomes_doctor_check_failed(tmp_path, index):
    facts = collect_facts(gpu_machine(tmp_path).sources())
    checks = list(CHECKS)
    checks[index] = _boom
    d = diagnose(facts, checks)
    assert any(f.id == "doctor-check-failed" and "injected fault" in f.detail for f in d.findings)
    assert ExitStatus.FINDINGS_ERROR == 3 and d.problems()
