"""A wreck's casualty as the registry records it and the rules read it: the date known to a precision
(day, month, year or century) and the hull. Pure: no database, no clock.

Below every capability that reads a wreck (issue 22): the registry's domain status (Lei 7.542 arts. 6,
7, 32) and the deadline engine's five years and Maritime Court track both take the casualty's bounds
from here, so neither imports the other.

    casualty_bounds(1712, precision="century")   (date(1701, 1, 1), date(1800, 12, 31))
    casualty_text(1995, 4, 30, "day")             '30/04/1995'
"""
from __future__ import annotations

import calendar as _stdcal
from datetime import date

PRECISIONS: tuple[str, ...] = ("day", "month", "year", "century")
WOODEN_HULLS = frozenset({"wood", "wooden", "madeira", "casco de madeira", "de madeira"})


def is_wooden(hull: str | None) -> bool:
    """'wood', 'wooden', 'madeira' (any case) mean a wooden hull."""
    return hull is not None and hull.strip().lower() in WOODEN_HULLS


def casualty_bounds(year: int, month: int | None = None, day: int | None = None,
                    precision: str = "day") -> tuple[date, date]:
    """Earliest and latest possible casualty date for a date known to a `precision`
    (rules.md §1). Centuries are ordinal: 1712 → 1701-01-01 … 1800-12-31 (as art. 32 §1)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}")
    if not 1 <= year <= 9999:
        raise ValueError("year out of range")
    if precision == "century":
        c = (year - 1) // 100 + 1
        return date((c - 1) * 100 + 1, 1, 1), date(min(c * 100, 9999), 12, 31)
    if precision == "year":
        return date(year, 1, 1), date(year, 12, 31)
    if month is None:
        raise ValueError("month is required for precision day or month")
    if precision == "month":
        return date(year, month, 1), date(year, month, _stdcal.monthrange(year, month)[1])
    if day is None:
        raise ValueError("day is required for precision day")
    d = date(year, month, day)
    return d, d


def casualty_text(year: int, month: int | None, day: int | None, precision: str) -> str:
    """'30/04/1995', '04/1995', '1995', 'século XVIII (1712)'."""
    if precision == "day" and month and day:
        return f"{day:02d}/{month:02d}/{year:04d}"
    if precision == "month" and month:
        return f"{month:02d}/{year:04d}"
    if precision == "century":
        return f"século {_roman((year - 1) // 100 + 1)} ({year})"
    return f"{year:04d}"


def _roman(n: int) -> str:
    out = ""
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
                           (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= value:
            out += letters
            n -= value
    return out
