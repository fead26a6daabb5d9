"""A call that never returns costs a deadline, not the command (issue 25 class 4): nvmlInit, hanging ptxas copies."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest
from tests.fakes.nvml import FakeGpu, FakeNvml
from tests.fakes.runner import FakeCommandRunner

from tfgpu.doctor.collect import Sources, collect_facts
from tfgpu.model.errors import NvmlUnavailable
from tfgpu.model.unavailable import Unavailable
from tfgpu.nvml import client as nvml_client
from tfgpu.system import libraries
from tfgpu.system.runner import SubprocessRunner


@pytest.mark.timeout(30)
def test_a_hung_nvml_init_becomes_unavailable_after_the_deadline(monkeypatch):
    released = threading.Event()
    hung = SimpleNamespace(nvmlInit=lambda: released.wait(), nvmlDeviceGetCount=lambda: 1)
    monkeypatch.setattr(nvml_client, "_load_binding", lambda: hung)
    monkeypatch.setattr(nvml_client, "INIT_DEADLINE_SECONDS", 0.2)
    client = nvml_client.PynvmlClient()
    with pytest.raises(NvmlUnavailable, match="did not return"):
        client.device_count()
    with pytest.raises(NvmlUnavailable, match="did not return"):  # remembered: not waited for again
        client.driver_version()
    released.set()


def test_an_init_error_still_reaches_the_caller(monkeypatch):
    def refuse() -> None:
        raise RuntimeError("NVML Shared Library Not Found")

    monkeypatch.setattr(nvml_client, "_load_binding", lambda: SimpleNamespace(nvmlInit=refuse))
    with pytest.raises(NvmlUnavailable):
        nvml_client.PynvmlClient().device_count()


@pytest.mark.timeout(60)
def test_hanging_ptxas_copies_share_one_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(libraries, "PTXAS_BUDGET_SECONDS", 1.0)
    dirs = []
    for n in range(10):
        d = tmp_path / f"bin{n}"
        d.mkdir()
        (d / "ptxas").write_text("#!/bin/sh\nsleep 1000\n")
        (d / "ptxas").chmod(0o755)
        dirs.append(str(d))
    ptxas, _ = libraries.locate_xla_tools({"PATH": ":".join(dirs)}, [], SubprocessRunner(), root=str(tmp_path))
    reasons = [str(getattr(c.version, "reason", c.version)) for c in ptxas.copies]
    assert len(reasons) == 10
    assert sum("not asked" in r for r in reasons) >= 8  # the budget went to the first one or two


class HungNvml(FakeNvml):
    """NVML that never answers once asked for a GPU (a wedged driver)."""

    def __init__(self, released: threading.Event) -> None:
        super().__init__([FakeGpu()])
        self.released = released

    def device_count(self) -> int:
        self.released.wait()
        return 1


@pytest.mark.timeout(60)
def test_the_static_doctor_has_one_deadline_and_keeps_what_it_collected(tmp_path):
    released = threading.Event()
    sources = Sources(runner=FakeCommandRunner(), nvml=HungNvml(released), environ={"PATH": "/usr/bin"}, root=tmp_path)
    facts = collect_facts(sources, deadline_seconds=1.0)
    released.set()
    assert isinstance(facts.gpus, Unavailable) and "deadline" in facts.gpus.reason
    assert not isinstance(facts.host, Unavailable) and not isinstance(facts.environ, Unavailable)
