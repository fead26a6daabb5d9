"""Personal and secret data out of a report that is meant to be pasted in public (``doctor --markdown``).

Removed: the user name (this machine's, and any a home directory in the text names, so a report
replayed with ``--from`` loses its own machine's user too), the host name and its first label,
home directories (also outside /home: the caller passes this machine's), GPU and MIG UUIDs,
credentials in any URL (parsed: a password may hold ``/`` or ``:``), secret-looking query
parameters, and well-known token shapes. Every pattern is bounded, so the time is linear in the
text: the old URL pattern took 14.7 s on a 128 kB run of letters (issue 25).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSW|KEY|AUTH|CREDENTIAL|COOKIE|SESSION|SIG", re.I)
_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
_TOKEN_SHAPES = re.compile(
    r"\b(ghp_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255}|hf_[A-Za-z0-9]{20,255}|AKIA[0-9A-Z]{16}|"
    r"sk-[A-Za-z0-9_-]{20,255}|xox[abprs]-[A-Za-z0-9-]{10,255}|"
    r"eyJ[A-Za-z0-9_-]{20,4096}\.[A-Za-z0-9_-]{1,4096}\.[A-Za-z0-9_-]{1,4096})(?![A-Za-z0-9_-])"
)
MAX_URL_CHARS = 4096
_URL = re.compile(rf"([A-Za-z][A-Za-z0-9+.-]{{0,31}}://)([^\s'\"<>`]{{1,{MAX_URL_CHARS}}})")
_QUERY = re.compile(r"([?&;])([A-Za-z0-9_.\-\[\]]{1,64})=([^&\s'\"#<>`]{1,4096})")
_HOME = re.compile(r"(/home/|/Users/|C:\\\\Users\\\\|C:\\Users\\)([^/\\\s\"'<>`]{1,256})")
MIN_NAME_CHARS = 2


@dataclass(frozen=True)
class Redactions:
    """Identifying strings of this machine, gathered by the caller (the report never collects)."""

    user: str | None = None
    host: str | None = None
    home: str | None = None
    others: tuple[str, ...] = ()
    """More user names to remove: those the home directories of the whole report give away."""


def _credentials(match: re.Match[str]) -> str:
    """``scheme://user:pass@host/...`` → ``scheme://<credentials>@host/...``: everything before the last ``@``."""
    scheme, rest = match.group(1), match.group(2)
    at = rest.rfind("@")
    return f"{scheme}<credentials>@{rest[at + 1 :]}" if at > 0 else match.group(0)


def _query(match: re.Match[str]) -> str:
    separator, name, _ = match.groups()
    return f"{separator}{name}=<redacted>" if SECRET_NAME.search(name) else match.group(0)


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", re.I)


def home_users(text: str) -> set[str]:
    """The user names the home directories in ``text`` give away (``/home/bob/...`` → bob).

    Examples:
        >>> sorted(home_users("/home/bob/venv and /Users/Eve/x"))
        ['Eve', 'bob']
    """
    return {m.group(2) for m in _HOME.finditer(text)}


def redact(text: str, redactions: Redactions) -> str:
    """Remove personal and secret data from any text, in time linear in its length.

    Examples:
        >>> redact("/home/ada/x on ada-laptop GPU-12345678-1234-1234-1234-123456789abc", Redactions("ada", "ada-laptop"))
        '/home/<user>/x on <host> GPU-<uuid>'
        >>> redact("https://u:p/q@data.example/x?token=abc&page=2 and /srv/node7/data", Redactions(None, "node7.cluster.local"))
        'https://<credentials>@data.example/x?token=<redacted>&page=2 and /srv/<host>/data'
    """
    users = home_users(text)
    out = _UUID.sub(lambda m: f"{m.group(1)}-<uuid>", text)
    out = _TOKEN_SHAPES.sub("<token>", out)
    out = _URL.sub(_credentials, out)
    out = _QUERY.sub(_query, out)
    if redactions.home and redactions.home not in ("/", "") and len(redactions.home) > 1:
        out = out.replace(redactions.home.rstrip("/"), "<home>")
    out = _HOME.sub(lambda m: f"{m.group(1)}<user>", out)
    if redactions.host and len(redactions.host) >= MIN_NAME_CHARS:
        out = re.sub(re.escape(redactions.host), "<host>", out, flags=re.I)
        short = redactions.host.split(".", 1)[0]
        if short != redactions.host and len(short) >= MIN_NAME_CHARS:
            out = _word(short).sub("<host>", out)
    for user in _names((*users, *redactions.others), redactions.user):
        out = _word(user).sub("<user>", out)
    return out


def _names(found: Iterable[str], user: str | None) -> list[str]:
    """The user names to remove, longest first (so ``alice`` goes before a user ``al``)."""
    names = {n for n in (*found, user or "") if len(n) >= MIN_NAME_CHARS and n not in ("<user>",)}
    return sorted(names, key=len, reverse=True)
