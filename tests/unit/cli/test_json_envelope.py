"""Every --json document opens with the same envelope: schema_version, tool, command."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.cli import run_cli

from tfgpu.model.documents import SCHEMA_VERSIONS, Document
from tfgpu.model.tune import Trial, TrialConfig, TrialOutcome, TuneReport, TuneResult
from tfgpu.report.bench import render_bench_json
from tfgpu.report.burn import render_burn_json
from tfgpu.report.tune import render_tune_json

LOG = Path(__file__).parents[2] / "fixtures" / "tf_logs" / "h200-tf-2.21-wheel-layout.log"


def envelope(doc: dict) -> list:
    return list(doc)[:3]


def test_doctor_explain_bench_burn_and_tune_share_the_envelope():
    from tfgpu.model.bench import BenchmarkResult, BenchRun

    start = Trial("start", TrialConfig(64), TrialOutcome.OK, 100.0, 0.5)
    documents = {
        "doctor": run_cli("doctor", "--json").json,
        "explain": run_cli("explain", str(LOG), "--json").json,
        "bench": json.loads(render_bench_json(BenchRun(BenchmarkResult("quick", None, (), None, 1.0)))),
        "burn": json.loads(render_burn_json([])),
        "tune": json.loads(render_tune_json(TuneReport(TuneResult((start,), start, start, 1.0), 1, ""))),
    }
    for command, doc in documents.items():
        assert envelope(doc) == ["schema_version", "tool", "command"], command
        assert doc["command"] == command and doc["tool"] == "tfgpu"
        assert doc["schema_version"] == SCHEMA_VERSIONS[Document(command)], command
