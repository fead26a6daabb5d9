"""Write the resemblance model that `tfgpu explain` packages (src/tfgpu/knowledge/data/resemblance.json).

    PYTHONPATH=src:benchmarks python scripts/build_resemblance.py [--check]

The model is learnt from the labelled logs of the seed corpus (shared/data/errors/corpus.jsonl)
and the public threads (benchmarks/corpus/public-threads.jsonl), less the held-out quarter whose
misses are never looked at (benchmarks/explain_generalisation.py), so the held-out figure stays a
figure on logs the tool never learnt from. Run it after the corpus changes; ``--check`` exits 1
when the packaged file is not what the corpus gives.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from explain_generalisation import DEFAULT_CORPUS, PUBLIC, load, resemblance_of

PACKAGED = Path(__file__).resolve().parents[1] / "src" / "tfgpu" / "knowledge" / "data" / "resemblance.json"


def document() -> str:
    """The packaged file's text, as the corpus gives it."""
    model = resemblance_of(load(DEFAULT_CORPUS) + load(PUBLIC))
    return json.dumps(model.to_document(), sort_keys=True, separators=(",", ":")) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 when the packaged model is out of date")
    args = parser.parse_args()
    text = document()
    if args.check:
        current = PACKAGED.read_text() if PACKAGED.exists() else ""
        print("up to date" if current == text else f"{PACKAGED} is out of date: run {Path(__file__).name}")
        return 0 if current == text else 1
    PACKAGED.write_text(text)
    print(f"wrote {PACKAGED} ({len(text):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
