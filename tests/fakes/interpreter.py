"""FakeInterpreter: the training interpreter behind the XLA cache's CommandRunner (versions, flag check)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from tfgpu.system.runner import CommandResult
from tfgpu.xlacache.check import PACKAGES

# What XLA prints before it ends a process whose flags it does not know (recorded from TF 2.21 on CPU).
UNKNOWN = "F0000 00:00:1796323129.242737    2839 parse_flags_from_env.cc:234] Unknown flag in TF_XLA_FLAGS: {flag}\n"


@dataclass
class FakeInterpreter:
    """A training interpreter: answers the versions query and the flag check as TF 2.21 does."""

    versions: dict[str, str] = field(default_factory=lambda: {"tensorflow": "2.21.0", "python": "CPython 3.12.3"})
    refuses: tuple[str, ...] = ()
    calls: list[tuple[str, ...]] = field(default_factory=list)

    def run(self, argv: tuple[str, ...], timeout_seconds: float = 10.0) -> CommandResult:
        self.calls.append(argv)
        if tuple(argv[3:]) == PACKAGES:
            return CommandResult(0, json.dumps(self.versions) + "\n", "")
        variables = json.loads(argv[3])
        for value in variables.values():
            for flag in value.split():
                if flag.split("=")[0].lstrip("-") in self.refuses:
                    return CommandResult(1, "", UNKNOWN.format(flag=flag))
        return CommandResult(0, json.dumps({"value": 3.0, "files": 1}) + "\n", "")

    @property
    def checks(self) -> list[tuple[str, ...]]:
        return [c for c in self.calls if tuple(c[3:]) != PACKAGES]
