"""The public-thread corpus of issue 17: well-formed, one log per thread, labelled with known categories."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tfgpu.knowledge.signatures import load_signatures

ROOT = Path(__file__).parents[3]
PUBLIC = ROOT / "benchmarks" / "corpus" / "public-threads.jsonl"
SEED = ROOT.parent / "shared" / "data" / "errors" / "corpus.jsonl"
FIELDS = {"id", "source_url", "tf_version", "os", "log", "category", "benign", "label_basis"}


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_every_log_comes_from_its_own_public_thread_with_a_label_and_a_basis():
    cases = load(PUBLIC)
    harmless = {s.category for s in load_signatures() if s.benign}
    assert len(cases) >= 150
    urls = [c["source_url"] for c in cases]
    assert len({c["id"] for c in cases}) == len(cases)
    assert len(set(urls)) == len(urls) and all(u.startswith("https://github.com/") for u in urls)
    if SEED.exists():  # the seed corpus lives beside the repository (shared/data)
        assert not set(urls) & {c["source_url"] for c in load(SEED)}
    for case in cases:
        assert set(case) == FIELDS, case["id"]
        assert case["log"].strip() and case["label_basis"].strip(), case["id"]
        # benign: the thread's log is harmless, labelled with a category only harmless signatures name
        assert isinstance(case["benign"], bool) and case["benign"] == (case["category"] in harmless), case["id"]


def test_labels_are_categories_the_explainer_can_name():
    known = {s.category for s in load_signatures()}
    unknown = {c["category"] for c in load(PUBLIC)} - known
    assert not unknown, f"labels that are no signature's category (a typo, or a cause named two ways?): {unknown}"


def test_no_signature_was_written_from_a_held_out_thread():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from explain_generalisation import held_out
    finally:
        sys.path.pop(0)
    held = {c["source_url"] for c in load(PUBLIC) if held_out(c)}
    assert held and len(held) < len(load(PUBLIC)) / 2
    citing = {s.id: set(s.sources) & held for s in load_signatures() if set(s.sources) & held}
    assert not citing, citing
