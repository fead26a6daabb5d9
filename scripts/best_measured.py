"""Build src/tfgpu/knowledge/data/gpu_measured.csv: the best figure per workload seen on each GPU model.

    python scripts/best_measured.py --gpu "NVIDIA H200" docs/examples/h200-bench-full.json \\
        docs/examples/h200-training-causes.json docs/examples/h200-resnet50-input.json > src/tfgpu/knowledge/data/gpu_measured.csv

Reads `tfgpu bench --json` documents and benchmarks/training_causes.py --json lists (the same
workload names); keeps the highest value per name and the file it came from.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path


def rows_of(path: Path) -> list[tuple[str, float, str]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(doc, dict):
        return [(e["name"], e["value"], e["unit"]) for e in doc["entries"] if e.get("ok") and e.get("value")]
    return [(r["name"], r["samples_per_second"], "samples/s") for r in doc if r.get("samples_per_second")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gpu", required=True, help="the NVML product name the runs were made on")
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    best: dict[str, tuple[float, str, str]] = {}
    for path in args.files:
        for name, value, unit in rows_of(path):
            if name.endswith("on CPU"):
                continue
            if name not in best or value > best[name][0]:
                best[name] = (value, unit, path.name)
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["gpu_model", "workload", "value", "unit", "source"])
    for name, (value, unit, source) in sorted(best.items()):
        out.writerow([args.gpu, name, f"{value:.4g}", unit, f"docs/examples/{source}"])


if __name__ == "__main__":
    main()
