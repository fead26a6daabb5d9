"""Accuracy of `tfgpu explain` on the labelled corpus of real logs (shared/data/errors/corpus.jsonl).

    python benchmarks/explain_accuracy.py [--corpus PATH] [--verbose]

Per case: the top problem's category against the labelled one (benign cases: no error raised, as
issue 28 scores them, and a harmless line of the labelled kind named; a warning that the line is harmless
without a GPU and the problem where one is wanted raises no error). The OS and TF version of each case (its `os` and
`tf_version` fields) are passed as the machine context, as the static doctor facts would be on
that machine. Prints top-1 accuracy, precision and recall over the corpus, and the benign-line
false-alarm rate (benign cases in which a line was reported as an error), with the targets.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from tfgpu.knowledge.archs import parse_cc
from tfgpu.knowledge.compat import gpu_model
from tfgpu.knowledge.resemblance import Resemblance
from tfgpu.knowledge.scanner import LogScanner
from tfgpu.knowledge.signatures import ScanContext, Signature
from tfgpu.model.findings import Severity

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "errors" / "corpus.jsonl"
TOP1_TARGET = 0.90


def context_of(case: dict) -> ScanContext:
    """The machine facts a case's own description gives."""
    os_text = case.get("os", "")
    os_name = "windows" if "Windows" in os_text and "WSL" not in os_text else ("linux" if os_text else None)
    described = case.get("tf_version", "")
    # a tfjs case's field names the Node package's release, which is not a TF release the doctor would read
    version = None if "tfjs" in described else re.search(r"\d+\.\d+", described)
    container = True if re.search(r"(?i)docker|container", os_text) else None
    # "CUDA 10.2, cuDNN 8.0.4" installed, as the doctor would know
    cuda = tuple(re.findall(r"CUDA (\d+(?:\.\d+)?)", os_text)) or None
    cudnn = tuple(re.findall(r"(?i)cuDNN (\d+(?:\.\d+)?)", os_text)) or None
    model = gpu_model(os_text) if os_text else None  # the GPU, as the doctor reads it from NVML
    return ScanContext(
        os=os_name,
        tf_version=version.group() if version else None,
        container=container,
        cuda_installed=cuda,
        cudnn_installed=cudnn,
        gpu_cc=parse_cc(model.compute_capability) if model else None,
    )


def evaluate(
    cases: list[dict],
    *,
    use_context: bool = True,
    signatures: tuple[Signature, ...] | None = None,
    resemblance: Resemblance | None = None,
) -> dict:
    """Per-case predictions and the summary figures (with ``signatures`` and ``resemblance`` instead of the packaged ones)."""
    rows = []
    for case in cases:
        scanner = LogScanner(signatures, resemblance)
        for line in case["log"].splitlines():
            scanner.feed(line)
        result = scanner.result(context_of(case) if use_context else ScanContext())
        hits = result.hits
        problems = [h for h in hits if not h.signature.benign]
        errors = [h for h in problems if result.severity(h) is Severity.ERROR]
        harmless = [h for h in hits if h.signature.benign]
        if case["benign"]:
            told = errors or harmless
            predicted = told[0].signature.category if told else None
            decisive = next((h for h in harmless if h.signature.category == case["category"]), None)
            ok = not errors and decisive is not None
        else:
            predicted = problems[0].signature.category if problems else None
            ok = predicted == case["category"]
            decisive = problems[0] if ok else None
        rows.append(
            {
                "id": case["id"],
                "label": case["category"],
                "predicted": predicted,
                "ok": ok,
                "signature": decisive.signature.id if ok and decisive else None,
                "benign": case["benign"],
                "false_alarm": bool(case["benign"] and errors),
            }
        )
    predicted = [r for r in rows if r["predicted"] is not None]
    correct = sum(r["ok"] for r in rows)
    benign = [r for r in rows if r["benign"]]
    return {
        "rows": rows,
        "top1": correct / len(rows),
        "precision": sum(r["ok"] for r in predicted) / len(predicted) if predicted else 0.0,
        "recall": correct / len(rows),
        "false_alarm_rate": sum(r["false_alarm"] for r in benign) / len(benign) if benign else 0.0,
        "cases": len(rows),
        "benign_cases": len(benign),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    cases = [json.loads(line) for line in args.corpus.read_text().splitlines() if line.strip()]
    result = evaluate(cases)
    for row in result["rows"]:
        if args.verbose or not row["ok"]:
            print(f"{'ok  ' if row['ok'] else 'MISS'} {row['id']}: label {row['label']}, top {row['predicted']}")
    print(f"cases: {result['cases']} ({result['benign_cases']} benign)")
    print(f"top-1 accuracy: {result['top1']:.1%} (target {TOP1_TARGET:.0%}, ratio {result['top1'] / TOP1_TARGET:.2f})")
    print(f"precision: {result['precision']:.1%}  recall: {result['recall']:.1%}")
    print(f"benign false-alarm rate: {result['false_alarm_rate']:.1%} (target 0%)")
    bare = evaluate(cases, use_context=False)
    print(
        f"without the machine context (log text alone): top-1 {bare['top1']:.1%}, false alarms {bare['false_alarm_rate']:.1%}"
    )


if __name__ == "__main__":
    main()
