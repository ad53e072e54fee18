"""Business-day calendars of the offices, built from the database (rules.md §7; Lei 9.784/1999 art. 66).

A receiving office's (CP, DL or AG) calendar is `valuation.core.calendar.BusinessCalendar` fed with:

- the office's state (`offices.state`): national and state holidays come from the maintained
  `holidays` library;
- the office's municipal holidays (`local_holidays`) and its own early-closing dates
  (`office_early_closings`, migration 013), maintained by DPC here (validated and audited);
- the policies `policy_days` (pontos facultativos, default Carnival Monday and Tuesday and Corpus
  Christi) and `early_closing_days` (24 and 31 December), read through `valuation.policies.values`;
- the days DPC fixed with their source (`calendar_records`, migration 077; kept by
  `valuation.deadlines.calendar_records`): the federal calendar's closures and moved days for every office,
  and per office a library holiday switched off or a closed day switched on — over all of the above.

The two policies are dated: `CalendarBook.at(office, day)` is the calendar in force on `day`, and
a deadline is counted on the calendar in force on the day its period starts, so a change of the
pontos facultativos never rewrites a due date already computed for an earlier period. The
calendar page shows each day as the version in force that day says.

Calendars are cached by content (state, holidays, policy days, early closings), so that the
deadline engine reuses one instance per office and version across calls and its per-year closed
days are computed once; a change to any of them gives a new key.
"""
from __future__ import annotations

import bisect
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from valuation.core.calendar import (
    HOLIDAY,
    LOCAL,
    OPEN,
    POLICY,
    POLICY_DAY_LABELS,
    RECORD,
    WEEKDAY_NAMES,
    BusinessCalendar,
    CalendarRecord,
    yearly_early_closing,
)
from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.forms import Form
from valuation.core.money import format_date_br
from valuation.db.access import Principal, require
from valuation.db.store import Tx, store_of
from valuation.policies.defaults import CALENDAR_KEYS
from valuation.policies.values import PolicyTimeline, timelines

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.store import Store

__all__ = ["KIND_LABELS", "POLICY_DAY_LABELS", "CalendarBook", "add_early_closing", "add_local_holiday",
           "business_days_by_month", "calendar_book", "closed_days", "list_early_closings", "list_local_holidays",
           "office_calendar", "office_calendars", "remove_early_closing", "remove_local_holiday"]

MIN_HOLIDAY_YEAR, MAX_HOLIDAY_YEAR = 1900, 2100   # a local holiday outside these is a typing error
MAX_HOLIDAY_NAME = 100
EARLY, OPENED = "early", "opened"
NATIONAL = "BR"   # a calendar record of every office (the federal calendar)
KIND_LABELS: dict[str, str] = {HOLIDAY: "feriado nacional/estadual", LOCAL: "feriado municipal",
                               POLICY: "ponto facultativo", "weekend": "fim de semana",
                               EARLY: "expediente encerrado mais cedo", RECORD: "sem expediente (registro da DPC)",
                               OPENED: "dia útil (registro da DPC)"}
HOLIDAY_FIELDS: tuple[str, ...] = ("office_code", "day", "name")

_CACHE_LIMIT = 2048
_cache: dict[tuple[Any, ...], BusinessCalendar] = {}
_cache_lock = threading.Lock()


def _calendar(state: str | None, local: tuple[tuple[date, str], ...], policy: tuple[str, ...],
              early: tuple[tuple[date, str], ...], yearly: tuple[tuple[int, int, str], ...],
              records: tuple[CalendarRecord, ...] = ()) -> BusinessCalendar:
    key = (state, local, policy, early, yearly, records)
    with _cache_lock:
        cal = _cache.get(key)
        if cal is None:
            if len(_cache) >= _CACHE_LIMIT:
                _cache.clear()
            cal = _cache[key] = BusinessCalendar(state, local, policy, early, yearly=yearly, records=records)
    return cal


@dataclass(frozen=True)
class CalendarBook:
    """The offices' calendars through time: `at(office, day)` is the calendar in force on `day`
    (the pontos facultativos and early closings of the policies in force that day)."""

    states: Mapping[str, str | None]
    local: Mapping[str, tuple[tuple[date, str], ...]]
    early: Mapping[str, tuple[tuple[date, str], ...]]
    policy_days: PolicyTimeline
    early_closing_days: PolicyTimeline
    records: Mapping[str, tuple[CalendarRecord, ...]] = field(default_factory=dict)   # office → the days DPC fixed
    _memo: dict[tuple[str, int, int], BusinessCalendar] = field(default_factory=dict, compare=False, repr=False)

    @property
    def offices(self) -> tuple[str, ...]:
        return tuple(sorted(self.states))

    def changes(self) -> tuple[date, ...]:
        """The days on which some office's calendar may change (a policy version starts)."""
        return tuple(sorted(set(self.policy_days.changes()) | set(self.early_closing_days.changes())))

    def version(self, day: date) -> int:
        """Which version of the policies applies on `day` (0 before any change): equal numbers, equal calendars."""
        return bisect.bisect_right(self.changes(), day)

    def at(self, office: str, day: date) -> BusinessCalendar:
        """The calendar of `office` in force on `day`; KeyError for an office the book does not hold."""
        key = (office, bisect.bisect_right(self.policy_days.starts, day),
               bisect.bisect_right(self.early_closing_days.starts, day))
        cal = self._memo.get(key)
        if cal is None:
            policy = tuple(self.policy_days.at(day).value)
            yearly = yearly_early_closing(self.early_closing_days.at(day).value)
            cal = self._memo[key] = _calendar(self.states[office], self.local.get(office, ()), policy,
                                              self.early.get(office, ()), yearly, self.records.get(office, ()))
        return cal

    def only(self, offices: list[str]) -> CalendarBook:
        """The book of `offices` alone (codes it does not hold are left out), sharing the calendars built."""
        wanted = set(offices)
        return CalendarBook({k: v for k, v in self.states.items() if k in wanted},
                            {k: v for k, v in self.local.items() if k in wanted},
                            {k: v for k, v in self.early.items() if k in wanted},
                            self.policy_days, self.early_closing_days,
                            {k: v for k, v in self.records.items() if k in wanted}, self._memo)

    def all_at(self, day: date) -> dict[str, BusinessCalendar]:
        return {code: self.at(code, day) for code in self.states}


def _grouped(rows: list[dict[str, Any]]) -> dict[str, tuple[tuple[date, str], ...]]:
    out: dict[str, list[tuple[date, str]]] = {}
    for r in rows:
        out.setdefault(r["office_code"], []).append((r["day"], r["name"]))
    return {k: tuple(v) for k, v in out.items()}


def calendar_book(db: Store | Tx, offices: list[str] | None = None) -> CalendarBook:
    """Every office's calendar through time (three queries plus the policies, whatever the number of offices;
    kept for the Store's revision, `Store.memo`: a view of Prazos asked for it four times)."""
    if isinstance(db, Tx):
        return _read_calendar_book(db, offices)
    book = db.memo(("calendar_book",), lambda: _read_calendar_book(db, None))
    if offices is None:
        return book
    return book.only(offices)


def _read_calendar_book(db: Store | Tx, offices: list[str] | None) -> CalendarBook:
    where, params = ("", [])
    if offices is not None:
        where = f"WHERE code IN ({', '.join('?' for _ in offices)})" if offices else "WHERE FALSE"
        params = list(offices)
    states = {r["code"]: r["state"] for r in db.fetch(f"SELECT code, state FROM offices {where}", params)}
    owhere = where.replace("code", "office_code")
    local = _grouped(db.fetch(f"SELECT office_code, day, name FROM local_holidays {owhere} "
                              "ORDER BY office_code, day", params))
    store = store_of(db)
    early = _grouped(db.fetch(f"SELECT office_code, day, name FROM office_early_closings {owhere} "
                              "ORDER BY office_code, day", params)) if store.has_table("office_early_closings") else {}
    lines = timelines(db, CALENDAR_KEYS)
    records = _records_by_office(db, list(states)) if store.has_table("calendar_records") else {}
    return CalendarBook(states, local, early, lines["policy_days"], lines["early_closing_days"], records)


def _records_by_office(db: Store | Tx, offices: list[str]) -> dict[str, tuple[CalendarRecord, ...]]:
    """office → the records in force (not withdrawn) of its calendar: the national ones and its own, its own winning
    on the same day."""
    rows = db.fetch("SELECT scope, day, effect, name, source, moved_from FROM calendar_records "
                    "WHERE withdrawn_at IS NULL ORDER BY day, id")
    national = {r["day"]: CalendarRecord(r["day"], r["effect"], r["name"], r["source"], r["moved_from"])
                for r in rows if r["scope"] == NATIONAL}
    out: dict[str, tuple[CalendarRecord, ...]] = {}
    for office in offices:
        own = {r["day"]: CalendarRecord(r["day"], r["effect"], r["name"], r["source"], r["moved_from"])
               for r in rows if r["scope"] == office}
        merged = {**national, **own}
        if merged:
            out[office] = tuple(merged[d] for d in sorted(merged))
    return out


def office_calendars(store: Store | Tx, offices: list[str] | None = None, *,
                     on: date | None = None) -> dict[str, BusinessCalendar]:
    """office code → its BusinessCalendar in force on `on` (default: today)."""
    day = on or store_of(store).today()
    return calendar_book(store, offices).all_at(day)


def office_calendar(store: Store | Tx, office_code: str, *, on: date | None = None) -> BusinessCalendar:
    """The calendar of one office in force on `on` (default: today); NotFound for an unknown code."""
    cals = office_calendars(store, [office_code], on=on)
    if office_code not in cals:
        raise NotFound(f"Capitania/Delegacia/Agência {office_code} não encontrada.", what="office", key=office_code)
    return cals[office_code]


def _year(year: object) -> int:
    if isinstance(year, bool) or not isinstance(year, int) or not MIN_HOLIDAY_YEAR <= year <= MAX_HOLIDAY_YEAR:
        raise InputError(Problem("year", f"Ano: deve estar entre {MIN_HOLIDAY_YEAR} e {MAX_HOLIDAY_YEAR}."))
    return year


def _book_of(store: Store, office_code: str) -> CalendarBook:
    book = calendar_book(store, [office_code])
    if office_code not in book.states:
        raise NotFound(f"Capitania/Delegacia/Agência {office_code} não encontrada.", what="office", key=office_code)
    return book


def closed_days(store: Store, user: Principal, office_code: str, year: int, *,
                weekends: bool = False) -> pd.DataFrame:
    """Days of `year` without office hours at the office, or on which it closes early: day,
    weekday, kind, kind_label, reason — each day as the calendar in force that day says.
    Weekends are left out unless `weekends` (they are every Saturday and Sunday)."""
    import pandas as pd

    require(user, "read_offices")
    book = _book_of(store, office_code)
    rows = []
    day = date(_year(year), 1, 1)
    while day.year == year:
        cal = book.at(office_code, day)
        info = cal.closed_info(day)
        if info is not None and (info.kind != "weekend" or weekends):
            rows.append((day, WEEKDAY_NAMES[day.weekday()], info.kind, KIND_LABELS[info.kind], info.reason))
        elif info is None and cal.is_early_closing(day):
            rows.append((day, WEEKDAY_NAMES[day.weekday()], EARLY, KIND_LABELS[EARLY],
                         f"{cal.early_closing_name(day)} (conta como dia útil; um prazo que vence nele passa ao dia "
                         "útil seguinte)"))
        elif info is None and day.weekday() < 5 and (opened := _opened(cal, day)) is not None:
            rows.append((day, WEEKDAY_NAMES[day.weekday()], OPENED, KIND_LABELS[OPENED], opened))
        day += timedelta(days=1)
    return pd.DataFrame(rows, columns=["day", "weekday", "kind", "kind_label", "reason"])


def _opened(cal: BusinessCalendar, day: date) -> str | None:
    """Why a day the library or a policy would close has office hours by a DPC record (with its source), or None."""
    r = cal.records.get(day)
    if r is not None and r.effect == OPEN:
        return f"{r.name}: feriado desligado — {r.source}"
    moved = next((m for m in cal.records.values() if m.moved_from == day), None)
    return None if moved is None else f"transferido para {format_date_br(moved.day)} — {moved.source}"


def business_days_by_month(store: Store, user: Principal, office_code: str, year: int) -> pd.DataFrame:
    """month (1–12), business_days, closed_weekdays: for the calendar page's summary."""
    import pandas as pd

    require(user, "read_offices")
    book = _book_of(store, office_code)
    counts = {m: [0, 0] for m in range(1, 13)}
    day = date(_year(year), 1, 1)
    while day.year == year:
        if day.weekday() < 5:
            counts[day.month][0 if book.at(office_code, day).is_business_day(day) else 1] += 1
        day += timedelta(days=1)
    return pd.DataFrame([(m, b, c) for m, (b, c) in counts.items()],
                        columns=["month", "business_days", "closed_weekdays"])


# -- the offices' own days (DPC) ---------------------------------------------------------------------------
_TABLES = {"local_holidays": ("feriado municipal", "Data do feriado", "Nome do feriado", "local_holiday"),
           "office_early_closings": ("encerramento antecipado", "Data do encerramento antecipado", "Motivo",
                                     "early_closing")}


def _list_days(store: Store, table: str, office_code: str | None) -> pd.DataFrame:
    where, params = ("WHERE office_code = ?", [office_code]) if office_code else ("", [])
    return store.fetch_df(f"SELECT office_code, day, name FROM {table} {where} ORDER BY office_code, day", params)


def list_local_holidays(store: Store, user: Principal, office_code: str | None = None) -> pd.DataFrame:
    """office_code, day, name — ordered by office and day."""
    require(user, "read_offices")
    return _list_days(store, "local_holidays", office_code)


def list_early_closings(store: Store, user: Principal, office_code: str | None = None) -> pd.DataFrame:
    """The offices' own early-closing dates (Lei 9.784 art. 66 §1): office_code, day, name."""
    require(user, "read_offices")
    return _list_days(store, "office_early_closings", office_code)


def _check_day(store: Store, f: Form, table: str, office: str | None, day: date | None) -> None:
    what, day_label = _TABLES[table][:2]
    if day is not None and not MIN_HOLIDAY_YEAR <= day.year <= MAX_HOLIDAY_YEAR:
        f.fail("day", f"{day_label}: o ano deve estar entre {MIN_HOLIDAY_YEAR} e {MAX_HOLIDAY_YEAR}.")
        return
    if office is None:
        return
    if store.scalar("SELECT count(*) FROM offices WHERE code = ?", [office]) == 0:
        f.fail("office_code", f"Capitania/Delegacia/Agência desconhecida: {office}.")
        return
    if day is None:
        return
    if store.scalar(f"SELECT count(*) FROM {table} WHERE office_code = ? AND day = ?", [office, day]):
        f.fail("day", f"{day_label}: {format_date_br(day)} já é {what} de {office}.")
        return
    info = office_calendar(store, office, on=day).closed_info(day)
    if info is not None and (table == "office_early_closings" or info.kind in (HOLIDAY, POLICY)):
        f.fail("day", f"{day_label}: {format_date_br(day)} já não tem expediente ({info.reason}).")


def _add_day(store: Store, user: Principal, table: str, data: Mapping[str, Any]) -> dict[str, Any]:
    require(user, "manage_calendars")
    _what, day_label, name_label, entity = _TABLES[table]
    f = Form(data, allowed=HOLIDAY_FIELDS)
    office = f.text("office_code", "Capitania/Delegacia/Agência", max_len=20)
    day = f.date("day", day_label)
    name = f.text("name", name_label, max_len=MAX_HOLIDAY_NAME)
    _check_day(store, f, table, office, day)
    f.done()
    assert day is not None
    row = {"office_code": office, "day": day, "name": name}

    def write(tx: Tx) -> None:
        tx.execute(f"INSERT INTO {table} (office_code, day, name) VALUES (?, ?, ?)", [office, day, name])
        tx.audit(f"add_{entity}", entity, f"{office}:{day.isoformat()}", None, row)

    store.write(user.username, write)
    return row


def _remove_day(store: Store, user: Principal, table: str, office_code: str, day: date) -> dict[str, Any]:
    require(user, "manage_calendars")
    what, _day_label, _name, entity = _TABLES[table]

    def write(tx: Tx) -> dict[str, Any]:
        before = tx.fetch_one(f"SELECT office_code, day, name FROM {table} WHERE office_code = ? AND day = ?",
                              [office_code, day])
        if before is None:
            raise NotFound(f"{office_code} não tem {what} em {format_date_br(day)}.", what=entity,
                           key=(office_code, day))
        tx.execute(f"DELETE FROM {table} WHERE office_code = ? AND day = ?", [office_code, day])
        tx.audit(f"remove_{entity}", entity, f"{office_code}:{day.isoformat()}", before, None)
        return before

    return store.write(user.username, write)


def add_local_holiday(store: Store, user: Principal, data: Mapping[str, Any]) -> dict[str, Any]:
    """Add a municipal holiday to an office (dpc only; validated and audited).

    `data`: office_code, day (date or 'dd/mm/aaaa'), name. Refused: an unknown office, a
    year outside 1900–2100, an empty or long name, a day the office already has as a
    local holiday, and a day that is already closed for another reason (a national/state
    holiday or a policy day: the local row would change nothing)."""
    return _add_day(store, user, "local_holidays", data)


def remove_local_holiday(store: Store, user: Principal, office_code: str, day: date) -> dict[str, Any]:
    """Remove a municipal holiday (dpc only; audited); returns the row removed. NotFound when there is none."""
    return _remove_day(store, user, "local_holidays", office_code, day)


def add_early_closing(store: Store, user: Principal, data: Mapping[str, Any]) -> dict[str, Any]:
    """Add one of the office's own early-closing dates (Lei 9.784 art. 66 §1: "expediente encerrado
    antes da hora normal"; dpc only; validated and audited): office_code, day, name (why). A day
    without office hours is refused (it already moves a deadline)."""
    return _add_day(store, user, "office_early_closings", data)


def remove_early_closing(store: Store, user: Principal, office_code: str, day: date) -> dict[str, Any]:
    """Remove one of the office's early-closing dates (dpc only; audited); returns the row removed."""
    return _remove_day(store, user, "office_early_closings", office_code, day)
