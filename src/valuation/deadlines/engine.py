"""The deadline engine over the database: every deadline of rules.md §7 the user may read, with its state.

The rules themselves are the pure functions of `valuation.deadlines.rules` (one per rule, each
returning `Deadline(rule, due, basis, moved_from, steps)`), listed with their labels and NORMAM-10
parameters in the one table `valuation.deadlines.rule_specs.RULES`; the engine gathers their inputs
from the store and states where each deadline stands on `as_of`. The work is split by subject (each
rule's entry names its builder, `source`):

    contract_rows   monthly and final reports, start of operations, extension request, automatic
                    cancellation, appeals against the contract's decisions (explorers: their own)
    wreck_rows      the owner's five years, the Maritime Court track, removal orders, owner's balances
    event_rows      wreck maps per office, preference notices, recoveries, excursions, found things
    rows            the parameter book (NORMAM-10 and calendars through time), the memoised rules,
                    the row builder and the reader's scope
    frames          what the dashboard, the feeds and the digest derive from the frame

Where the inputs come from
    contracts        starts_on / signed_on, expires_on, work_ended_on, cancelled_on, status, kind, office,
                     the co-signature of art. 20 §1 (co_signatures, migration 013)
    wrecks           casualty date (with its precision), owner_declared_lost, owner_licence_requested,
                     court_known_on; wreck_suspensions (the removal orders' included); removal_orders;
                     owner_balances
    deadline_events  append-only events (vocabulary.EVENT_KINDS); a correction is a new row with
                     `supersedes` (and `voided` to withdraw)
    found_things     things found and handed in (`valuation.inventory.found_things`)
    deadline_waivers waivers (dispensas) with their reason, by deadline key
    policies         `due_soon_days` and `court_pending_suspends_lapse` in force on `as_of`; the NORMAM-10
                     parameters and the calendar in force on the day each period starts

Nothing is materialised: every call recomputes from the current rows, so a new event changes the
result of the next call and there is no cache to invalidate. Speed comes from reading each table
once, one `BusinessCalendar` per office and policy version (cached by content) and memoising each
rule per (calendar, input, parameters).

States (rules.md §7): `upcoming`, `due_soon` (policy `due_soon_days`), `overdue`, `met` (with the
date; `late` when met after the due date), `waived` (a DPC waiver or a fact that makes the deadline
moot, with the reason) and `suspended` (a suspended contract or one not in force, a suspension of
the five years running on `as_of`, with the reason).

Access (`valuation.db.access`): `read_deadlines` (dpc and explorers); `read_all_deadlines` (dpc)
reads every deadline, an explorer only those of its own organisation's contracts and of the
excursions it notified.
"""
from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from valuation.core.errors import InputError, Problem, StoreError
from valuation.core.money import format_date_br
from valuation.db.access import Principal
from valuation.deadlines.contract_rows import add_contract_rows
from valuation.deadlines.event_rows import add_event_rows, add_found_rows, add_wreck_map_rows
from valuation.deadlines.rows import DUE, ParameterBook, Rows, scope
from valuation.deadlines.rule_specs import CONTRACT_RULES, COURT_RULES, RULE_LABELS, WRECK_RULES
from valuation.deadlines.states import PENDING_STATES, STATE_LABELS, STATES
from valuation.deadlines.vocabulary import (
    COLUMNS,
    CURRENT_EVENTS,
    CURRENT_WAIVERS,
    DEADLINE_MET,
    EVENT_KIND_BY_KEY,
    EVENT_KINDS,
    EventKind,
    month_key,
)
from valuation.deadlines.wreck_rows import add_wreck_rows
from valuation.policies.values import values_in_force

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.store import Store

__all__ = [
    "COLUMNS", "CONTRACT_RULES", "COURT_RULES", "CURRENT_EVENTS", "CURRENT_WAIVERS", "EVENT_KINDS", "EVENT_KIND_BY_KEY",
    "MAX_AS_OF", "MIN_AS_OF", "PENDING_STATES", "RULE_LABELS", "STATES", "STATE_LABELS", "WRECK_RULES", "EventKind",
    "check_as_of", "compute_deadlines", "month_key", "require_schema",
]

MIN_AS_OF, MAX_AS_OF = date(1900, 1, 1), date(2100, 12, 31)   # the calendars' years; beyond them, a typing error
AS_OF_LABEL = "Data de referência"


def check_as_of(as_of: object) -> date:
    """`as_of` as a date within MIN_AS_OF–MAX_AS_OF, else InputError naming the field."""
    if isinstance(as_of, date) and not hasattr(as_of, "hour") and MIN_AS_OF <= as_of <= MAX_AS_OF:
        return as_of
    raise InputError(Problem("as_of", f"{AS_OF_LABEL}: informe uma data entre {format_date_br(MIN_AS_OF)} e "
                                      f"{format_date_br(MAX_AS_OF)}."))


def require_schema(store: Store) -> None:
    """StoreError when the database predates migration 004 (e.g. opened read-only, unmigrated)."""
    if not store.has_table("deadline_events"):
        raise StoreError(f"the database {store.path} has no deadline tables (migration 004): open it once "
                         f"with write access to migrate it, e.g. python -m valuation db init --db {store.path}")


def compute_deadlines(store: Store, user: Principal, *, as_of: date, office: str | None = None,
                      contract_code: str | None = None, organisation_id: int | None = None) -> pd.DataFrame:
    """Every deadline of rules.md §7 that the user may read, stated on `as_of`.

    One row per deadline, ordered by due date (a deadline without one — a clock stopped — last),
    with the columns of `COLUMNS`: key (stable: 'monthly_report:A-1:2025-03', also the iCalendar
    UID), rule, label_pt, contract_code, organisation, wreck (code), wreck_name, office_code, uf and
    naval_district (of the office), start (the day the count starts), due, raw_due (before any move
    for a non-business day), moved_from (None when not moved), state (`STATES`), state_pt, met_on,
    late, reason (pt-BR), basis (the articles), steps (the explanation, one line per step),
    contract_id, wreck_id, organisation_id.

    Filters: `office` (code), `contract_code` (only that contract's deadlines), `organisation_id`
    (dpc: one explorer's deadlines; an explorer always gets its own). AccessDenied for roles other
    than dpc and explorer; InputError for an `as_of` outside 1900–2100.
    """
    import pandas as pd

    sc = scope(user, office, contract_code, organisation_id)
    as_of = check_as_of(as_of)
    require_schema(store)
    policies = values_in_force(store, ("due_soon_days", "court_pending_suspends_lapse"), as_of=as_of)
    offices = {r["code"]: r for r in store.fetch("SELECT code, name, state, naval_district FROM offices")}
    book = ParameterBook.load(store)
    waivers = {r["deadline_key"]: r["reason"] for r in store.fetch(
        f"SELECT deadline_key, arg_max(reason, id) AS reason FROM {CURRENT_WAIVERS} w GROUP BY deadline_key")}
    met_keys = {r["reference"]: r["first"] for r in store.fetch(
        f"SELECT reference, min(event_date) AS first FROM {CURRENT_EVENTS} e WHERE kind = ? GROUP BY reference",
        [DEADLINE_MET])}
    rows = Rows(as_of, int(policies["due_soon_days"]), waivers, met_keys, offices)

    add_contract_rows(rows, book, store, sc, as_of)
    if sc.wrecks:
        add_wreck_rows(rows, book, store, sc, as_of, policies["court_pending_suspends_lapse"] is True)
        add_wreck_map_rows(rows, book, store, sc, as_of)
    if sc.contract_code is None:
        add_event_rows(rows, book, store, sc, wreck_level=sc.wrecks)
    if sc.wrecks:
        add_found_rows(rows, book, store, sc, as_of)

    # stable: equal dues keep the (deterministic) build order; a due date not known yet goes last
    rows.rows.sort(key=lambda row: row[DUE] or date.max)
    # object columns: dates stay `date`, a missing code stays None (pandas 3 would infer str + NaN)
    return pd.DataFrame(rows.rows, columns=list(COLUMNS), dtype=object)
