"""The calendar DPC keeps: dated records, each with its source, that fix one day of the offices' business-day
calendar (issue 44; Lei 9.784/1999 art. 66 §1; migration 077; docs/decisions/104-calendar-records.md).

The `holidays` library knows the laws' holidays, but not the yearly federal calendar (Portaria MGI nº 9.783/2024:
20/06/2025 without office hours, the Dia do Servidor moved from 28/10 to 27/10/2025), and it gives some states
holidays that a state may not declare for federal offices (Lei 9.093/1995 art. 1º II: only its "data magna").
So DPC records:

- for every office (`scope` 'BR'): a day without office hours (`kind` 'closed') or a closure moved from one day to
  another ('moved': the new day closed, the old one open);
- for one office (`scope` its code): a library holiday switched off ('open': a business day) or a day switched on
  ('closed');

each with its name and its source (the act). A record is never deleted: `withdraw_calendar_record` keeps who, when
and why. Every change is audited. The calendars read the records in force (`calendars.calendar_book`), every count
crossing a recorded day says so in its explanation (`counting.edited_note`).

Access: `manage_calendars` (DPC) writes, `read_offices` reads.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core import clock
from valuation.core.calendar import CLOSED, HOLIDAY, OPEN, BusinessCalendar, CalendarRecord
from valuation.core.errors import NotFound
from valuation.core.forms import Form, excerpt
from valuation.core.money import format_date_br as fmt
from valuation.db.access import Principal, require
from valuation.deadlines.calendars import (
    MAX_HOLIDAY_YEAR,
    MIN_HOLIDAY_YEAR,
    NATIONAL,
    calendar_book,
    office_calendar,
)

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

KINDS: dict[str, str] = {
    "closed": "Dia sem expediente",
    "moved": "Dia sem expediente transferido de outro dia",
    "open": "Feriado da biblioteca desligado (dia útil)",
}
EFFECTS: dict[str, str] = {CLOSED: "sem expediente", OPEN: "com expediente (feriado da biblioteca desligado)"}
NATIONAL_KINDS = ("closed", "moved")          # the federal calendar: closures and moved days
OFFICE_KINDS = ("closed", "open")             # one office: a day switched on, a library holiday switched off
NATIONAL_LABEL = "Todas as OM (calendário federal)"
LABELS: dict[str, str] = {"scope": "Abrangência", "kind": "Registro", "day": "Data", "moved_from": "Transferido de",
                          "name": "Nome do dia", "source": "Fonte (ato que o fixa)",
                          "reason": "Motivo da retirada"}
FIELDS = ("scope", "kind", "day", "moved_from", "name", "source")
MAX_NAME, MIN_SOURCE, MAX_SOURCE, MIN_REASON, MAX_REASON = 100, 5, 300, 10, 500
MIN_YEAR, MAX_YEAR = MIN_HOLIDAY_YEAR, MAX_HOLIDAY_YEAR   # a day outside them is a typing error


def scope_label(scope: str) -> str:
    return NATIONAL_LABEL if scope == NATIONAL else scope


def _day(f: Form, key: str, *, required: bool = True) -> date | None:
    day = f.date(key, LABELS[key], required=required)
    if day is not None and not MIN_HOLIDAY_YEAR <= day.year <= MAX_HOLIDAY_YEAR:
        f.fail(key, f"{LABELS[key]}: o ano deve estar entre {MIN_HOLIDAY_YEAR} e {MAX_HOLIDAY_YEAR}.")
        return None
    return day


def _scope(store: Store, f: Form) -> str | None:
    scope = f.text("scope", LABELS["scope"], max_len=20)
    if scope is not None and scope != NATIONAL and not store.scalar("SELECT count(*) FROM offices WHERE code = ?",
                                                                     [scope]):
        f.fail("scope", f"{LABELS['scope']}: Capitania/Delegacia/Agência desconhecida ({excerpt(scope)}).")
        return None
    return scope


def _calendar_of(store: Store, scope: str, day: date) -> BusinessCalendar:
    """The calendar a record of `scope` is checked against: the office's in force on `day`, or — national — the
    country's: the library's national holidays, the policy days in force on `day` and the national records."""
    if scope != NATIONAL:
        return office_calendar(store, scope, on=day)
    national = [CalendarRecord(r["day"], r["effect"], r["name"], r["source"], r["moved_from"]) for r in store.fetch(
        "SELECT day, effect, name, source, moved_from FROM calendar_records WHERE scope = ? AND withdrawn_at IS NULL",
        [NATIONAL])]
    return BusinessCalendar(None, policy_days=tuple(calendar_book(store).policy_days.at(day).value), records=national)


def _check(store: Store, f: Form, scope: str, kind: str, day: date, moved_from: date | None) -> None:
    if kind not in (NATIONAL_KINDS if scope == NATIONAL else OFFICE_KINDS):
        allowed = NATIONAL_KINDS if scope == NATIONAL else OFFICE_KINDS
        f.fail("kind", f"{LABELS['kind']}: para {scope_label(scope)} cabe " + " ou ".join(
            KINDS[k].lower() for k in allowed) + ".")
        return
    if store.scalar("SELECT count(*) FROM calendar_records WHERE scope = ? AND day = ? AND withdrawn_at IS NULL",
                    [scope, day]):
        f.fail("day", f"{LABELS['day']}: {fmt(day)} já tem registro em vigor para {scope_label(scope)}; retire-o "
                      "antes de registrar outro.")
        return
    info = _calendar_of(store, scope, day).closed_info(day)
    if kind == "open":
        if info is None or info.kind != HOLIDAY:
            f.fail("day", f"{LABELS['day']}: {fmt(day)} não é feriado da biblioteca em {scope} "
                          f"({info.reason if info else 'é dia útil'}); só um feriado dela se desliga.")
        return
    if info is not None:
        f.fail("day", f"{LABELS['day']}: {fmt(day)} já não tem expediente ({info.reason}).")
    if kind == "moved":
        if moved_from is None:
            f.fail("moved_from", f"{LABELS['moved_from']}: informe o dia de onde o fechamento foi transferido.")
        elif moved_from == day or moved_from.year != day.year:
            f.fail("moved_from", f"{LABELS['moved_from']}: outro dia do mesmo ano ({day.year}).")
    elif moved_from is not None:
        f.fail("moved_from", f"{LABELS['moved_from']}: só um dia transferido tem a data de origem.")


def add_calendar_record(store: Store, user: Principal, data: Mapping[str, Any]) -> int:
    """Record a day of the calendar with its source (dpc only; validated, audited); returns its id.

    `data`: scope ('BR' — every office — or an office code), kind ('closed', 'moved' with `moved_from`, 'open'),
    day ('dd/mm/aaaa' or a date), name, source. National records close or move a day; an office's closes a day or
    switches off a library holiday. Refused, naming the field: an unknown office, a kind the scope does not take, a
    day already recorded for the scope (withdraw it first), a day already closed (to close it), a day that is not a
    library holiday (to open it), a moved day without its origin or with one in another year, a blank name or a
    source shorter than 5 characters."""
    require(user, "manage_calendars")
    f = Form(data, allowed=FIELDS)
    scope = _scope(store, f)
    kind = f.choice("kind", LABELS["kind"], tuple(KINDS), labels=KINDS)
    day = _day(f, "day")
    moved_from = _day(f, "moved_from", required=False)
    name = f.text("name", LABELS["name"], max_len=MAX_NAME)
    source = f.text("source", LABELS["source"], max_len=MAX_SOURCE)
    if source is not None and len(source.strip()) < MIN_SOURCE:
        f.fail("source", f"{LABELS['source']}: diga o ato que fixa o dia (ao menos {MIN_SOURCE} caracteres).")
    if scope is not None and kind is not None and day is not None and f.ok("moved_from"):
        _check(store, f, scope, kind, day, moved_from)
    f.done()
    assert scope is not None and kind is not None and day is not None
    row = {"scope": scope, "day": day, "effect": OPEN if kind == "open" else CLOSED,
           "moved_from": moved_from if kind == "moved" else None, "name": name, "source": source}

    def write(tx: Tx) -> int:
        new_id = int(tx.scalar(
            "INSERT INTO calendar_records (scope, day, effect, moved_from, name, source, recorded_by, recorded_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [scope, day, row["effect"], row["moved_from"], name, source, user.username, store.now()]))
        tx.audit("add_calendar_record", "calendar_record", new_id, None, {**row, "kind": kind})
        return new_id

    return store.write(user.username, write)


def withdraw_calendar_record(store: Store, user: Principal, record_id: int, reason: str | None) -> dict[str, Any]:
    """Withdraw a record in force, with its reason (dpc only; audited); it stays listed as withdrawn. NotFound for
    an unknown or already withdrawn record; InputError naming `reason` when it is shorter than 10 characters."""
    require(user, "manage_calendars")
    f = Form({"reason": reason}, allowed=("reason",))
    why = f.text("reason", LABELS["reason"], max_len=MAX_REASON)
    if why is not None and len(why.strip()) < MIN_REASON:
        f.fail("reason", f"{LABELS['reason']}: explique a retirada (ao menos {MIN_REASON} caracteres).")
    f.done()
    ok = isinstance(record_id, int) and not isinstance(record_id, bool)

    def write(tx: Tx) -> dict[str, Any]:
        before = tx.fetch_one("SELECT * FROM calendar_records WHERE id = ? AND withdrawn_at IS NULL",
                              [record_id]) if ok else None
        if before is None:
            raise NotFound(f"Registro do calendário {excerpt(record_id)} não encontrado (ou já retirado).",
                           what="calendar_record", key=record_id)
        now = store.now()
        tx.execute("UPDATE calendar_records SET withdrawn_by = ?, withdrawn_at = ?, withdrawn_reason = ? WHERE id = ?",
                   [user.username, now, why, record_id])
        after = {**before, "withdrawn_by": user.username, "withdrawn_at": now, "withdrawn_reason": why}
        tx.audit("withdraw_calendar_record", "calendar_record", record_id, before, after)
        return after

    return store.write(user.username, write)


def calendar_records(store: Store, user: Principal, *, year: int | None = None, scope: str | None = None,
                     in_force: bool = False) -> list[dict[str, Any]]:
    """The records, by day: id, scope, scope_pt, day, effect, kind_pt, moved_from, name, source, recorded_by_pt
    (the person's name) and recorded_pt (the day, in Brasília), withdrawn_at, withdrawn_reason, state_pt ('em vigor'
    or 'retirado em … por …: …'). `year`: the records of that year; `scope`: 'BR' or an office (its own and the
    national ones); `in_force`: not withdrawn."""
    require(user, "read_offices")
    rows = store.fetch(
        "SELECT r.*, coalesce(a.full_name, r.recorded_by) AS recorded_by_pt, "
        "coalesce(b.full_name, r.withdrawn_by) AS withdrawn_by_pt FROM calendar_records r "
        "LEFT JOIN users a ON a.username = r.recorded_by LEFT JOIN users b ON b.username = r.withdrawn_by "
        "WHERE (? IS NULL OR year(r.day) = ?) AND (? IS NULL OR r.scope = ? OR r.scope = ?) "
        "AND (NOT ? OR r.withdrawn_at IS NULL) ORDER BY r.day, r.scope, r.id",
        [year, year, scope, scope, NATIONAL, in_force])
    for r in rows:
        r["scope_pt"] = scope_label(r["scope"])
        r["kind_pt"] = KINDS["open" if r["effect"] == OPEN else "moved" if r["moved_from"] else "closed"]
        r["recorded_pt"] = fmt(clock.brasilia(r["recorded_at"]).date())
        r["state_pt"] = ("em vigor" if r["withdrawn_at"] is None else
                         f"retirado em {fmt(clock.brasilia(r['withdrawn_at']).date())} por {r['withdrawn_by_pt']}: "
                         f"{r['withdrawn_reason']}")
    return rows
