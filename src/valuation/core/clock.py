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
- People read Brasília time (America/Sao_Paulo; federal offices keep it): `brasilia` converts a
  stored instant for display, `utc_bounds` turns Brasília calendar days into the UTC instants
  a query filters on, `today_brasilia` is the calendar day of the offices now.
"""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from typing import overload
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

BRASILIA = "America/Sao_Paulo"
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


def _brasilia_zone() -> tzinfo:
    try:
        return ZoneInfo(BRASILIA)
    except ZoneInfoNotFoundError:  # no tz database: Brasília has had no daylight saving time since 2019
        return timezone(timedelta(hours=-3))


@overload
def brasilia(at: datetime) -> datetime: ...
@overload
def brasilia(at: None) -> None: ...
def brasilia(at: datetime | None) -> datetime | None:
    """A stored (zone-less UTC) or aware instant as naive Brasília wall-clock time (for display)."""
    if at is None:
        return None
    moment = aware(at)
    assert moment is not None
    return moment.astimezone(_brasilia_zone()).replace(tzinfo=None)


def today_brasilia(at: datetime | None = None) -> date:
    """The calendar day in Brasília at `at` (default: now)."""
    moment = brasilia(at if at is not None else now_utc())
    assert moment is not None
    return moment.date()


def utc_bounds(start: date | None, end: date | None) -> tuple[datetime | None, datetime | None]:
    """Brasília calendar days [start, end] as stored (zone-less UTC) instants [from, until)."""
    def at_utc(d: date) -> datetime:
        local = datetime(d.year, d.month, d.day, tzinfo=_brasilia_zone())
        return local.astimezone(UTC).replace(tzinfo=None)
    return (None if start is None else at_utc(start), None if end is None else at_utc(end + timedelta(days=1)))
