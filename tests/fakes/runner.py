"""FakeCommandRunner: recorded command outputs, by argv; unknown commands are missing."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from tfgpu.system.runner import CommandResult

FIXTURES = Path(__file__).parent.parent / "fixtures" / "commands"


@dataclass
class FakeCommandRunner:
    """Answers each argv from a table; records every call."""

    results: dict[tuple[str, ...], CommandResult] = field(default_factory=dict)
    calls: list[tuple[str, ...]] = field(default_factory=list)

    def run(self, argv: tuple[str, ...], timeout_seconds: float = 10.0) -> CommandResult:
        self.calls.append(tuple(argv))
        return self.results.get(tuple(argv), CommandResult(None, "", f"{argv[0]}: not found", missing=True))

    @classmethod
    def from_recording(cls, machine: str) -> FakeCommandRunner:
        """Load tests/fixtures/commands/<machine>.json written by scripts/record_gpu_fixtures.py."""
        data = json.loads((FIXTURES / f"{machine}.json").read_text())
        results = {}
        for entry in data.values():
            if isinstance(entry, dict) and "argv" in entry:
                results[tuple(entry["argv"])] = CommandResult(
                    entry["returncode"], entry["stdout"], entry["stderr"], missing=entry["returncode"] is None
                )
        return cls(results)
