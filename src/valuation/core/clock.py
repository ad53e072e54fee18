"""The clock's one definition: stored instants are naive UTC; people read Brasília time
(America/Sao_Paulo; federal offices keep it). `brasilia` converts a stored instant for display,
`utc_bounds` turns Brasília calendar days into the UTC instants a query filters on."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

BRASILIA = "America/Sao_Paulo"


def brasilia(at: datetime | None) -> datetime | None:
    """A stored (naive UTC) timestamp as naive Brasília time."""
    if at is None:
        return None
    aware = at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at
    try:
        local = aware.astimezone(ZoneInfo(BRASILIA))
    except ZoneInfoNotFoundError:  # no tz database: Brasília has had no daylight saving time since 2019
        local = None
    if local is None:
        local = aware.astimezone(timezone(timedelta(hours=-3)))
    return local.replace(tzinfo=None)


def utc_bounds(start: date | None, end: date | None) -> tuple[datetime | None, datetime | None]:
    """Brasília calendar days [start, end] as naive UTC instants [from, until)."""
    def utc(d: date) -> datetime:
        naive = datetime(d.year, d.month, d.day)
        try:
            aware = naive.replace(tzinfo=ZoneInfo(BRASILIA))
        except ZoneInfoNotFoundError:  # no tz database: Brasília time, without daylight saving since 2019
            aware = naive.replace(tzinfo=timezone(timedelta(hours=-3)))
        return aware.astimezone(timezone.utc).replace(tzinfo=None)
    return (None if start is None else utc(start), None if end is None else utc(end + timedelta(days=1)))
