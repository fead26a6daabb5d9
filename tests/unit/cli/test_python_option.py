"""``--python`` takes an interpreter, or the venv or conda directory that holds one (doctor, bench, tune)."""

from __future__ import annotations

import argparse
import os

import pytest
from tests.fakes.cli import run_cli

from tfgpu.cli.argtypes import python_interpreter


def make_env(root, relative: str) -> str:
    path = root / relative
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\n")
    os.chmod(path, 0o755)
    return str(path)


def test_a_venv_or_conda_directory_means_its_interpreter(tmp_path):
    venv = make_env(tmp_path / "venv", "bin/python3")
    conda_windows = make_env(tmp_path / "conda", "python.exe")
    assert python_interpreter(str(tmp_path / "venv")) == venv
    assert python_interpreter(str(tmp_path / "conda")) == conda_windows
    assert python_interpreter(venv) == venv


@pytest.mark.parametrize("make", ["empty-dir", "not-executable", "missing"])
def test_anything_else_is_refused_with_the_reason(tmp_path, make):
    target = tmp_path / "x"
    if make == "empty-dir":
        target.mkdir()
    elif make == "not-executable":
        target.write_text("")
    with pytest.raises(argparse.ArgumentTypeError, match=r"venv|conda"):
        python_interpreter(str(target))


@pytest.mark.parametrize("command", ["doctor", "bench", "tune"])
def test_a_bad_python_is_a_usage_error_before_anything_runs(tmp_path, command, capsys):
    extra = [str(tmp_path / "train.py")] if command == "tune" else []
    result = run_cli(command, "--python", str(tmp_path), *extra)
    assert result.exit_status == 2 and "no bin/python in it" in result.stderr + capsys.readouterr().err
