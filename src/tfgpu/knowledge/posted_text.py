"""What posting and copying do to a log's text, undone before it is matched.

A log reaches explain through a terminal, a mail client, a web page or an editor, and each changes
its characters without changing its cause. A console copies the lines it shows at its width, so every
long record comes out in pieces of that many characters, cut mid-word; a mail client or a forum wraps
at the last blank before its width; a page copied as its source writes quotes and brackets as HTML
character references (``&#39;libcudart.so.11.0&#39;``); an editor turns TF's straight quotes into
typographic ones. The signatures are written as TF prints, so the scanner reads each line in TF's
characters (``plain``) and each block with its wrapped records whole again (``unwrapped``).
``benchmarks/explain_robustness.py`` measures both on the corpus.
"""

from __future__ import annotations

import html
import re

from tfgpu.knowledge.log_facts import LOG_RECORD, fold_digits

WRAPPED_CHARS = 60
"""The shortest line a wrap may have cut: terminals and posts wrap at 80 columns or more, less a timestamp's indent."""
WRAPS_SEEN = 2
"""Breaks a block must show before it is read as wrapped, each after a line of its own (lines that differ only in
their numbers are one): a log as TF wrote it may end its longest line at the width (a poster's sentence after it),
or print one message of that length many times (TF's NUMA warning, an OOM per allocation); a wrapped log breaks
each of its long lines."""
LONGEST_WORD = 64
"""The longest first word a piece wrapped at a blank is looked for with: a source path and line after a
timestamp's break ("tensorflow/stream_executor/platform/default/dso_loader.cc:64]", 61 characters) fits."""
ENDING_CHARS = 32
"""How much of a line's end tells it from another line of the block (a piece of a wrapped record ends mid-message)."""
_TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'})
"""Typographic quotes as the straight ones TF prints ("Could not load dynamic library ‘libcudart.so.11.0’")."""
_TYPOGRAPHIC_QUOTE = re.compile("[\u2018\u2019\u201a\u201c\u201d\u201e]")
"""One of them: a Keras 3 log's progress bars ("━━━") are not ASCII either, and hold none."""
_REFERENCE = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]{2,8});")
"""An HTML character reference, named or numeric: the way a page's source writes a quote or a bracket."""
_TABLE_EDGES = frozenset("|+=_-\u2502\u2503\u250f\u2517\u2521\u2514\u250c\u251c\u255e\u2550\u2500\u2501\u2554\u255a")
"""First characters of a table's lines (nvidia-smi's boxes, Keras's model summary): rows of one width that no wrap cut."""


def plain(line: str) -> str:
    """``line`` in the characters TF printed: straight quotes, and HTML's character references as their characters.

    Examples:
        >>> plain("Could not load dynamic library &#39;libcudart.so.11.0&#39;; dlerror")
        "Could not load dynamic library 'libcudart.so.11.0'; dlerror"
        >>> plain("Could not load dynamic library \u2018cudnn64_8.dll\u2019")
        "Could not load dynamic library 'cudnn64_8.dll'"
        >>> plain("AT&T; R&D")
        'AT&T; R&D'
    """
    if not line.isascii() and _TYPOGRAPHIC_QUOTE.search(line):
        line = line.translate(_TYPOGRAPHIC)
    if "&" in line and _REFERENCE.search(line):
        line = html.unescape(line)
        if "\n" in line or "\r" in line:
            line = line.replace("\r", " ").replace("\n", " ")  # "&#10;" is a line end in the page, a blank here
    return line


def starts_record(line: str) -> bool:
    """Whether the line starts a TensorFlow log record (a string test first: most lines start none)."""
    text = line.lstrip() if line[:1].isspace() else line  # most lines start unindented: no copy
    head, second = text[:1], text[1:2]
    if not head or not (head.isdigit() or (head in "IWEF" and (second.isdigit() or second == " "))):
        return False  # "Epoch 3/10", '  File "…"', program output: no record starts so
    return LOG_RECORD.match(line) is not None


def unwrapped(lines: list[tuple[int, str]], width: int) -> list[tuple[int, str]]:
    """The block's lines with each line a wrap cut into pieces whole again, numbered as its first piece.

    ``width`` is the block's longest line: the width it was wrapped at, if it was. A console's copy leaves pieces of
    exactly that width, more such breaks than breaks shorter lines show, and they join as they were cut
    (no blank between), but for a piece one character short: a terminal copies a line without its
    trailing blanks (tmux's ``capture-pane`` does), so the piece cut after a blank lost it. A wrap at a blank leaves each piece too short to take the next piece's first
    word within the width, and the blank goes back between them. Neither joins a piece to a line that
    starts a TF record, to an indented line after a wrap at a blank (a traceback's next frame), or to
    the row of a table, and a block is read as wrapped only where it shows ``WRAPS_SEEN`` such breaks.
    The list itself comes back when the block was not wrapped (a log as TF wrote it, most of them).

    Examples:
        >>> line = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
        ...         "'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file")
        >>> console_copy = [(n + 1, line[i : i + 80]) for n, i in enumerate(range(0, len(line), 80))]
        >>> len(console_copy), unwrapped(console_copy, 80) == [(1, line)]
        (3, True)
        >>> lines = [(1, "short"), (2, "lines")]
        >>> unwrapped(lines, 5) is lines
        True
    """
    if width < WRAPPED_CHARS:
        return lines
    texts = [text for _, text in lines]
    lengths = list(map(len, texts))
    following = texts[1:]
    at_width = [(texts[i], following[i]) for i in _positions(lengths[:-1], width)]
    shortest = width - LONGEST_WORD  # a line shorter than this left more room than the next piece's first word needs
    shorter = [
        (texts[i], following[i])
        for i, length in enumerate(lengths[:-1])
        if shortest <= length < width and following[i].find(" ", 0, width - length) == -1
    ]
    cut, at_blanks = _breaks(at_width, width, True), _breaks(shorter, width, False)
    if max(len(cut), len(at_blanks)) < WRAPS_SEEN:
        return lines
    console = len(cut) >= WRAPS_SEEN and len(cut) > len(at_blanks)
    joined: list[tuple[int, str]] = []
    before = ""
    for number, text in lines:
        if joined and _goes_on(before, text, width, console):
            first, head = joined[-1]
            joined[-1] = (first, head + text if console and len(before) == width else head + " " + text)
        else:
            joined.append((number, text))
        before = text
    return joined


def broke_off(before: str, text: str, width: int) -> bool:
    """Whether a wrap at ``width`` may have broken ``text`` off the line ``before`` (a single break ``unwrapped`` leaves).

    ``before`` fills the width (a console's cut), or the first word of ``text`` would not have fitted
    after it (a wrap at a blank); a block narrower than ``WRAPPED_CHARS`` was not wrapped. The scanner tries such a pair joined only where ``before`` matched
    nothing, and keeps the join only where the whole says what its pieces did not.

    Examples:
        >>> cut = "tensorflow/stream_executor/cuda/cuda_driver.cc:318] failed call to cuInit: CUDA_"
        >>> broke_off(cut, "ERROR_UNKNOWN: unknown error", len(cut))
        True
        >>> broke_off("Tensorflow pypi wheel for Linux has outdated TensorRT dependency", "I have the same issue", 90)
        False
    """
    return width >= WRAPPED_CHARS and bool(before) and _goes_on(before, text, width, len(before) == width)


def _breaks(pairs: list[tuple[str, str]], width: int, console: bool) -> set[str]:
    """The lines after which a wrap broke the next piece off, of pairs that may show one, each by its ending.

    A line is told by its last ``ENDING_CHARS`` with digits folded: lines that differ only in their
    numbers are one message printed again, and fewer than ``WRAPS_SEEN`` of those are not looked at
    further (a training log repeats its longest record, a step line of one format, hundreds of times
    a block, and holds no break).
    """
    if (
        len({a[-ENDING_CHARS:] for a, _ in pairs}) < WRAPS_SEEN
        or len({fold_digits(a[-ENDING_CHARS:]) for a, _ in pairs}) < WRAPS_SEEN
    ):
        return set()  # the endings as written first: a repeated record's are mostly the same, and no digit is folded
    return {fold_digits(a[-ENDING_CHARS:]) for a, b in pairs if _goes_on(a, b, width, console)}


def _positions(values: list[int], value: int) -> list[int]:
    """Where ``value`` is in ``values`` (none where it is there fewer than ``WRAPS_SEEN`` times), found by ``list.index``."""
    count = values.count(value)
    if count < WRAPS_SEEN:
        return []
    found = [values.index(value)]
    for _ in range(count - 1):
        found.append(values.index(value, found[-1] + 1))
    return found


def _goes_on(before: str, text: str, width: int, console: bool) -> bool:
    """Whether ``text`` is the rest of the line ``before`` is a piece of, in a block wrapped at ``width``."""
    if console:
        # a piece a console cut at a blank is one short: the terminal copies it without its trailing blank
        if not (len(before) == width or (len(before) == width - 1 and text[:1].strip())):
            return False
    elif (
        not text
        or len(text) <= (room := width - len(before) - 1)  # the next word fits where the line ends: no wrap broke it
        or text.find(" ", 0, room + 1) != -1
        or text[0].isspace()
        or not before.strip()
    ):
        return False
    return bool(text) and before[:1] not in _TABLE_EDGES and not before.endswith("  ") and not starts_record(text)
