"""iCalendar (RFC 5545) feeds of all-day events: deadlines a calendar app can subscribe to.

    to_ics([CalendarEvent("prazo-17@valuation", date(2025, 3, 31),
                          "Relatório mensal — contrato 12/2024", "Entregar à DPC.")],
           calendar_name="Prazos DPC")

Each event is one all-day VEVENT (DTSTART;VALUE=DATE, DTEND the next day,
RFC 5545 §3.6.1) with UID and DTSTAMP, shown as free time (TRANSP:TRANSPARENT).
TEXT values are escaped (§3.3.11: backslash, ``;``, ``,`` and newlines), content
lines are folded so that none exceeds 75 octets (§3.1, never inside a UTF-8
character) and every line ends in CRLF.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, NamedTuple
from urllib.parse import quote

from valuation.core import clock
from valuation.exports._values import clean_text

_LINE_OCTETS = 75  # RFC 5545 §3.1: lines SHOULD NOT be longer than 75 octets
# Characters a URI may carry as they are (RFC 3986 reserved + unreserved + '%');
# anything else (spaces, CR/LF, non-ASCII) is percent-encoded.
_URI_SAFE = ":/?#[]@!$&'()*+,;=%~-._"


class CalendarEvent(NamedTuple):
    """One all-day event; a plain tuple ``(uid, date, summary, description, url)`` works too.

    ``uid`` must be unique and stable for the same deadline across exports (so
    calendar apps update rather than duplicate it), e.g. ``"prazo-17@valuation"``.
    """

    uid: str
    date: date
    summary: str
    description: str = ""
    url: str | None = None


def escape_text(value: str) -> str:
    """RFC 5545 §3.3.11 TEXT: ``\\`` -> ``\\\\``, ``;`` -> ``\\;``, ``,`` -> ``\\,``, newline -> ``\\n``.

    Control characters other than line breaks are dropped (TEXT may not hold them).
    """
    text = clean_text(value)
    return (
        text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")
    )


def fold_line(line: str) -> str:
    """Fold one content line (§3.1): pieces of at most 75 octets joined by CRLF + space.

    A continuation's leading space counts toward its 75 octets; a multi-byte
    UTF-8 character is never split.
    """
    pieces: list[str] = []
    current, size = "", 0
    for ch in line:
        octets = len(ch.encode("utf-8"))
        if size + octets > _LINE_OCTETS:
            pieces.append(current)
            current, size = " ", 1
        current += ch
        size += octets
    pieces.append(current)
    return "\r\n".join(pieces)


def to_ics(
    events: Iterable[CalendarEvent | tuple[object, ...]],
    *,
    calendar_name: str,
    prodid: str = "-//DPC//valuation//PT-BR",
    dtstamp: datetime | None = None,
    alarm_days: Sequence[int] = (),
) -> bytes:
    """A VCALENDAR with one all-day VEVENT per event, UTF-8, CRLF line endings.

    ``dtstamp`` (timezone-aware; default: now) is when the feed was produced; it
    is written in UTC. A ``datetime`` given as an event date counts as its date.
    ``alarm_days`` adds to every event one VALARM (ACTION:DISPLAY, §3.6.6) per number of
    days before it (0: at the start of the day).
    Raises ValueError for an empty or repeated UID, a naive ``dtstamp``, or an
    event with the wrong number of fields.
    """
    stamp = clock.now_utc() if dtstamp is None else dtstamp
    if stamp.tzinfo is None or stamp.utcoffset() is None:
        raise ValueError("dtstamp must be timezone-aware")
    stamp_text = stamp.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{escape_text(prodid)}",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"NAME:{escape_text(calendar_name)}",  # RFC 7986
        f"X-WR-CALNAME:{escape_text(calendar_name)}",  # the name most apps read
    ]
    seen: set[str] = set()
    for n, raw in enumerate(events):
        event = _as_event(raw, n)
        uid = clean_text(event.uid, multiline=False).strip()
        if not uid:
            raise ValueError(f"event {n}: empty uid")
        if uid in seen:
            raise ValueError(f"event {n}: repeated uid {uid!r}")
        seen.add(uid)
        day = event.date.date() if isinstance(event.date, datetime) else event.date
        if not isinstance(day, date):
            raise ValueError(f"event {n}: date must be a date, not {type(day).__name__}")
        lines += [
            "BEGIN:VEVENT",
            f"UID:{escape_text(uid)}",
            f"DTSTAMP:{stamp_text}",
            f"DTSTART;VALUE=DATE:{day:%Y%m%d}",
            f"DTEND;VALUE=DATE:{day + timedelta(days=1):%Y%m%d}",
            f"SUMMARY:{escape_text(event.summary)}",
        ]
        if event.description:
            lines.append(f"DESCRIPTION:{escape_text(event.description)}")
        if event.url:
            lines.append(f"URL:{quote(clean_text(event.url, multiline=False).strip(), safe=_URI_SAFE)}")
        lines.append("TRANSP:TRANSPARENT")
        lines += _alarms(alarm_days, event.summary)
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    return ("\r\n".join(fold_line(line) for line in lines) + "\r\n").encode("utf-8")


def _as_event(raw: CalendarEvent | tuple[Any, ...], n: int) -> CalendarEvent:
    if isinstance(raw, CalendarEvent):
        return raw
    if not 3 <= len(raw) <= 5:
        raise ValueError(f"event {n}: expected (uid, date, summary, description, url=None)")
    return CalendarEvent(*raw)


def _alarms(days: Sequence[int], summary: str) -> list[str]:
    lines: list[str] = []
    for n in sorted({int(d) for d in days if isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= 366},
                    reverse=True):
        trigger = "PT0S" if n == 0 else f"-P{n}D"
        when = "hoje" if n == 0 else ("amanhã" if n == 1 else f"em {n} dias")
        lines += ["BEGIN:VALARM", "ACTION:DISPLAY", f"TRIGGER:{trigger}",
                  f"DESCRIPTION:{escape_text(f'Prazo {when}: {summary}')}", "END:VALARM"]
    return lines
