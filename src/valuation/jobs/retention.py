"""Which dated backup folders a retention schedule keeps (issue 24, "Losing at most an hour") — a pure
rule: no file, no clock; the caller gives each backup's name and the local time it was taken.

The schedule keeps, like restic's `--keep-hourly/--keep-daily/--keep-weekly`:

- `hourly`: the newest backup of each of the `hourly` most recent clock hours that have a backup,
- `daily`: the newest backup of each of the `daily` most recent days that have one,
- `weekly`: the newest backup of each of the `weekly` most recent ISO weeks (Monday to Sunday) that have one,

a backup kept by any rule is kept, and so is every name in `protected` (the caller protects the newest
proven backup and the newest backup, which has yet to be proven). Counting the hours, days and weeks
*that have a backup* — not the last 24 hours of the clock — means that a service stopped for a month
does not come back and delete every backup it has: at most hourly + daily + weekly + len(protected)
folders are kept, and never fewer than that many when there are.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Schedule:
    hourly: int = 24
    daily: int = 7
    weekly: int = 4

    def __post_init__(self) -> None:
        if min(self.hourly, self.daily, self.weekly) < 0:
            raise ValueError("a retention count is never negative")


def _hour(at: datetime) -> Hashable:
    return (at.year, at.month, at.day, at.hour)


def _day(at: datetime) -> Hashable:
    return (at.year, at.month, at.day)


def _week(at: datetime) -> Hashable:
    iso = at.isocalendar()
    return (iso.year, iso.week)


RULES: tuple[tuple[str, Callable[[datetime], Hashable]], ...] = (
    ("hourly", _hour), ("daily", _day), ("weekly", _week))


def kept(backups: Sequence[tuple[str, datetime]], schedule: Schedule,
         protected: Iterable[str] = ()) -> dict[str, tuple[str, ...]]:
    """Name → why it is kept ('hourly', 'daily', 'weekly', 'protected'), for every backup kept.
    `backups`: (name, local time taken); names are unique; equal times are ordered by name."""
    newest_first = sorted(backups, key=lambda b: (b[1], b[0]), reverse=True)
    reasons: dict[str, list[str]] = {}
    for rule, bucket in RULES:
        count = getattr(schedule, rule)
        seen: set[Hashable] = set()
        for name, at in newest_first:
            if len(seen) >= count:
                break
            key = bucket(at)
            if key in seen:
                continue              # an older backup of a period already kept
            seen.add(key)
            reasons.setdefault(name, []).append(rule)
    names = {name for name, _ in backups}
    for name in protected:
        if name in names:
            reasons.setdefault(name, []).append("protected")
    return {name: tuple(why) for name, why in reasons.items()}


def removable(backups: Sequence[tuple[str, datetime]], schedule: Schedule,
              protected: Iterable[str] = ()) -> list[str]:
    """The names the schedule does not keep, oldest first."""
    keep = kept(backups, schedule, protected)
    return [name for name, _ in sorted(backups, key=lambda b: (b[1], b[0])) if name not in keep]
