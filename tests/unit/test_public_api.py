"""The public surface (R11) and its cheap import."""

import pytest

import tfgpu
from tfgpu.model.errors import DiagnosticError


def test_public_api_snapshot():
    assert tfgpu.__all__ == ["DiagnosticError", "TfgpuError", "__version__", "setup", "tune"]


def test_tune_refuses_functions_the_trial_processes_cannot_import():
    def build_model():  # defined inside a test: not importable by name
        return None

    with pytest.raises(DiagnosticError) as info:
        tfgpu.tune(build_model, ([], []))
    assert info.value.reference == "tune-function-not-importable" and "tfgpu tune script.py" in info.value.hint
