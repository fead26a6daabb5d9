"""tfgpu tune's front door (issue 19): the template is a correct tune script; a training script is refused unrun."""

from __future__ import annotations

import os
from pathlib import Path

from tests.fakes.cli import mock_environment, run_cli
from tests.fakes.probe import FakeProbe

from tfgpu.cli.exit_status import ExitStatus
from tfgpu.model.tune import TrialOutcome
from tfgpu.tuning.api import script_baseline
from tfgpu.tuning.search import BASELINE_MIN_SECONDS

EXAMPLES = Path(__file__).parents[3] / "examples"
TUNE_SCRIPT = Path(__file__).parents[2] / "fakes" / "scripts" / "tune_tiny.py"


def test_template_is_a_tune_script_whose_loss_matches_its_output(tmp_path):
    template = run_cli("tune", "--template").stdout
    script = tmp_path / "tpl.py"
    script.write_text(template)
    assert script_baseline(str(script), None).batch_size == 64
    # sparse_categorical_crossentropy without from_logits wants probabilities: the last layer is a softmax
    assert 'Dense(10, activation="softmax")' in template and "sparse_categorical_crossentropy" in template


def test_a_script_that_is_not_a_tune_script_is_refused_before_it_is_imported():
    result = run_cli("tune", str(EXAMPLES / "first_cnn.py"))
    assert result.exit_status == ExitStatus.USAGE
    assert "not a tune script" in result.stderr and "build_model()" in result.stderr


def test_numbers_and_gpu_lists_are_checked_when_parsed():
    """Issue 15: --budget nan and burn --gpus a were an internal error or a silent nonsense run."""
    for argv in (
        ("tune", "x.py", "--budget", "nan"),
        ("tune", "x.py", "--budget", "0"),
        ("burn", "--gpus", "a"),
        ("burn", "--minutes", "-1"),
        ("monitor", "--interval", "inf"),
        ("run", "--interval", "0", "--", "true"),
    ):
        result = run_cli(*argv)
        assert result.exit_status == ExitStatus.USAGE and "internal error" not in result.stderr, argv


def test_the_trial_table_has_a_header_per_column():
    from tfgpu.model.tune import Trial, TrialConfig
    from tfgpu.report.tune import TRIAL_COLUMNS, trial_row

    row = trial_row(Trial("start", TrialConfig(batch_size=64), TrialOutcome.OK))
    assert len(TRIAL_COLUMNS) == len(row) and TRIAL_COLUMNS[0] == "step"


def test_a_budget_shorter_than_one_trial_is_said_before_it_starts(tmp_path):
    env = mock_environment(probe=FakeProbe(status="crashed"))
    result = run_cli("tune", str(TUNE_SCRIPT), "--budget", "5", env=env)
    assert f"gets up to {BASELINE_MIN_SECONDS:.0f} s whatever the budget" in result.stderr


def test_a_fifo_as_the_tune_script_is_a_usage_error_at_once(tmp_path):
    fifo = tmp_path / "train.py"
    os.mkfifo(fifo)
    result = run_cli("tune", str(fifo))
    assert result.exit_status == ExitStatus.USAGE and "not a regular file" in result.stderr
