"""FakeProbe: ProbeRunner answers replayed from envelopes and stderr recorded from the real worker."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tfgpu.probe.runner import ProbeRun, RunStatus

FIXTURES = Path(__file__).parent.parent / "fixtures" / "probe"


@dataclass
class FakeProbe:
    """Replays one recorded ``devices`` run (``tests/fixtures/probe/<name>.json`` + ``.stderr``)."""

    recording: str | None = "cpu-tensorflow-cpu-2.21"
    status: str = "ok"
    python: str = "/usr/bin/python3"
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    def run(
        self,
        task: str,
        *,
        timeout_seconds: float = 180.0,
        env: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
    ) -> ProbeRun:
        self.calls.append((task, dict(env or {})))
        if self.status != "ok" or self.recording is None:
            return ProbeRun(
                RunStatus(self.status),
                self.python,
                timeout_seconds,
                timeout_seconds,
                None,
                "",
                None,
                problem="simulated",
            )
        envelope = json.loads((FIXTURES / f"{self.recording}.json").read_text())
        stderr = (FIXTURES / f"{self.recording}.stderr").read_text()
        if task == "interpreter":
            envelope = {**envelope, "task": "interpreter", "data": {"interpreter": envelope["data"]["interpreter"]}}
        return ProbeRun(RunStatus.OK, self.python, 9.5, timeout_seconds, envelope, stderr, 0)
