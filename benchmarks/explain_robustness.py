"""Whether `tfgpu explain` still names a log's cause after the changes posting and copying make to it (issue 28).

    PYTHONPATH=src:benchmarks python benchmarks/explain_robustness.py [--only NAME ...] [--verbose]

A log reaches explain through a terminal, a mail client, a web page or a word processor, and each
changes its text without changing its cause: a console that copies its fixed width breaks every long
line at 80 or 120 columns (mid-word), a mail client or a forum wraps at a blank, a page copied as its
source escapes quotes as HTML entities, an editor turns straight quotes into typographic ones, a
reply quotes each line with "> ". For every such change, this script applies it to each corpus log
that explain names right as posted and reports the share it still names right: the development part
and the seed corpus (whose misses ``--verbose`` lists) and, as a figure only, the held-out quarter
(benchmarks/explain_generalisation.py), whose misses are never printed. The reference is 100%: the
change adds no information and takes none away.
"""

from __future__ import annotations

import argparse
import html
import re
import textwrap
from collections import Counter
from collections.abc import Callable

from explain_accuracy import DEFAULT_CORPUS, evaluate
from explain_generalisation import PUBLIC, held_out, load


def hard_wrap(width: int) -> Callable[[str], str]:
    """A console's copy: every line cut into pieces of ``width`` characters, mid-word, nothing dropped."""

    def wrap(text: str) -> str:
        return "\n".join(line[i : i + width] for line in text.splitlines() for i in range(0, max(len(line), 1), width))

    return wrap


def word_wrap(width: int) -> Callable[[str], str]:
    """A mail client's or a forum's wrap: lines broken at the last blank before ``width``, the blank dropped."""

    def wrap(text: str) -> str:
        return "\n".join(
            piece
            for line in text.splitlines()
            for piece in (textwrap.wrap(line, width, break_on_hyphens=False, drop_whitespace=True) or [""])
        )

    return wrap


def typographic_quotes(text: str) -> str:
    """An editor's "smart" quotes: 'x' as ‘x’ and every double quote as an opening one."""
    return re.sub(r"'([^'\n]*)'", "\u2018\\1\u2019", text).replace('"', "\u201c")


CHANGES: dict[str, Callable[[str], str]] = {
    "quoted reply ('> ' before each line)": lambda text: "\n".join("> " + line for line in text.splitlines()),
    "CRLF line ends": lambda text: text.replace("\n", "\r\n"),
    "HTML-escaped (a page's source)": lambda text: html.escape(text, quote=True),
    "typographic quotes": typographic_quotes,
    "console copy, 80 columns": hard_wrap(80),
    "console copy, 120 columns": hard_wrap(120),
    "wrapped at a blank, 80 columns": word_wrap(80),
    "wrapped at a blank, 120 columns": word_wrap(120),
    "timestamps removed": lambda text: re.sub(r"(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: ", "", text),
}


def lost_to(cases: list[dict], change: Callable[[str], str]) -> list[tuple[dict, dict]]:
    """The cases ``change`` makes explain name wrong, each with its row."""
    changed = [dict(case, log=change(case["log"])) for case in cases]
    rows = evaluate(changed)["rows"]
    return [(case, row) for case, row in zip(cases, rows, strict=True) if not row["ok"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", help="changes whose name starts with one of these words")
    parser.add_argument("--verbose", action="store_true", help="list the development part's losses")
    args = parser.parse_args()
    cases = load(DEFAULT_CORPUS) + load(PUBLIC)
    rows = evaluate(cases)["rows"]
    right = [case for case, row in zip(cases, rows, strict=True) if row["ok"]]
    held = [case for case in right if case["id"].startswith("pub") and held_out(case)]
    dev = [case for case in right if not (case["id"].startswith("pub") and held_out(case))]
    print(f"named right as posted: {len(dev)} development and seed logs, {len(held)} held out")
    for name, change in CHANGES.items():
        if args.only and not any(name.startswith(word) for word in args.only):
            continue
        lost_dev = lost_to(dev, change)
        lost_held = lost_to(held, change)
        print(
            f"{name:<40} development {100 * (1 - len(lost_dev) / len(dev)):5.1f}% ({len(lost_dev)} lost)   "
            f"held out {100 * (1 - len(lost_held) / len(held)):5.1f}% ({len(lost_held)} lost)"
        )
        if args.verbose:
            lost = Counter((case["category"], row["predicted"]) for case, row in lost_dev)
            print("    ", ", ".join(f"{c} as {p}: {n}" for (c, p), n in lost.most_common(6)))
            print("    ", " ".join(case["id"] for case, _ in lost_dev[:40]))


if __name__ == "__main__":
    main()
