"""What posting and copying do to a log: HTML escapes, typographic quotes and wrapped lines are read as TF wrote them."""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tfgpu.knowledge.posted_text import WRAPPED_CHARS, plain, unwrapped
from tfgpu.knowledge.scanner import LogScanner

ROOT = Path(__file__).parents[3]
GPU_FAULTS = ROOT / "tests" / "fixtures" / "tf_logs" / "gpu-faults"
sys.path.insert(0, str(ROOT / "benchmarks"))
from explain_robustness import CHANGES, hard_wrap, word_wrap  # noqa: E402

RECORDED = ["cudnn-wheel-missing", "oom-tensor", "growth-after-init", "ptxas-old-on-path", "libdevice-missing"]
"""Logs of real faults TF 2.21 printed on the lent H100 (benchmarks/corpus/gpu-faults.json), each with long records."""


def unwrap(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``unwrapped`` at the lines' own width, as the scanner calls it on a block."""
    return unwrapped(lines, max(len(text) for _, text in lines))


def hits(text: str) -> list[str]:
    scanner = LogScanner()
    for line in text.splitlines():
        scanner.feed(line)
    return [hit.signature.id for hit in scanner.result().hits]


POSTED = [
    "quoted reply ('> ' before each line)",
    "HTML-escaped (a page's source)",
    "typographic quotes",
    "console copy, 80 columns",
    "console copy, 120 columns",
    "wrapped at a blank, 80 columns",
    "wrapped at a blank, 120 columns",
]


def _changed_logs() -> list[tuple[str, str]]:
    """Each recorded log with each change that changes its text (a log without quotes has none to make typographic)."""
    logs = {name: (GPU_FAULTS / f"{name}.log").read_text() for name in RECORDED}
    return [(name, change) for name in RECORDED for change in POSTED if CHANGES[change](logs[name]) != logs[name]]


@pytest.mark.parametrize(("name", "change"), _changed_logs())
def test_a_recorded_log_posted_or_copied_is_explained_as_tf_printed_it(name, change):
    log = (GPU_FAULTS / f"{name}.log").read_text()
    assert hits(CHANGES[change](log)) == hits(log)


@pytest.mark.parametrize("copy", ["no-gpu-kernel-80", "cudnn-wheel-missing-80", "oom-tensor-120"])
def test_a_log_a_real_terminal_copied_is_explained_as_tf_printed_it(copy):
    """Copies tmux made of recorded logs (scripts/console_copy.sh): cut at the pane's width, trailing blanks dropped."""
    name, _, width = copy.rpartition("-")
    copied = (ROOT / "tests" / "fixtures" / "tf_logs" / "console-copies" / f"{copy}.txt").read_text()
    assert max(len(line) for line in copied.splitlines()) == int(width)
    assert hits(copied) == hits((GPU_FAULTS / f"{name}.log").read_text())


def test_a_console_copy_is_joined_without_a_blank_and_a_wrap_at_a_blank_with_one():
    record = (
        "2024-02-25 18:52:47.991396: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
        "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file"
    )
    second = (
        "2024-02-25 18:52:49.112233: I tensorflow/core/common_runtime/gpu/gpu_device.cc:2020] Created device "
        "/job:localhost/replica:0/task:0/device:GPU:0 with 78752 MB memory: -> device: 0, name: NVIDIA H100 80GB HBM3"
    )
    for change, width in ((hard_wrap, 80), (word_wrap, 80), (hard_wrap, 120), (word_wrap, 100)):
        pieces = change(width)(f"{record}\n{second}").splitlines()
        assert len(pieces) > 2
        second_at = len(change(width)(record).splitlines()) + 1
        assert unwrap(list(enumerate(pieces, 1))) == [(1, record), (second_at, second)]


def test_a_table_of_one_width_and_a_log_as_tf_wrote_it_are_left_as_they_are():
    smi = json.loads((ROOT / "tests" / "fixtures" / "commands" / "h200.json").read_text())["nvidia-smi"]["stdout"]
    table = list(enumerate(smi.splitlines(), 1))
    assert unwrap(table) is table  # nvidia-smi's rows share a width and no wrap cut them
    log = list(enumerate((GPU_FAULTS / "oom-tensor.log").read_text().splitlines(), 1))
    assert unwrap(log) is log


def test_a_mail_s_quote_marks_go_from_every_line_even_where_the_quote_opens_with_the_poster_s_words():
    post = ["AttributeError: module 'tensorflow' has no attribute 'keras'", "Traceback (most recent call last):"]
    assert hits("\n".join("> " + line for line in post)) == hits("\n".join(post)) == ["keras-version-mismatch"]
    assert hits("\n".join("> > " + line for line in post)) == ["keras-version-mismatch"]  # a reply to the reply


def test_a_record_a_wrap_broke_once_is_read_whole_and_a_title_above_a_quoted_message_is_not_joined_to_it():
    broken = [
        "tensorflow/stream_executor/cuda/cuda_driver.cc:318] failed call to cuInit: CUDA_",
        "ERROR_UNKNOWN: unknown error",
    ]
    assert hits("\n".join(broken)) == hits("".join(broken)) == ["cuinit-unknown-error", "cuinit-failed"]
    post = [
        "Tensorflow pypi wheel for Linux has outdated TensorRT dependency",  # shorter than the width: no wrap cut it
        "I have the same issue: Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7",
    ]
    assert hits("\n".join(post)) == ["tensorrt-missing-said", "benign-tensorrt-dlopen"]  # the title read as said


def test_one_long_line_broken_once_is_not_read_as_a_wrapped_block():
    """A poster's sentence after TF's longest line ends that line at the width: not a wrap, one break alone."""
    lines = [(1, "x" * 90), (2, "I tried reinstalling CUDA")]
    assert unwrap(lines) is lines


def test_an_html_escaped_or_typographically_quoted_message_reads_as_tf_printed_it():
    line = "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
    assert plain(html.escape(line)) == line
    assert plain(line.replace("'cudart64_110.dll'", "\u2018cudart64_110.dll\u2019")) == line
    assert plain("a &#10; b") == "a   b"  # a line end a page wrote as a reference is a blank, not a new line
    # an escape sequence a page wrote as references is taken out as one TF's colour codes are
    assert hits(
        "&#27;[31mE tensorflow/core/common_runtime/gpu/gpu_device.cc:1] Ignoring visible gpu device (device: 0, name: Quadro K2000M, pci bus id: 0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. The minimum required Cuda capability is 3.5.&#27;[0m"
    ) == ["compute-capability-too-low"]


@given(st.lists(st.text(alphabet="abc de/:", min_size=0, max_size=140), min_size=1, max_size=12))
def test_unwrapping_keeps_every_character_and_each_line_s_first_number(texts):
    lines = list(enumerate(texts, 1))
    joined = unwrap(lines)
    numbers = [number for number, _ in joined]
    assert numbers[0] == 1 and numbers == sorted(numbers)
    if joined is lines:
        return
    for (number, text), following in zip(joined, [*numbers[1:], len(texts) + 1], strict=True):
        pieces = texts[number - 1 : following - 1]
        assert text in ("".join(pieces), " ".join(pieces))
    assert max(len(t) for t in texts) >= WRAPPED_CHARS
