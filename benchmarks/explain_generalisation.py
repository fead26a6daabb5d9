"""How well `tfgpu explain` does on real logs it was not written from (issue 17).

    python benchmarks/explain_generalisation.py [--folds 5] [--verbose-dev]

Two corpora: the seed corpus (shared/data/errors/corpus.jsonl, 50 logs the signatures were
tuned on) and benchmarks/corpus/public-threads.jsonl (logs from other public threads, each with
its URL). Four figures, each top-1 (the top problem's category is the thread's; a benign log
has no problem and its harmless line named):

- in-sample: the seed corpus, as benchmarks/explain_accuracy.py measures it;
- held-out: the public logs whose thread URL hashes into the held-out quarter. Their misses
  are never printed, so no signature is written from them; only the figure is;
- grouped cross-validation, leave-source-out: all logs, folds grouped by thread (URL hash).
  For each fold, every signature that could only have been learnt from that fold's threads is
  removed before the fold's logs are explained. A signature counts as learnable elsewhere when
  it cites a thread outside the corpus, or cites a corpus thread of another fold, or correctly
  decides a log of another fold (whoever read that thread would have written it). So a
  signature written from one thread, whose message no other thread of the corpus shows, cannot
  explain that thread's log here;
- train on 2.x, test on 1.x: the same with the 1.x (and 0.x) logs as the one fold: does
  knowledge of TF 2 wording carry over to TF 1 logs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from pathlib import Path

from explain_accuracy import DEFAULT_CORPUS, TOP1_TARGET, evaluate

from tfgpu.knowledge.resemblance import Resemblance
from tfgpu.knowledge.signatures import load_signatures

PUBLIC = Path(__file__).resolve().parent / "corpus" / "public-threads.jsonl"
HELD_OUT_SHARE = 4
"""One thread in this many (by URL hash) is held out."""
LATE_SETS = {
    "2026-12-03": (189, 215),
    "2026-12-04": (216, 282),
    "2026-12-04b": (283, 344),
    "2026-12-04c": (345, 404),
    "2026-12-04d": (405, 466),
    "2026-12-04e": (467, 528),
    "2026-12-04f": (529, 589),
    "2026-12-04g": (590, 649),
    "2026-12-04h": (650, 711),
    "2026-12-04i": (712, 772),
    "2026-12-04j": (773, 834),
    "2026-12-04k": (835, 898),
    "2026-12-04l": (899, 958),
    "2026-12-04m": (959, 1018),
    "2026-12-04n": (1019, 1078),
    "2026-12-04o": (1079, 1138),
    "2026-12-04p": (1139, 1198),
    "2026-12-04q": (1199, 1259),
    "2026-12-04r": (1260, 1320),
    "2026-12-04s": (1321, 1380),
    "2026-12-04t": (1381, 1442),
    "2026-12-04u": (1443, 1504),
    "2026-12-04v": (1505, 1566),
    "2026-12-05": (1567, 1628),
    "2026-12-05b": (1629, 1690),
    "2026-12-05c": (1691, 1752),
    "2026-12-05d": (1753, 1813),
    "2026-12-05e": (1814, 1874),
    "2026-12-05f": (1875, 1934),
    "2026-12-05g": (1935, 1994),
    "2026-12-05h": (1995, 2017),
    "2026-12-05i": (2018, 2077),
    "2026-12-05j": (2078, 2138),
    "2026-12-05k": (2139, 2200),
    "2026-12-06": (2201, 2240),
    "2026-12-06b": (2241, 2260),
    "2026-12-06c": (2261, 2320),
    "2026-12-06d": (2321, 2389),
    "2026-12-07": (2390, 2453),
    "2026-12-07b": (2454, 2469),
    "2026-12-07c": (2470, 2500),
    "2026-12-07d": (2501, 2560),
}
"""The public logs (pub-NNN, first and last) of each late set: threads read after the base was frozen,
measured before any signature was written from them (benchmarks/corpus/README.md)."""


def bucket(url: str, buckets: int) -> int:
    """A stable bucket for a thread: the same on every machine and every run."""
    return int(hashlib.sha256(url.encode()).hexdigest()[:8], 16) % buckets


def held_out(case: dict) -> bool:
    """The public logs never looked at while writing signatures."""
    return bucket(case["source_url"], HELD_OUT_SHARE) == 0


def resemblance_of(cases: list[dict]) -> Resemblance:
    """The resemblance model learnt from ``cases`` less their held-out quarter, as the packaged one is."""
    return Resemblance.learn((c["category"], c["log"]) for c in cases if not held_out(c))


def era(case: dict) -> str | None:
    """ "1.x" (0.x and 1.x), "2.x", or None when the thread gives no version."""
    match = re.match(r"\s*(\d+)\.", case.get("tf_version", ""))
    if match is None:
        return None
    return "2.x" if int(match.group(1)) >= 2 else "1.x"


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


THREAD = re.compile(
    r"github\.com/[^/]+/[^/]+/(?:issues|pull|discussions)/|stackoverflow\.com/|whosebug|forums?\.|discuss\."
)


def support(cases: list[dict]) -> dict[str, set[str]]:
    """Per signature, the threads of the logs it correctly decides with the whole base."""
    found: dict[str, set[str]] = {}
    for case, row in zip(cases, evaluate(cases)["rows"], strict=True):
        if row["signature"]:
            found.setdefault(row["signature"], set()).add(case["source_url"])
    return found


def learnable_elsewhere(fold_urls: set[str], corpus_urls: set[str], decided: dict[str, set[str]]):
    """The signature base less every signature that only the threads in ``fold_urls`` could have taught."""
    kept = []
    for signature in load_signatures():
        threads = {u for u in signature.sources if THREAD.search(u)}
        external = threads - corpus_urls
        if external or (threads - fold_urls) or (decided.get(signature.id, set()) - fold_urls):
            kept.append(signature)
        elif not threads and not decided.get(signature.id):
            kept.append(signature)  # documentation-only and deciding nothing: irrelevant either way
    return tuple(kept)


def grouped_cv(
    cases: list[dict], folds: int, decided: dict[str, set[str]], *, resemble: bool = True
) -> tuple[set[str], list[float]]:
    """Leave-source-out: the ids of the cases that are right, and each fold's top-1 (``decided``: ``support(cases)``,
    computed once by the caller; ``resemble``: with the resemblance tier learnt from the other folds)."""
    right: set[str] = set()
    per_fold = []
    corpus_urls = {c["source_url"] for c in cases}
    for fold in range(folds):
        test = [c for c in cases if bucket(c["source_url"], folds) == fold]
        if not test:
            continue
        fold_urls = {c["source_url"] for c in test}
        others = [c for c in cases if bucket(c["source_url"], folds) != fold]
        result = evaluate(
            test,
            signatures=learnable_elsewhere(fold_urls, corpus_urls, decided),
            resemblance=resemblance_of(others) if resemble else None,
        )
        right.update(r["id"] for r in result["rows"] if r["ok"])
        per_fold.append(result["top1"])
    return right, per_fold


FROM_LOG = ("log", "message")
"""Label bases that read the cause from the log's own lines; every other basis is a thread's words."""


def label_source(case: dict) -> str:
    """Where a public log's label was read: "log" (its own lines) or "thread" (a thread's prose, title, poster, maintainer)."""
    return "log" if case["label_basis"].lower().startswith(FROM_LOG) else "thread"


def late_set(cases: list[dict], first: int, last: int) -> list[dict]:
    """The cases of one late set, by their pub-NNN numbers."""
    return [c for c in cases if first <= int(c["id"].split("-")[1]) <= last]


def line(name: str, result: dict) -> str:
    return (
        f"{name}: top-1 {result['top1']:.1%} of {result['cases']} logs (false alarms {result['false_alarm_rate']:.0%})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--verbose-dev", action="store_true", help="list the misses of the public logs not held out")
    args = parser.parse_args()
    seed, public = load(DEFAULT_CORPUS), load(PUBLIC)
    dev = [c for c in public if not held_out(c)]
    hold = [c for c in public if held_out(c)]
    threads = {c["source_url"] for c in seed + public}
    print(f"corpus: {len(seed)} seed + {len(public)} public logs from {len(threads)} distinct threads")
    print(line("in-sample (seed corpus)", evaluate(seed)))
    dev_result = evaluate(dev)
    print(line("public, development part", dev_result))
    if args.verbose_dev:
        by_id = {c["id"]: c for c in dev}
        for row in dev_result["rows"]:
            if not row["ok"]:
                print(
                    f"  MISS {row['id']} {by_id[row['id']]['source_url']}: label {row['label']}, top {row['predicted']}"
                )
    print(line("public, held out (misses never shown)", evaluate(hold)))
    for name, (first, last) in LATE_SETS.items():
        late = late_set(public, first, last)
        late_hold = [c for c in late if held_out(c)]
        held_ok = sum(r["ok"] for r in evaluate(late_hold)["rows"]) if late_hold else 0
        print(line(f"late set {name} with today's base (held-out part {held_ok}/{len(late_hold)})", evaluate(late)))
    everything = seed + public
    decided = support(everything)
    named, per_fold = grouped_cv(everything, args.folds, decided)
    right = len(named)
    top1 = right / len(everything)
    spread = ", ".join(f"{f:.0%}" for f in per_fold)
    print(
        f"grouped {args.folds}-fold cross-validation, leave-source-out: top-1 {top1:.1%} of {len(everything)} logs "
        f"({right} right; folds {spread}; target {TOP1_TARGET:.0%}, ratio {top1 / TOP1_TARGET:.2f})"
    )
    alone = len(grouped_cv(everything, args.folds, decided, resemble=False)[0])
    print(f"  the same without the resemblance tier: top-1 {alone / len(everything):.1%} ({alone} right)")
    for source in ("log", "thread"):
        cases = [c for c in public if label_source(c) == source]
        hit = sum(c["id"] in named for c in cases)
        kept = [c for c in cases if held_out(c)]
        print(
            f"  public logs labelled from {'their own lines' if source == 'log' else 'the thread'}: top-1 "
            f"{hit / len(cases):.1%} of {len(cases)} (held-out part {sum(c['id'] in named for c in kept)}/{len(kept)})"
        )
    old = [c for c in everything if era(c) == "1.x"]
    if old:
        corpus_urls = {c["source_url"] for c in everything}
        signatures = learnable_elsewhere({c["source_url"] for c in old}, corpus_urls, decided)
        newer = resemblance_of([c for c in everything if era(c) != "1.x"])
        result = evaluate(old, signatures=signatures, resemblance=newer)
        print(line("train on 2.x, test on 1.x (signatures only 1.x threads could teach removed)", result))


if __name__ == "__main__":
    main()
