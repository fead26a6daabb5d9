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


def test_every_subpackage_has_a_place_in_the_layers_contract():
    """Issue 15: a new subpackage outside the import-linter layers would be checked by nothing."""
    import re
    import sys
    from pathlib import Path

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    root = Path(__file__).parents[2]
    contracts = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    listed = {name for layer in layers for name in re.findall(r"tfgpu\.(\w+)", layer)}
    packages = {p.parent.name for p in (root / "src" / "tfgpu").glob("*/__init__.py")}
    assert packages == listed, {"missing": packages - listed, "gone": listed - packages}
