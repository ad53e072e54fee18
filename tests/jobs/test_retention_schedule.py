"""The retention schedule of the backup folders (issue 24, "Losing at most an hour"): a pure rule,
table-driven — which backups 24 hourly / 7 daily / 4 weekly (or another schedule) keep."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from valuation.jobs.retention import Schedule, kept, removable


def _n(at: datetime) -> str:
    return f"{at:%Y-%m-%d-%H%M%S}"


def _every(start: datetime, step: timedelta, count: int) -> list[tuple[str, datetime]]:
    return [(_n(start + i * step), start + i * step) for i in range(count)]


SUN = datetime(2026, 3, 29, 23, 0)          # a Sunday: the ISO week ends there
HOURLY_60_DAYS = _every(SUN - timedelta(hours=60 * 24 - 1), timedelta(hours=1), 60 * 24)
TWO_IN_AN_HOUR = [("a", datetime(2026, 3, 2, 10, 5)), ("b", datetime(2026, 3, 2, 10, 55)),
                  ("c", datetime(2026, 3, 2, 11, 5))]
MONTH_GAP = [("old1", datetime(2026, 1, 5, 12)), ("old2", datetime(2026, 1, 6, 12)), ("new", datetime(2026, 3, 2, 9))]

CASES = [
    # (id, backups, schedule, protected, names kept)
    ("nothing", [], Schedule(), (), set()),
    ("hourly keeps the newest 24 hours", _every(datetime(2026, 3, 2), timedelta(hours=1), 30), Schedule(24, 0, 0), (),
     {_n(datetime(2026, 3, 2) + timedelta(hours=h)) for h in range(6, 30)}),
    ("one per clock hour, the newest of it", TWO_IN_AN_HOUR, Schedule(5, 0, 0), (), {"b", "c"}),
    ("daily: the newest of each of the last 3 days that have one",
     [(f"d{d}-{h}", datetime(2026, 3, d, h)) for d in range(1, 6) for h in (1, 23)], Schedule(0, 3, 0), (),
     {"d3-23", "d4-23", "d5-23"}),
    ("weekly: ISO weeks end on Sunday", [("sun", datetime(2026, 3, 29, 8)), ("sat", datetime(2026, 3, 28, 8)),
                                         ("mon", datetime(2026, 3, 30, 8))], Schedule(0, 0, 2), (), {"sun", "mon"}),
    ("a month without backups deletes none of the old ones", MONTH_GAP, Schedule(0, 3, 0), (), {"old1", "old2", "new"}),
    ("protected is kept beyond the schedule", TWO_IN_AN_HOUR, Schedule(1, 0, 0), ("a",), {"a", "c"}),
    ("a protected name that is not a backup is ignored", TWO_IN_AN_HOUR, Schedule(1, 0, 0), ("zz",), {"c"}),
    # 60 days of hourly backups up to Sunday 23:00: the day's 24, the six days before at 23:00, and the three
    # Sundays before at 23:00 — 33 folders
    ("the default schedule over 60 days of hourly backups", HOURLY_60_DAYS, Schedule(), (),
     {_n(SUN - timedelta(hours=h)) for h in range(24)} | {_n(SUN - timedelta(days=d)) for d in range(1, 7)}
     | {_n(SUN - timedelta(weeks=w)) for w in range(1, 4)}),
]


@pytest.mark.parametrize(("backups", "schedule", "protected", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_the_schedule_keeps(backups: list[tuple[str, datetime]], schedule: Schedule, protected: tuple[str, ...],
                            expected: set[str]) -> None:
    assert set(kept(backups, schedule, protected)) == expected
    gone = removable(backups, schedule, protected)
    assert set(gone) == {name for name, _ in backups} - expected
    assert gone == sorted(gone, key=dict(backups).__getitem__)        # oldest first


def test_the_reasons_and_the_bounds() -> None:
    why = kept(HOURLY_60_DAYS, Schedule(), ("2026-03-01-000000",))
    assert why[_n(SUN)] == ("hourly", "daily", "weekly")
    assert why[_n(SUN - timedelta(days=1))] == ("daily",) and why[_n(SUN - timedelta(weeks=3))] == ("weekly",)
    assert why["2026-03-01-000000"] == ("protected",)
    assert len(why) <= 24 + 7 + 4 + 1
    with pytest.raises(ValueError):
        Schedule(hourly=-1)
