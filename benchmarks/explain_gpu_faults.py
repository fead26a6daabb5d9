"""Issue 28: explain on real TensorFlow 2.21 logs of known faults, recorded on the lent GPU machine (sets a to j)
and, for faults that need no GPU, on a machine without one (set k, scripts/cpu_issue28.sh).

The public corpus is mostly TF 1.x and early 2.x; these logs are what TF 2.21 and Keras 3.15 print today for
faults a user meets (out of memory, another process holding the GPU, memory growth set late, a fork after CUDA
started, retracing, an op without a GPU kernel, a model outside the strategy's scope, XLA refusing an op, Keras 3's
removed legacy optimizers, a hidden GPU, pip's wheel layout) and for runs that work. Each log's category was
written in benchmarks/corpus/gpu-faults.json before the log was produced (scripts/h200_issue28.sh makes them), and
each is scored as the corpus is (benchmarks/explain_accuracy.evaluate: the top problem's category, or for a run
that works, no error and its harmless line named).

    PYTHONPATH=src:benchmarks python benchmarks/explain_gpu_faults.py

Set a was written from once it was scored (13 of 16 before); sets b and c were each registered after the set
before them had been written from, and scored with that base before anything was written from them
(benchmarks/corpus/gpu-faults.json says which commit).
"""

from __future__ import annotations

import json
from pathlib import Path

from explain_accuracy import evaluate

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "benchmarks" / "corpus" / "gpu-faults.json"
LOGS = ROOT / "tests" / "fixtures" / "tf_logs" / "gpu-faults"


def fault_cases() -> list[dict]:
    """The recorded logs as corpus cases: their pre-registered category, TF 2.21 on Linux."""
    faults = json.loads(MANIFEST.read_text())["faults"]
    return [
        {
            "id": name,
            "log": (LOGS / f"{name}.log").read_text(),
            "category": fault["category"],
            "benign": fault["benign"],
            "tf_version": "2.21",
            "os": "Linux",
            "set": fault["set"],
        }
        for name, fault in faults.items()
    ]


def main() -> int:
    cases = fault_cases()
    result = evaluate(cases)
    for row in result["rows"]:
        mark = "ok  " if row["ok"] else "MISS"
        print(f"  {mark} {row['id']:<22} {row['label']:<32} -> {row['predicted']}")
    for part in sorted({case["set"] for case in cases}):
        rows = [row for case, row in zip(cases, result["rows"], strict=True) if case["set"] == part]
        right = sum(row["ok"] for row in rows)
        working = [row for row in rows if row["benign"]]
        print(
            f"set {part}: top-1 {right} of {len(rows)} ({right / len(rows):.1%}); an error raised on a working run: "
            f"{sum(row['false_alarm'] for row in working)} of {len(working)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
