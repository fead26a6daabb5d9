"""Every explain pattern stays linear on adversarial lines (issue 18: one was quadratic on whitespace)."""

from __future__ import annotations

import time

import pytest

from tfgpu.knowledge.signatures import MAX_LINE_CHARS, LogScanner, load_signatures

FILLERS = [" ", "\t", "a", ": ", "0", "-", ".", "/", "x ", "1.", "'", '"', "=", "_", "a ", "(", ")", ", ", "a/", "a."]
# A quadratic pattern took 91 ms on one 4 KiB line here; linear ones take well under 2 ms.
LIMIT_SECONDS = 0.02


def adversarial(keyword: str) -> list[str]:
    """The keyword a pattern needs, then a long run that tempts backtracking, ended where it cannot match."""
    lines = []
    for fill in FILLERS:
        run = fill * (MAX_LINE_CHARS // len(fill))
        lines += [
            keyword + run,
            keyword + run[: MAX_LINE_CHARS // 2] + "\x00",
            run[: MAX_LINE_CHARS // 2] + keyword + run,
        ]
    return [line[:MAX_LINE_CHARS] for line in lines]


@pytest.mark.parametrize("signature", load_signatures(), ids=lambda s: s.id)
def test_no_pattern_backtracks_on_an_adversarial_line(signature):
    for pattern, keys in zip(signature.patterns, signature.keywords, strict=True):
        for keyword, _ in keys:
            for line in adversarial(keyword):
                start = time.perf_counter()
                pattern.search(line)
                elapsed = time.perf_counter() - start
                assert elapsed < LIMIT_SECONDS, (pattern.pattern, line[:40], elapsed)


def test_the_issue_18_line_is_fast_through_the_scanner():
    line = "tf.test.is_built_with_cuda()" + " " * 10_000 + "!"
    scanner = LogScanner()
    start = time.perf_counter()
    for _ in range(200):
        scanner.feed(line)
    assert time.perf_counter() - start < 1.0
