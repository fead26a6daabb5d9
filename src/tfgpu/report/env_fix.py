"""``tfgpu env`` and ``doctor --fix-env``: the environment lines as a shell reads them.

The lines are built shell-quoted (``knowledge/fixes.py``); what is said beside them is a comment,
kept on one line so that text from the machine cannot end the comment and run as a command.
"""

from __future__ import annotations

from tfgpu.model.facts import EnvFix
from tfgpu.report.sanitize import printable

FIX_ENV_HEADER = "# written by tfgpu doctor --fix-env: source it before starting TensorFlow\n"


def one_line(text: str) -> str:
    """``text`` escaped and on one line (a comment or a message a newline must not break)."""
    return printable(text).replace("\n", " ")


def fix_lines(fix: EnvFix) -> str:
    """The lines to ``eval`` or ``source``, one per line; empty when none is needed or none can help."""
    return "".join(line + "\n" for line in fix.lines)


def fix_script(fix: EnvFix) -> str:
    """``doctor --fix-env``'s output: the lines, or a comment that says why there are none."""
    return fix_lines(fix) or f"# nothing to change: {one_line(fix.nothing_to_fix)}\n"


def fix_file(fix: EnvFix) -> str:
    """The file ``doctor --fix-env --write FILE`` creates: a header that says what it is, then the lines."""
    return FIX_ENV_HEADER + fix_lines(fix)


def fix_notes(fix: EnvFix) -> list[str]:
    """What ``tfgpu env`` says on stderr beside its lines: why there are none, and what they leave undone."""
    nothing = [f"nothing to change: {one_line(fix.nothing_to_fix)}"] if not fix.lines else []
    return nothing + [f"also, {one_line(note)}" for note in fix.notes]
