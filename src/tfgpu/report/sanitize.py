r"""Make text from the machine, a saved report or a log safe to put on a terminal.

A GPU name, a driver string, a path, an environment value or a log line can carry escape
sequences (set the window title, clear the screen, forge an OSC 8 link, rewrite the line with
``\r``) or bidirectional overrides that show text in another order than it runs. Renderers
pass every such string through ``printable`` where it enters the output (``report.text.styled`` and
``add_cells`` for rich): control characters are shown as ``\xNN`` escapes, never sent.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, zero-width and bidi-override code points.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    r"""``text`` with every control character shown as an escape instead of acting on the terminal.

    Examples:
        >>> printable("H200\x1b]0;owned\x07 ok\r")
        'H200\\x1b]0;owned\\x07 ok\\x0d'
        >>> printable("line one\n\tline two")
        'line one\n\tline two'
    """
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text
