"""No explain pattern backtracks without end on adversarial lines (issue 18: one was quadratic on whitespace).

A catastrophic pattern never finishes such a line; the per-test timeouts catch it without timing
anything on this machine. The rate on real and adversarial logs, where a quadratic pattern shows,
is benchmarks/explain_throughput.py's figure.
"""

from __future__ import annotations

import pytest

from tfgpu.knowledge.scanner import MAX_LINE_CHARS, LogScanner
from tfgpu.knowledge.signatures import load_signatures

FILLERS = [" ", "\t", "a", ": ", "0", "-", ".", "/", "x ", "1.", "'", '"', "=", "_", "a ", "(", ")", ", ", "a/", "a."]


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


@pytest.mark.timeout(60)  # a linear pattern scans these lines in well under a second
@pytest.mark.parametrize("signature", load_signatures(), ids=lambda s: s.id)
def test_no_pattern_backtracks_on_an_adversarial_line(signature):
    searched = 0
    for pattern, keys in zip(signature.patterns, signature.keywords, strict=True):
        for keyword, _ in keys:
            for line in adversarial(keyword):
                pattern.search(line)
                searched += 1
    assert searched >= len(signature.patterns) * len(FILLERS)


@pytest.mark.timeout(60)  # 200 such lines take milliseconds; issue 18's pattern took 91 ms on each 4 KiB one
def test_the_issue_18_line_goes_through_the_scanner():
    line = "tf.test.is_built_with_cuda()" + " " * 10_000 + "!"
    scanner = LogScanner()
    for _ in range(200):
        scanner.feed(line)
    assert scanner.result().lines == 200
