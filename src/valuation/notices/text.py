"""What a notice may say, and its link (pure; docs/decisions/060-notices.md).

A notice says what happened and where to look; it never carries a wreck's position, an open round's values or
any amount — the page it links to shows those to whoever may read them. `check` refuses, with a ValueError (the
writer's mistake, never the user's: the act it tells of is not written either), a notice whose title or body
holds an amount (R$, US$, a pt-BR decimal such as 1.234,56) or a position (degrees and minutes, a latitude or
longitude), an unknown kind, a link that is not a page of the app, or text beyond its bounds. The person's own
data in a notice (a company's or a wreck's name) is text a user wrote: the inbox never renders it as Markdown.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from urllib.parse import parse_qsl

from valuation.notices.kinds import BY_CODE

MAX_KEY, MAX_TITLE, MAX_BODY, MAX_LINK = 300, 300, 2000, 240
_KEY = re.compile(r"^[A-Za-z0-9_.:/-]+$")
_LINK = re.compile(r"^([a-z][a-z0-9_]{0,39})(?:\?([A-Za-z0-9_.~%=&-]{1,200}))?$")
# what a notice never carries (module docstring)
_CONFIDENTIAL: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("an amount", re.compile(r"(?:R|US)\$|\bBRL\s*\d|\bUSD\s*\d|\d,\d")),
    ("a position", re.compile(r"\d\s*°\s*\d|\d\s*°\s*[NSEWLO]\b|\b(?:latitude|longitude)\b\s*:?\s*-?\d", re.I)),
)


def confidential(text: str) -> str | None:
    """What `text` would disclose ('an amount', 'a position'), or None."""
    for what, pattern in _CONFIDENTIAL:
        if pattern.search(text):
            return what
    return None


def _single_line(text: str) -> bool:
    return not any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in text)


def check(event_key: object, kind: object, title: object, body: object, link: object) -> None:
    """ValueError unless the notice may be written (module docstring)."""
    if not isinstance(event_key, str) or not 0 < len(event_key) <= MAX_KEY or not _KEY.match(event_key):
        raise ValueError(f"a notice's event key is 1 to {MAX_KEY} characters of [A-Za-z0-9_.:/-]: {event_key!r}")
    if not isinstance(kind, str) or kind not in BY_CODE:
        raise ValueError(f"unknown kind of notice: {kind!r}")
    if not isinstance(title, str) or not 0 < len(title.strip()) <= MAX_TITLE or not _single_line(title):
        raise ValueError(f"a notice's title is one line of 1 to {MAX_TITLE} characters")
    if not isinstance(body, str) or not 0 < len(body.strip()) <= MAX_BODY:
        raise ValueError(f"a notice's body is 1 to {MAX_BODY} characters")
    if not isinstance(link, str) or len(link) > MAX_LINK or not _LINK.match(link):
        raise ValueError(f"a notice links to a page of the app ('statements', 'commission?rodada=3'): {link!r}")
    for part in (title, body):
        what = confidential(part)
        if what is not None:
            raise ValueError(f"a notice never carries {what}: {part!r}")


def event_key(*parts: object) -> str:
    """An event's key from its parts ('deadline', 'monthly_report:A-1:2025-03', 'due_soon' →
    'deadline:monthly_report:A-1:2025-03:due_soon'); when a part holds a character a key does not (a contract code
    with a space) or the key would be too long, the parts after the first become their sha256 — the same parts,
    the same key."""
    head, rest = str(parts[0]), ":".join(str(p) for p in parts[1:])
    key = f"{head}:{rest}" if rest else head
    if len(key) <= MAX_KEY and _KEY.match(key):
        return key
    return f"{head}:sha256:{hashlib.sha256(rest.encode('utf-8')).hexdigest()}"


def parse_link(link: object) -> tuple[str, dict[str, str]] | None:
    """(page key, query) of a stored link, None when it is not one (a row written behind the application)."""
    if not isinstance(link, str):
        return None
    m = _LINK.match(link)
    if m is None:
        return None
    return m[1], dict(parse_qsl(m[2] or "", keep_blank_values=False))


def one_line(text: object, limit: int = 200) -> str:
    """A name for a notice's title: its control and separator characters as spaces, at most `limit` characters."""
    flat = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in str(text))
    flat = " ".join(flat.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
