"""Each fresh late set, scored with the signature base it was frozen against and today's scanner.

A late set's first figure mixes nothing: the base as committed, on threads nobody had read. Later
figures mix two things, signatures written from the set and changes to the scanner. Loading the
signature file of the commit each set was frozen against (``git show``) in place of the packaged
one leaves the scanner as the only change, measured on logs that were not written from. The
resemblance tier is learnt, for each set, from the logs read before it (the seed corpus and the
earlier public threads, less the held-out quarter), as it could have been when the set was frozen.

    PYTHONPATH=src:benchmarks python benchmarks/explain_retrospective.py [--typology]

``--typology`` adds, over all these sets, what the misses are: a log read as nothing (silent) or as
another cause (wrong), a benign log raising an error, each split by where the label came from: the
log's own lines (a label basis starting "log" or "message") or a thread's prose, title or maintainer.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter
from pathlib import Path

from explain_accuracy import evaluate
from explain_generalisation import (
    DEFAULT_CORPUS,
    LATE_SETS,
    PUBLIC,
    held_out,
    label_source,
    late_set,
    load,
    resemblance_of,
)

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
    "2026-12-05d": "b03c5fd",
    "2026-12-05e": "e240ad8",
    "2026-12-05f": "a90c4bc",
    "2026-12-05g": "60e9b24",
    "2026-12-05h": "39009b1",
    "2026-12-05i": "e9103fb",
    "2026-12-05j": "201e33c",
    "2026-12-05k": "67e1912",
    "2026-12-06": "1bc0c3f",
    "2026-12-06b": "dba9acc",
    "2026-12-06c": "e97817c",
    "2026-12-07": "ce215f5",
    "2026-12-07b": "9c8aeab",
    "2026-12-07c": "af2e17d",
    "2026-12-07d": "62db5d1",
}
"""The commit whose signature base each late set was first scored with (the 2026-12-03 set's predates this record)."""
SIGNATURE_FILE = "src/tfgpu/knowledge/data/signatures.toml"


def frozen_base(commit: str):
    """The signatures as they were at ``commit``."""
    text = subprocess.run(
        ["git", "show", f"{commit}:{SIGNATURE_FILE}"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    return parse_signatures(tomllib.loads(text))


def miss_kinds(cases: list[dict], rows: list[dict]) -> tuple[Counter[tuple[str, str]], Counter[tuple[str, str | None]]]:
    """Per (outcome, label source) the number of logs, and per (label, answer) the number of misses."""
    kinds: Counter[tuple[str, str]] = Counter()
    confusions: Counter[tuple[str, str | None]] = Counter()
    for case, row in zip(cases, rows, strict=True):
        source = label_source(case)
        if row["ok"]:
            outcome = "right"
        elif row["false_alarm"]:
            outcome = "benign log raised an error"
        elif case["benign"]:
            outcome = "benign log not named"
        else:
            outcome = "silent" if row["predicted"] is None else "wrong"
            confusions[(case["category"], row["predicted"])] += 1
        kinds[(outcome, source)] += 1
    return kinds, confusions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--typology", action="store_true", help="also print what the misses are, over all sets")
    args = parser.parse_args()
    seed, public = load(DEFAULT_CORPUS), load(PUBLIC)
    kinds: Counter[tuple[str, str]] = Counter()
    confusions: Counter[tuple[str, str | None]] = Counter()
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
        set_kinds, set_confusions = miss_kinds(cases, result["rows"])
        kinds += set_kinds
        confusions += set_confusions
    if args.typology:
        print_typology(kinds, confusions)


def print_typology(kinds: Counter[tuple[str, str]], confusions: Counter[tuple[str, str | None]]) -> None:
    """Top-1 by where the label came from, the misses by kind, and the commonest confusions."""
    for source in ("log", "thread"):
        total = sum(n for (_, s), n in kinds.items() if s == source)
        right = kinds[("right", source)]
        print(
            f"labelled from the {source}: top-1 {right / total:.1%} ({right}/{total})"
            if total
            else f"no {source} labels"
        )
        for (outcome, s), n in sorted(kinds.items(), key=lambda kv: -kv[1]):
            if s == source and outcome != "right":
                print(f"  {outcome}: {n}")
    print("commonest misses (label -> answer):")
    for (label, answer), n in confusions.most_common(12):
        print(f"  {n} {label} -> {answer or 'nothing'}")


if __name__ == "__main__":
    main()
