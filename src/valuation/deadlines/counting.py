"""Counting periods under Lei 9.784/1999 art. 66, and the shapes every deadline rule returns.

- caput: a period starts on the day of the event, which is excluded; the last day is included;
- §1: a period ending on a day without office hours, or on a day on which the office closes
  before its normal hours (the early-closing policy: 24 and 31 December; the office's own
  dates), is extended to the next business day with normal hours
  (`BusinessCalendar.next_full_business_day`);
- §2: periods in days run continuously (calendar days);
- §3: periods in months or years run date to date; when the final month has no such day, the
  period ends on that month's last day.

The periods of substantive law in months or years (the five years of Lei 7.542 arts. 6–7 and 13 §2, the six
months of art. 29 §3) are not periods of the administrative process: when the final month lacks the day they end
on the first day after it (Lei 810/1949 art. 3; Código Civil art. 132 §3: `add_months_substantive`), and an end on
a day without office hours moves to the next business day (CC art. 132 §1) — `months_after(substantive=True)`.

A deadline that must be met *at least N days before* an event is counted backwards from the
event and moves BACK to the previous business day (moving it forward would shorten the notice
the law requires); one of N *business* days is the period the notice opens, which must be complete
on the event's day (`notice_period`).

Pure: no database, no clock.
"""
from __future__ import annotations

import calendar as _stdcal
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from valuation.core import law
from valuation.core.calendar import MONTH_NAMES, BusinessCalendar
from valuation.core.law import days_text as days_text  # re-exported for the deadline modules
from valuation.core.law import months_text as months_text
from valuation.core.money import format_date_br

ONE_DAY = timedelta(days=1)
ART66 = law.COUNTING_RULE  # "Lei 9.784/1999 art. 66"
MONTHS_PT = MONTH_NAMES
# the one date formatter (valuation.core.money.format_date_br), by the short name the rules use
fmt = format_date_br


@dataclass(frozen=True)
class Deadline:
    """A computed deadline: `due` is the last day to act (None only for the five-year lapse
    while a suspension with no end is running: the clock is stopped); `moved_from` the
    unadjusted date when a non-business day moved it (else None); `steps` explain it in pt-BR."""

    rule: str
    due: date | None
    basis: str
    moved_from: date | None
    steps: tuple[str, ...]


@dataclass(frozen=True)
class Window:
    """A period in which something may be done: from `start` to `end` (both inclusive);
    `moved_from` is the unadjusted end when it moved to a business day."""

    rule: str
    start: date
    end: date
    basis: str
    moved_from: date | None
    steps: tuple[str, ...]


Interval = tuple[date, "date | None"]  # inclusive; end None = still running (no end known yet)


def fmt_month(d: date) -> str:
    """'março/2025'."""
    return f"{MONTHS_PT[d.month - 1]}/{d.year:04d}"


def add_months(d: date, months: int) -> tuple[date, bool]:
    """`d` + `months`, date to date (art. 66 §3); True when the day did not exist in the
    final month and the month's last day was taken."""
    index = d.year * 12 + (d.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    if not 1 <= year <= 9999:
        raise OverflowError("date out of range")
    last = _stdcal.monthrange(year, month)[1]
    return date(year, month, min(d.day, last)), d.day > last


def add_years(d: date, years: int) -> tuple[date, bool]:
    return add_months(d, 12 * years)


def add_months_substantive(d: date, months: int) -> tuple[date, bool]:
    """`d` + `months`, date to date, for a period of substantive law: when the final month has no such day, the
    period ends on the first day after it (Lei 810/1949 art. 3: "findará no primeiro dia subseqüente"; Código Civil
    art. 132 §3) — 29/02/2020 + 5 years is 01/03/2025. True when the day was missing."""
    raw, missing = add_months(d, months)
    return (raw + ONE_DAY, True) if missing else (raw, False)


def add_years_substantive(d: date, years: int) -> tuple[date, bool]:
    return add_months_substantive(d, 12 * years)


def month_end_step(start: date, raw: date, substantive: bool) -> str:
    """The explanation of a missing day in the final month: the month's last day (art. 66 §3) or the first day
    after it (substantive law)."""
    if substantive:
        return (f"não há dia {start.day} em {fmt_month(raw - ONE_DAY)}: termo no primeiro dia subsequente, "
                f"{fmt(raw)} ({law.SUBSTANTIVE_MONTH_END})")
    return f"não há dia {start.day} em {fmt_month(raw)}: termo no último dia do mês"


def merge_intervals(intervals: Iterable[Interval]) -> tuple[Interval, ...]:
    """Merge inclusive [start, end] intervals that overlap or touch (end + 1 == next start).
    An end of None means "still running" and absorbs every interval after its start.

    ValueError when an interval ends before it starts."""
    items = sorted(intervals, key=lambda iv: (iv[0], iv[1] is None, iv[1] or iv[0]))
    for s, e in items:
        if e is not None and e < s:
            raise ValueError(f"interval ends ({e}) before it starts ({s})")
    out: list[Interval] = []
    for s, e in items:
        if out and (out[-1][1] is None or s <= out[-1][1] + ONE_DAY):
            last = out[-1][1]
            if last is not None and (e is None or e > last):
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return tuple(out)


def interval_days(s: date, e: date) -> int:
    """Days covered by the inclusive interval [s, e]."""
    return (e - s).days + 1


def _chain(start: date, end: date, cal: BusinessCalendar, step: timedelta) -> str:
    parts = []
    d = start
    while d != end:
        parts.append(f"{fmt(d)} {cal.describe(d)}")
        d += step
    parts.append(f"{fmt(end)} é dia útil")
    return " → ".join(parts)


def move_forward(raw: date, cal: BusinessCalendar, article: str = f"{ART66} §1"
                 ) -> tuple[date, date | None, list[str]]:
    """Art. 66 §1: a deadline ending on a day without office hours, or on one on which the
    office closes before its normal hours, moves to the next business day with normal hours.
    `article`: the rule that moves it (a period of substantive law: Código Civil art. 132 §1)."""
    due = cal.next_full_business_day(raw)
    if due == raw:
        return due, None, [f"{fmt(raw)} é dia útil: sem prorrogação"]
    return due, raw, [_chain(raw, due, cal, ONE_DAY)
                      + f" (prorrogado para o primeiro dia útil seguinte, {article})"]


def move_back(raw: date, cal: BusinessCalendar) -> tuple[date, date | None, list[str]]:
    """A deadline of minimum notice moves back to the previous business day."""
    due = cal.previous_business_day(raw)
    if due == raw:
        return due, None, [f"{fmt(raw)} é dia útil: sem antecipação"]
    return due, raw, [_chain(raw, due, cal, -ONE_DAY)
                      + " (antecipado para o dia útil anterior: prazo de antecedência mínima)"]


def _business_days(start: date, n: int, cal: BusinessCalendar, step: timedelta) -> tuple[list[date], list[str]]:
    """The `n` business days met walking from `start` (excluded) by `step`, and the closed days passed over
    ('dd/mm/aaaa (reason)')."""
    days: list[date] = []
    skipped: list[str] = []
    d = start
    while len(days) < n:
        d += step
        if cal.is_business_day(d):
            days.append(d)
        else:
            skipped.append(f"{fmt(d)} ({cal.reason_closed(d)})")
    return days, skipped


@dataclass(frozen=True)
class Notice:
    """The latest day to give a notice of at least n business days before an event (`notice_period`): `due`, the
    n business days of the period the notice opens (in order, the last on or before the event) and the closed
    days passed over between the notice and the event ('dd/mm/aaaa (reason)')."""

    due: date
    days: tuple[date, ...]
    skipped: tuple[str, ...]


def notice_period(event: date, n: int, cal: BusinessCalendar) -> Notice:
    """A notice of at least `n` business days before `event` (NORMAM-10 0307; Lei 9.784 arts. 26 §2 and 41) opens a
    period counted as art. 66 counts every period — the notice's day excluded, the last day included — that must be
    complete on the event's day (docs/decisions/105-notices-of-minimum-antecedence.md). So the period's n business
    days are the last n on or before the event (the event's day among them when it is a business day, none of them
    when it is not), and the notice is due on the business day before the first of them: a weekday and a weekend
    event follow the same count."""
    days: list[date] = []
    d = event
    while len(days) < n:
        if cal.is_business_day(d):
            days.append(d)
        d -= ONE_DAY
    due = cal.previous_business_day(days[-1] - ONE_DAY)
    skipped = []
    d = due + ONE_DAY
    while d <= event:
        if not cal.is_business_day(d):
            skipped.append(f"{fmt(d)} ({cal.reason_closed(d)})")
        d += ONE_DAY
    return Notice(due, tuple(reversed(days)), tuple(skipped))


def notice_steps(event: date, what: str, n: int, basis: str, notice: Notice, last: str,
                 cal: BusinessCalendar | None = None) -> tuple[str, ...]:
    """The explanation of a notice of minimum antecedence (`notice_period`), in pt-BR: `what` happens on `event`,
    `last` names the latest act ('Último dia para comunicar'); with `cal`, the days DPC fixed in the period."""
    steps = [f"{what} em {fmt(event)}; aviso com antecedência mínima de {n} dias úteis ({basis})",
             f"O aviso abre um prazo de {n} dias úteis, contado como os da {ART66} (exclui-se o dia do aviso, "
             f"inclui-se o do vencimento), que deve se completar até {fmt(event)}",
             "Dias úteis do prazo: " + ", ".join(f"{i}º {fmt(x)}" for i, x in enumerate(notice.days, 1)),
             "Dias sem expediente desconsiderados: " + (", ".join(notice.skipped) if notice.skipped else "nenhum"),
             f"{last}: {fmt(notice.due)}"]
    return tuple(steps if cal is None else with_edited(steps, cal, notice.due + ONE_DAY, event))


def edited_note(cal: BusinessCalendar, first: date, last: date) -> str | None:
    """The explanation's line for the days DPC fixed in the calendar from `first` to `last` (each with its source),
    or None when the period crosses none (docs/decisions/104-calendar-records.md)."""
    records = cal.edited_between(first, last)
    if not records:
        return None
    return "Dias do calendário fixados pela DPC no período: " + "; ".join(r.note() for r in records)


def with_edited(steps: list[str], cal: BusinessCalendar, first: date, last: date | None) -> list[str]:
    """`steps` with the line of the days DPC fixed from `first` to `last`, before the last line (the due date's)."""
    note = edited_note(cal, first, last) if last is not None else None
    return steps if note is None else [*steps[:-1], note, steps[-1]]


def join_basis(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def days_after(rule: str, start: date, days: int, cal: BusinessCalendar, basis: str, event: str) -> Deadline:
    """`days` calendar days after `start` (excluded), moved forward to a business day (art. 66 caput, §§1–2)."""
    raw = start + timedelta(days=days)
    steps = [
        f"Termo inicial: {fmt(start)} ({event}), excluído da contagem ({ART66})",
        f"{fmt(start)} + {days_text(days)} corridos = {fmt(raw)} ({ART66} §2)",
    ]
    due, moved, more = move_forward(raw, cal)
    steps += more
    steps.append(f"Vencimento: {fmt(due)}")
    steps = with_edited(steps, cal, start + ONE_DAY, due)
    return Deadline(rule, due, join_basis(basis, ART66), moved, tuple(steps))


def business_days_after(rule: str, start: date, n: int, cal: BusinessCalendar, basis: str, event: str) -> Deadline:
    """The `n`-th business day after `start` (excluded): a period the law gives in "dias úteis" (art. 66 caput;
    the days without office hours are passed over), moved forward like every other end when the office closes
    early on it (§1)."""
    days, skipped = _business_days(start, n, cal, ONE_DAY)
    steps = [f"Termo inicial: {fmt(start)} ({event}), excluído da contagem ({ART66})",
             "Dias úteis contados: " + ", ".join(f"{i}º {fmt(x)}" for i, x in enumerate(days, 1)),
             "Dias sem expediente desconsiderados: " + (", ".join(skipped) if skipped else "nenhum")]
    due, moved, more = move_forward(days[-1], cal)
    steps += more
    steps.append(f"Vencimento: {fmt(due)}")
    steps = with_edited(steps, cal, start + ONE_DAY, due)
    return Deadline(rule, due, join_basis(basis, ART66), moved, tuple(steps))


def months_after(rule: str, start: date, months: int, cal: BusinessCalendar, basis: str, event: str, *,
                 substantive: bool = False) -> Deadline:
    """`months` months after `start`, date to date (art. 66 §3), moved forward to a business day. A period of
    substantive law (`substantive`) ends, when the final month lacks the day, on the first day after it and moves
    by Código Civil art. 132 §§1 and 3 (Lei 810/1949 art. 3)."""
    raw, missing = (add_months_substantive if substantive else add_months)(start, months)
    counting = law.SUBSTANTIVE_COUNTING if substantive else ART66
    steps = [f"Termo inicial: {fmt(start)} ({event})"]
    line = (f"{fmt(start)} + {months_text(months)}, de data a data = {fmt(raw)} "
            f"({law.SUBSTANTIVE_MONTH_END if substantive else f'{ART66} §3'})")
    if missing:
        line += "; " + month_end_step(start, raw, substantive)
    steps.append(line)
    due, moved, more = move_forward(raw, cal, law.SUBSTANTIVE_MOVE if substantive else f"{ART66} §1")
    steps += more
    steps.append(f"Vencimento: {fmt(due)}")
    steps = with_edited(steps, cal, start + ONE_DAY, due)
    return Deadline(rule, due, join_basis(basis, counting), moved, tuple(steps))


def fixed_date(rule: str, fixed: date, basis: str, what: str, late: str) -> Deadline:
    """A date fixed by the Authority (not a period, so never moved): `what` it is, what `late` means."""
    steps = (f"{what}: {fmt(fixed)} (data certa, sem prorrogação)", late, f"Vencimento: {fmt(fixed)}")
    return Deadline(rule, fixed, basis, None, steps)
