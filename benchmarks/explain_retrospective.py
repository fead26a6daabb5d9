"""Each fresh late set, scored with the signature base it was frozen against and today's scanner.

A late set's first figure mixes nothing: the base as committed, on threads nobody had read. Later
figures mix two things, signatures written from the set and changes to the scanner. Loading the
signature file of the commit each set was frozen against (``git show``) in place of the packaged
one leaves the scanner as the only change, measured on logs that were not written from. The
resemblance tier is learnt, for each set, from the logs read before it (the seed corpus and the
earlier public threads, less the held-out quarter), as it could have been when the set was frozen.

    PYTHONPATH=src:benchmarks python benchmarks/explain_retrospective.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from explain_accuracy import evaluate
from explain_generalisation import DEFAULT_CORPUS, LATE_SETS, PUBLIC, held_out, late_set, load, resemblance_of

from tfgpu.knowledge.signatures import parse_signatures

if sys.version_info >= (3, 11):
    import tomllib
else:  # the oldest Python TF supports has no tomllib
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
FROZEN = {
    "2026-12-04": "3918058",
    "2026-12-04b": "badfe20",
    "2026-12-04c": "9e575ba",
    "2026-12-04d": "e2d042e",
    "2026-12-04e": "5c4996d",
    "2026-12-04f": "7361740",
    "2026-12-04g": "3f63af9",
    "2026-12-04h": "a56dd15",
    "2026-12-04i": "64d1726",
    "2026-12-04j": "3bae031",
    "2026-12-04k": "2a55e2e",
    "2026-12-04l": "c2eebc6",
    "2026-12-04m": "9311310",
    "2026-12-04n": "64d5448",
    "2026-12-04o": "c6e661b",
    "2026-12-04p": "b9b7b9e",
    "2026-12-04q": "fc5d23d",
    "2026-12-04r": "4999efe",
    "2026-12-04s": "a2ddd90",
    "2026-12-04t": "c992723",
    "2026-12-04u": "599733d",
    "2026-12-04v": "1a77774",
    "2026-12-05": "55ae3ae",
    "2026-12-05b": "cd77732",
    "2026-12-05c": "3212a78",
}
"""The commit whose signature base each late set was first scored with (the 2026-12-03 set's predates this record)."""
SIGNATURE_FILE = "src/tfgpu/knowledge/data/signatures.toml"


def frozen_base(commit: str):
    """The signatures as they were at ``commit``."""
    text = subprocess.run(
        ["git", "show", f"{commit}:{SIGNATURE_FILE}"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    return parse_signatures(tomllib.loads(text))


def main() -> None:
    seed, public = load(DEFAULT_CORPUS), load(PUBLIC)
    for name, commit in FROZEN.items():
        first, last = LATE_SETS[name]
        cases = late_set(public, first, last)
        hold = [c for c in cases if held_out(c)]
        signatures = frozen_base(commit)
        earlier = resemblance_of(seed + [c for c in public if int(c["id"].split("-")[1]) < first])
        result = evaluate(cases, signatures=signatures, resemblance=earlier)
        held_ok = sum(r["ok"] for r in evaluate(hold, signatures=signatures, resemblance=earlier)["rows"])
        correct = sum(r["ok"] for r in result["rows"])
        alarms = sum(r["false_alarm"] for r in result["rows"])
        print(
            f"late set {name} with its frozen base {commit} and today's scanner: top-1 {result['top1']:.1%} "
            f"({correct}/{len(cases)}; held-out part {held_ok}/{len(hold)}; false alarms {alarms})"
        )


if __name__ == "__main__":
    main()
