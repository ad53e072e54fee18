"""The clock's one definition (issue 14, item 5).

- `now_utc()` is THE clock: an aware UTC instant. Every "now" of the application comes from it
  (the Store's default clock, the pages, the service, the jobs), never from `datetime.now()`,
  whose naive local time silently disagrees with the store under a non-UTC `TZ`.
- Stored instants are UTC. DuckDB's TIMESTAMP columns hold them without a zone; `stored(at)`
  gives that form of an aware instant, `aware(at)` reads a stored one back. The Store pins
  its connection's TimeZone to UTC, so `current_timestamp` defaults and aware parameters are
  UTC whatever the process's TZ is.
- Functions that take a caller's `now` (login, sessions) accept only aware instants (`utc(at)`
  raises TypeError on a naive one): a local wall-clock time can no longer pass for UTC.
- People read the office's time (`VALUATION_TZ`, default America/Sao_Paulo — Brasília time, which
  federal offices keep): `brasilia` converts a stored instant to that wall-clock time, `moment_text`
  is THE way a stored instant becomes text a person reads (pages through `ui.fmt.moment_br`,
  documents through `exports.brasilia_text`), `zone_label` names the zone where a time could be
  doubted; `utc_bounds` turns the office's calendar days into the UTC instants a query filters on,
  `today_brasilia` is the calendar day of the offices now.
- A naive datetime is always a stored UTC instant; the office's wall-clock time is never handed on
  as a naive datetime to be formatted (it would be converted a second time, three hours early —
  issue 23): `local` gives it aware, and `moment_text` of an aware instant converts it exactly once.
"""
from __future__ import annotations

import os
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from typing import overload
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from valuation.core.money import format_datetime_br

BRASILIA = "America/Sao_Paulo"
ZONE_VARIABLE = "VALUATION_TZ"
UTC = UTC


def now_utc() -> datetime:
    """The current instant, aware, in UTC: the application's one clock."""
    return datetime.now(UTC)


def utc(at: datetime) -> datetime:
    """An aware instant in UTC. A naive datetime is refused (TypeError): it could be local time."""
    if not isinstance(at, datetime):
        raise TypeError(f"an instant must be a datetime, not {type(at).__name__}")
    if at.tzinfo is None or at.utcoffset() is None:
        raise TypeError("naive datetime: pass an aware instant (valuation.core.clock.now_utc())")
    return at.astimezone(UTC)


def stored(at: datetime) -> datetime:
    """The stored (zone-less UTC) form of an aware instant, for a TIMESTAMP column or parameter."""
    return utc(at).replace(tzinfo=None)


def aware(at: datetime | None) -> datetime | None:
    """A stored (zone-less UTC) timestamp as an aware UTC instant; an aware one is converted to UTC."""
    if at is None:
        return None
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


@lru_cache(maxsize=8)
def _zone(key: str) -> tzinfo:
    try:
        return ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError):
        if key != BRASILIA:      # an unknown VALUATION_TZ (the service refuses it at start): Brasília
            return _zone(BRASILIA)
        return timezone(timedelta(hours=-3))  # no tz database: Brasília has had no daylight saving time since 2019


def zone_key() -> str:
    """The office's time zone: `VALUATION_TZ`, default America/Sao_Paulo."""
    return os.environ.get(ZONE_VARIABLE, "").strip() or BRASILIA


def office_zone() -> tzinfo:
    """The office's time zone as a tzinfo (`zone_key`); Brasília when the name is unknown."""
    return _zone(zone_key())


def zone_label() -> str:
    """How a text names the zone of its times: 'horário de Brasília' (America/Sao_Paulo), else
    'fuso America/Manaus'."""
    key = getattr(office_zone(), "key", BRASILIA)     # the zone in use (an unknown name falls back to Brasília)
    return "horário de Brasília" if key == BRASILIA else f"fuso {key}"


def local(at: datetime | None) -> datetime | None:
    """A stored (zone-less UTC) or aware instant in the office's zone, aware (so that formatting it
    again cannot shift it a second time)."""
    moment = aware(at)
    return None if moment is None else moment.astimezone(office_zone())


def moment_text(at: datetime, *, zone: bool = False, seconds: bool = False) -> str:
    """THE text of an instant a person reads: 'dd/mm/aaaa hh:mm' in the office's zone, from a stored
    (zone-less UTC) or aware instant; `zone` appends ' (horário de Brasília)'."""
    moment = local(at)
    assert moment is not None
    text = format_datetime_br(moment, seconds=seconds)
    return f"{text} ({zone_label()})" if zone else text


@overload
def brasilia(at: datetime) -> datetime: ...
@overload
def brasilia(at: None) -> None: ...
def brasilia(at: datetime | None) -> datetime | None:
    """A stored (zone-less UTC) or aware instant as the office's naive wall-clock time (for a document's
    cell or a file name; for text a person reads use `moment_text`, which never converts twice)."""
    if at is None:
        return None
    moment = aware(at)
    assert moment is not None
    return moment.astimezone(office_zone()).replace(tzinfo=None)


def today_brasilia(at: datetime | None = None) -> date:
    """The calendar day in Brasília at `at` (default: now)."""
    moment = brasilia(at if at is not None else now_utc())
    assert moment is not None
    return moment.date()


def day_sql(column: str) -> str:
    """SQL for the office's calendar day of a stored (zone-less UTC) TIMESTAMP expression — never `CAST(x AS
    DATE)`, which gives the UTC day: an act of 23:30 in Brasília is 02:30 UTC the next day, and a period counted
    from it would start a day late. DuckDB's built-in ICU holds the zone rules (daylight saving before 2019)."""
    key = getattr(office_zone(), "key", BRASILIA)
    if not all(ch.isalnum() or ch in "/_+-" for ch in key):     # a zone name is never quoted SQL
        key = BRASILIA
    return f"CAST(timezone('{key}', timezone('UTC', {column})) AS DATE)"


def utc_bounds(start: date | None, end: date | None) -> tuple[datetime | None, datetime | None]:
    """Brasília calendar days [start, end] as stored (zone-less UTC) instants [from, until)."""
    def at_utc(d: date) -> datetime:
        midnight = datetime(d.year, d.month, d.day, tzinfo=office_zone())
        return midnight.astimezone(UTC).replace(tzinfo=None)
    return (None if start is None else at_utc(start), None if end is None else at_utc(end + timedelta(days=1)))
