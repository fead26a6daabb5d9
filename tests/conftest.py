"""Test tiers by folder (pip's layout): unit tests are hermetic, integration tests spawn real
processes and use tensorflow-cpu, hostile tests feed attacker-controlled input to the real CLI
(docs/security.md), readme tests run what the README shows, gpu tests run only with a GPU and TFGPU_RUN_GPU_TESTS=1."""

from __future__ import annotations

import builtins
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Stand-in probe workers and user scripts are run by path; importing them would run them.
collect_ignore_glob = ["fakes/workers/*.py", "fakes/scripts/*.py"]
TIERS = ("unit", "integration", "hostile", "readme", "gpu")
HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    run_gpu = os.environ.get("TFGPU_RUN_GPU_TESTS") == "1" and shutil.which("nvidia-smi") is not None
    for item in items:
        path = Path(str(item.fspath))
        if HERE not in path.parents:  # doctests of src/tfgpu: pure examples, hermetic
            item.add_marker(pytest.mark.unit)
            continue
        rel = path.relative_to(HERE)
        tier = rel.parts[0] if len(rel.parts) > 1 else None
        if tier is None or tier in ("fakes", "fixtures"):
            continue
        if tier not in TIERS:
            raise pytest.UsageError(f"test outside a tier folder {TIERS}: {rel}")
        item.add_marker(getattr(pytest.mark, tier))
        if tier == "gpu" and not run_gpu:
            item.add_marker(pytest.mark.skip(reason="needs an NVIDIA GPU and TFGPU_RUN_GPU_TESTS=1"))


@pytest.fixture(autouse=True, scope="session")
def _private_xla_cache(tmp_path_factory: pytest.TempPathFactory) -> object:
    """Every run of tfgpu under test keeps its XLA programs in a folder of the session's, never the user's."""
    before = os.environ.get("TFGPU_CACHE_DIR")
    os.environ["TFGPU_CACHE_DIR"] = str(tmp_path_factory.mktemp("tfgpu-cache"))
    yield
    if before is None:
        os.environ.pop("TFGPU_CACHE_DIR", None)
    else:
        os.environ["TFGPU_CACHE_DIR"] = before


@pytest.fixture(autouse=True)
def _hermetic_unit(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unit tests must not start processes, touch NVML or import TensorFlow."""
    if request.node.get_closest_marker("unit") is None:
        return

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("unit tests may not start processes; use FakeCommandRunner")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    real_import = builtins.__import__

    def guarded(name: str, *args: object, **kwargs: object) -> object:
        # A module a test put into sys.modules itself (a fake pynvml) may be imported.
        if name.split(".")[0] in ("tensorflow", "pynvml") and name not in sys.modules:
            raise AssertionError(f"unit tests may not import {name}")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", guarded)
