"""Business days of a receiving office (CP, DL or AG), for deadlines under Lei 9.784/1999 art. 66.

A day is a business day when it is Monday–Friday and is none of:

- a national holiday or a holiday of the office's state (the maintained `holidays`
  package, pt-BR names; national 20 November from 2024 on, Lei 14.759/2023; state
  holidays from 1996 on, Lei 9.093/1995);
- a local (municipal) holiday configured for the office;
- a *policy day* (ponto facultativo) on which federal offices close — a policy
  (`valuation.policies.defaults`, key `policy_days`), default Carnival Monday and Tuesday and
  Corpus Christi, computed from Easter.

The calendar DPC keeps (issue 44; docs/decisions/104-calendar-records.md): dated records, each with its
source, that override the library for one day — the yearly federal calendar's closures and moved days
(e.g. Portaria MGI nº 9.783/2024: 20/06/2025 without office hours, the Dia do Servidor moved to
27/10/2025) for every office, and per office a library holiday switched off (the day is a business day)
or a closed day switched on (`CalendarRecord`; `edited_between` names them for the explanations).

Art. 66 §1: a period that ends on a day without office hours, *or on which the office
closes before its normal hours* ("encerrado antes da hora normal"), is extended to the
next business day. Early-closing days: 24 and 31 December (federal offices close at
14h) plus the office's own early-closing dates. They are business days — they count
when business days are counted — but a forward due date that lands on one moves to the
next business day that is not one (`next_full_business_day`).

This module is the one place that knows the business-day calendar. Holidays are
computed once per (state, year) and cached, so the calendar is cheap to query for
thousands of contracts.
"""
from __future__ import annotations

import calendar as _stdcal
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from types import MappingProxyType

import holidays
from dateutil.easter import easter
from holidays.countries.brazil import Brazil as _Brazil

UF_CODES: tuple[str, ...] = (
    "AC", "AL", "AM", "AP", "BA", "CE", "DF", "ES", "GO", "MA", "MG", "MS", "MT", "PA",
    "PB", "PE", "PI", "PR", "RJ", "RN", "RO", "RR", "RS", "SC", "SE", "SP", "TO",
)

MONTH_NAMES: tuple[str, ...] = ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
                               "setembro", "outubro", "novembro", "dezembro")
WEEKDAY_NAMES: tuple[str, ...] = (
    "segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado", "domingo",
)

# Policy days (pontos facultativos): key -> (pt-BR name, offset from Easter Sunday or (month, day)).
_EASTER_POLICY_DAYS: dict[str, tuple[str, int]] = {
    "carnival_monday": ("Carnaval", -48),
    "carnival_tuesday": ("Carnaval", -47),
    "ash_wednesday": ("Quarta-feira de Cinzas", -46),
    "corpus_christi": ("Corpus Christi", 60),
}
_FIXED_POLICY_DAYS: dict[str, tuple[str, tuple[int, int]]] = {
    "public_servant_day": ("Dia do Servidor Público", (10, 28)),
    "christmas_eve": ("Véspera de Natal", (12, 24)),
    "new_years_eve": ("Véspera de Ano-Novo", (12, 31)),
}
POLICY_DAY_KEYS: tuple[str, ...] = tuple(_EASTER_POLICY_DAYS) + tuple(_FIXED_POLICY_DAYS)
DEFAULT_POLICY_DAYS: tuple[str, ...] = ("carnival_monday", "carnival_tuesday", "corpus_christi")
POLICY_DAY_LABELS: dict[str, str] = {
    "carnival_monday": "Segunda-feira de Carnaval",
    "carnival_tuesday": "Terça-feira de Carnaval",
    "ash_wednesday": "Quarta-feira de Cinzas",
    "corpus_christi": "Corpus Christi",
    "public_servant_day": "Dia do Servidor Público (28/10)",
    "christmas_eve": "Véspera de Natal (24/12)",
    "new_years_eve": "Véspera de Ano-Novo (31/12)",
}

# Early closing (Lei 9.784 art. 66 §1, "expediente encerrado antes da hora normal"): federal
# offices close at 14h on these days every year; an office may add its own dates.
YEAR_END_EARLY_CLOSING: tuple[tuple[int, int, str], ...] = (
    (12, 24, "véspera de Natal"),
    (12, 31, "véspera de Ano-Novo"),
)
_YEARLY_NAMES: dict[tuple[int, int], str] = {(m, d): n for m, d, n in YEAR_END_EARLY_CLOSING}


def yearly_early_closing(days: Iterable[tuple[int, int]]) -> tuple[tuple[int, int, str], ...]:
    """(month, day) pairs of the early-closing policy as (month, day, pt-BR name) for BusinessCalendar."""
    return tuple((m, d, _YEARLY_NAMES.get((m, d), "expediente encerrado mais cedo (política)"))
                 for m, d in dict.fromkeys((int(m), int(d)) for m, d in days))
EARLY_CLOSING_BASIS = "Lei 9.784/1999 art. 66 §1 (expediente encerrado antes da hora normal)"

HOLIDAY, LOCAL, POLICY, WEEKEND, RECORD = "holiday", "local", "policy", "weekend", "record"
CLOSED, OPEN = "closed", "open"     # a DPC record's effect on its day


@dataclass(frozen=True)
class CalendarRecord:
    """A day DPC fixed in an office's calendar, with its source (the act that says so): `effect` CLOSED — no
    office hours that day (a closure the federal calendar declares, or a holiday the library lacks switched on;
    `moved_from`: the closure moved from that day, which then has office hours) — or OPEN — a library holiday
    switched off (the day is a business day)."""

    day: date
    effect: str
    name: str
    source: str
    moved_from: date | None = None

    @property
    def text(self) -> str:
        """'Ponto facultativo — Portaria MGI nº 9.783/2024' (with the day it was moved from, when it was)."""
        moved = f", transferido de {_fmt(self.moved_from)}" if self.moved_from is not None else ""
        return f"{self.name}{moved} — {self.source}"

    def note(self) -> str:
        """How an explanation names it: '20/06/2025 sem expediente (Ponto facultativo — Portaria …)'."""
        if self.effect == OPEN:
            return f"{_fmt(self.day)} com expediente ({self.name}: feriado desligado — {self.source})"
        return f"{_fmt(self.day)} sem expediente ({self.text})"


def _fmt(d: date | None) -> str:
    return "" if d is None else f"{d.day:02d}/{d.month:02d}/{d.year:04d}"


@dataclass(frozen=True)
class ClosedDay:
    """Why an office has no business on `day`: kind is holiday, local, policy or weekend."""

    day: date
    kind: str
    name: str

    @property
    def reason(self) -> str:
        """Short pt-BR reason: the holiday's name, 'sábado', 'ponto facultativo: Carnaval'."""
        if self.kind == POLICY:
            return f"ponto facultativo: {self.name}"
        if self.kind == RECORD:
            return f"registro da DPC: {self.name}"
        return self.name

    @property
    def phrase(self) -> str:
        """pt-BR predicate used in explanations: 'é domingo', 'é feriado (Tiradentes)'."""
        if self.kind == WEEKEND:
            return f"é {self.name}"
        if self.kind == POLICY:
            return f"é ponto facultativo ({self.name})"
        if self.kind == LOCAL:
            return f"é feriado local ({self.name})"
        if self.kind == RECORD:
            return f"é dia sem expediente por registro da DPC ({self.name})"
        return f"é feriado ({self.name})"


class _BrazilBeyond2100(_Brazil):
    """The same rules as `holidays`' Brazil, without its default end year (2100)."""

    end_year = 9999


@functools.lru_cache(maxsize=4096)
def public_holidays(state: str | None, year: int) -> Mapping[date, str]:
    """National holidays plus those of `state` (a UF code or None) in `year`, pt-BR names."""
    h: holidays.HolidayBase
    if year > _Brazil.end_year:
        h = _BrazilBeyond2100(subdiv=state, years=year, language="pt_BR")
    else:
        h = holidays.country_holidays("BR", subdiv=state, years=year, language="pt_BR")
    return MappingProxyType({d: str(n) for d, n in h.items() if d.year == year})


def _policy_dates(key: str, year: int) -> date:
    if key in _EASTER_POLICY_DAYS:
        return easter(year) + timedelta(days=_EASTER_POLICY_DAYS[key][1])
    month, day = _FIXED_POLICY_DAYS[key][1]
    return date(year, month, day)


def _policy_name(key: str) -> str:
    if key in _EASTER_POLICY_DAYS:
        return _EASTER_POLICY_DAYS[key][0]
    return _FIXED_POLICY_DAYS[key][0]


def _named_days(items: Iterable[date | tuple[date, str]], default: str) -> dict[date, str]:
    """date → name from dates or (date, name) pairs; two names of one day are joined."""
    out: dict[date, str] = {}
    for item in items:
        if isinstance(item, date):
            d, name = item, default
        else:
            d, name = item
            if not isinstance(d, date):
                raise TypeError(f"date must be a date, got {d!r}")
            name = (name or "").strip() or default
        out[d] = f"{out[d]}; {name}" if d in out and out[d] != name else name
    return out


def normalize_state(state: str | None) -> str | None:
    """'rj ' -> 'RJ'; None/'' -> None; ValueError if not one of the 27 UF codes."""
    if state is None:
        return None
    s = state.strip().upper()
    if not s:
        return None
    if s not in UF_CODES:
        raise ValueError(f"unknown Brazilian state (UF) code: {state!r}")
    return s


class BusinessCalendar:
    """Business days of one office: its state's holidays, local holidays and policy days.

    Basis: Lei 9.784/1999 art. 66 §1 (days without office hours); rules.md §7.
    Instances are immutable after construction; per-year closed days are cached.
    """

    __slots__ = ("_state", "_local", "_policy_days", "_years", "_early", "_yearly", "_records")

    def __init__(self, state: str | None = None,
                 local_holidays: Iterable[date | tuple[date, str]] = (),
                 policy_days: Iterable[str] = DEFAULT_POLICY_DAYS,
                 early_closing: Iterable[date | tuple[date, str]] = (),
                 year_end_early_closing: bool = True,
                 yearly: Iterable[tuple[int, int, str]] | None = None,
                 records: Iterable[CalendarRecord] = ()) -> None:
        """`yearly`: the (month, day, name) early-closing dates of every year (the policy
        `early_closing_days`); None: 24 and 31 December, or none when `year_end_early_closing`
        is False. `early_closing`: the office's own dates. `records`: the days DPC fixed (one per day;
        they override the library, the local holidays and the policy days)."""
        self._state = normalize_state(state)
        self._local: Mapping[date, str] = MappingProxyType(_named_days(local_holidays, "feriado local"))
        self._early: Mapping[date, str] = MappingProxyType(
            _named_days(early_closing, "expediente encerrado mais cedo"))
        if yearly is None:
            yearly = YEAR_END_EARLY_CLOSING if year_end_early_closing else ()
        self._yearly: Mapping[tuple[int, int], str] = MappingProxyType({(m, d): n for m, d, n in yearly})
        days = tuple(dict.fromkeys(policy_days))
        unknown = [k for k in days if k not in POLICY_DAY_KEYS]
        if unknown:
            raise ValueError(f"unknown policy day(s): {', '.join(unknown)}")
        self._policy_days = days
        self._records: Mapping[date, CalendarRecord] = MappingProxyType({r.day: r for r in records})
        self._years: dict[int, dict[date, ClosedDay]] = {}

    # -- description ---------------------------------------------------------------
    @property
    def state(self) -> str | None:
        return self._state

    @property
    def local_holidays(self) -> Mapping[date, str]:
        return self._local

    @property
    def policy_days(self) -> tuple[str, ...]:
        return self._policy_days

    @property
    def records(self) -> Mapping[date, CalendarRecord]:
        """The days DPC fixed in this calendar, by day."""
        return self._records

    @property
    def early_closing(self) -> Mapping[date, str]:
        """The office's own early-closing dates (the yearly ones come on top of them)."""
        return self._early

    @property
    def yearly_early_closing(self) -> Mapping[tuple[int, int], str]:
        """(month, day) → name of the early-closing dates of every year (policy; 24 and 31 December)."""
        return self._yearly

    def __repr__(self) -> str:
        return (f"BusinessCalendar(state={self._state!r}, local_holidays={len(self._local)}, "
                f"policy_days={self._policy_days!r}, early_closing={len(self._early)})")

    # -- closed days -------------------------------------------------------------------
    def _closed_weekdays(self, year: int) -> dict[date, ClosedDay]:
        """Non-weekend information for `year`: holidays first, then local, then policy days."""
        cached = self._years.get(year)
        if cached is not None:
            return cached
        out: dict[date, ClosedDay] = {}
        for key in self._policy_days:
            try:
                d = _policy_dates(key, year)
            except (ValueError, OverflowError):  # Easter shifts out of the year's range (year 1/9999)
                continue
            if d.year == year and d not in out:
                out[d] = ClosedDay(d, POLICY, _policy_name(key))
        for d, name in self._local.items():
            if d.year == year:
                out[d] = ClosedDay(d, LOCAL, name)
        for d, name in public_holidays(self._state, year).items():
            out[d] = ClosedDay(d, HOLIDAY, name)
        for r in self._records.values():   # DPC's records override the library, the local days and the policy
            if r.moved_from is not None and r.moved_from.year == year and r.moved_from not in self._records:
                out.pop(r.moved_from, None)
            if r.day.year != year:
                continue
            if r.effect == OPEN:
                out.pop(r.day, None)
            else:
                out[r.day] = ClosedDay(r.day, RECORD, r.text)
        self._years[year] = out
        return out

    def edited_between(self, first: date, last: date) -> tuple[CalendarRecord, ...]:
        """The records DPC fixed for a day from `first` to `last` (both included) — a day closed, opened, or the day
        a closure was moved from —, by day: what an explanation of a period crossing them must say."""
        if last < first:
            first, last = last, first
        return tuple(sorted((r for r in self._records.values()
                             if first <= r.day <= last or (r.moved_from is not None and first <= r.moved_from <= last)),
                            key=lambda r: r.day))

    def closed_info(self, d: date) -> ClosedDay | None:
        """Why `d` has no office hours (holiday > local > policy day > weekend), or None."""
        info = self._closed_weekdays(d.year).get(d)
        if info is not None:
            return info
        wd = d.weekday()
        if wd >= 5:
            return ClosedDay(d, WEEKEND, WEEKDAY_NAMES[wd])
        return None

    def is_business_day(self, d: date) -> bool:
        if d.weekday() >= 5:
            return False
        return d not in self._closed_weekdays(d.year)

    def reason_closed(self, d: date) -> str | None:
        """pt-BR reason why `d` is not a business day ('domingo', 'Tiradentes',
        'ponto facultativo: Carnaval'), or None on a business day."""
        info = self.closed_info(d)
        return None if info is None else info.reason

    def early_closing_name(self, d: date) -> str | None:
        """Why the office closes before its normal hours on `d` ('véspera de Natal', an office
        date's name), or None: only a business day can close early (Lei 9.784 art. 66 §1)."""
        if not self.is_business_day(d):
            return None
        name = self._early.get(d)
        if name is None:
            name = self._yearly.get((d.month, d.day))
        return name

    def is_early_closing(self, d: date) -> bool:
        """A business day on which the office closes before its normal hours (art. 66 §1)."""
        return self.early_closing_name(d) is not None

    def describe(self, d: date) -> str:
        """pt-BR predicate for explanations: 'é domingo', 'é feriado (Natal)', 'é dia útil',
        'tem expediente encerrado antes da hora normal (véspera de Natal)'."""
        info = self.closed_info(d)
        if info is not None:
            return info.phrase
        early = self.early_closing_name(d)
        if early is not None:
            return f"tem expediente encerrado antes da hora normal ({early})"
        return "é dia útil"

    def closed_days(self, year: int) -> list[tuple[date, str]]:
        """Every day of `year` without office hours, with its reason, in date order."""
        out: list[tuple[date, str]] = []
        d = date(year, 1, 1)
        one = timedelta(days=1)
        while d.year == year:
            info = self.closed_info(d)
            if info is not None:
                out.append((d, info.reason))
            if d == date.max:
                break
            d += one
        return out

    # -- moving along --------------------------------------------------------------------
    def next_business_day(self, d: date) -> date:
        """`d` itself when it is a business day, else the first business day after it."""
        one = timedelta(days=1)
        while not self.is_business_day(d):
            d += one
        return d

    def next_full_business_day(self, d: date) -> date:
        """`d` itself when it is a business day with normal hours, else the first such day
        after it: where a forward due date lands (Lei 9.784 art. 66 §1)."""
        one = timedelta(days=1)
        while not self.is_business_day(d) or self.is_early_closing(d):
            d += one
        return d

    def previous_business_day(self, d: date) -> date:
        """`d` itself when it is a business day, else the last business day before it."""
        one = timedelta(days=1)
        while not self.is_business_day(d):
            d -= one
        return d

    def add_business_days(self, d: date, n: int) -> date:
        """The n-th business day after `d` (n > 0) or before it (n < 0); `d` itself is not
        counted (art. 66: the start day is excluded). n == 0 returns `d` unchanged."""
        step = timedelta(days=1 if n > 0 else -1)
        left = abs(n)
        while left:
            d += step
            if self.is_business_day(d):
                left -= 1
        return d

    def nth_business_day_of_month(self, year: int, month: int, n: int) -> date:
        """The n-th business day (n ≥ 1) of the month; ValueError if the month has fewer."""
        if n < 1:
            raise ValueError("n must be at least 1")
        last = _stdcal.monthrange(year, month)[1]
        count = 0
        for day in range(1, last + 1):
            d = date(year, month, day)
            if self.is_business_day(d):
                count += 1
                if count == n:
                    return d
        raise ValueError(f"{month:02d}/{year} has only {count} business day(s)")
