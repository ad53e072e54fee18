"""The deadline engine's workbench: the parameters and calendars through time, the memoised rules,
the row builder that states each deadline on `as_of`, and the reader's scope.

`ParameterBook.normam(day)` / `.cal(office, day)` are the NORMAM-10 parameters and the office's
calendar in force on `day`; the engine asks them for the day each deadline's period starts, so a
revision never rewrites a due date already computed for an earlier period. `.deadline(rule, input,
office, day)` computes one rule of the table (valuation.deadlines.rule_specs) with both.
"""
from __future__ import annotations

import bisect
import functools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from valuation.core.calendar import BusinessCalendar
from valuation.core.money import format_date_br
from valuation.db.access import Principal, allowed, chosen_office, chosen_organisation, contract_scope, require
from valuation.deadlines import rules as dl
from valuation.deadlines.calendars import CalendarBook, calendar_book
from valuation.deadlines.params import Normam
from valuation.deadlines.rule_specs import PERIOD_RULES, SPECS
from valuation.deadlines.states import CLOSED_LABEL, STATE_LABELS
from valuation.deadlines.vocabulary import COLUMNS
from valuation.policies.defaults import NORMAM_KEYS
from valuation.policies.values import PolicyTimeline, timelines

if TYPE_CHECKING:
    from valuation.db.store import Store

ONE = timedelta(days=1)
DUE = COLUMNS.index("due")
Subject = tuple[tuple[Any, ...], tuple[Any, ...]]


def fmt(d: date | None) -> str:
    return format_date_br(d)


@dataclass
class ParameterBook:
    """NORMAM-10 parameters and office calendars through time (the policies' versions)."""

    calendars: CalendarBook
    lines: Mapping[str, PolicyTimeline]
    _normam: dict[tuple[int, ...], Normam] = field(default_factory=dict)
    _params: dict[tuple[str, date], tuple[Any, ...]] = field(default_factory=dict)

    @classmethod
    def load(cls, store: Store) -> ParameterBook:
        return cls(calendar_book(store), timelines(store, NORMAM_KEYS))

    def normam(self, day: date) -> Normam:
        """The NORMAM-10 parameters in force on `day`."""
        key = tuple(bisect.bisect_right(self.lines[k].starts, day) for k in NORMAM_KEYS)
        hit = self._normam.get(key)
        if hit is None:
            hit = self._normam[key] = Normam.of({k: self.lines[k].at(day).legal() for k in NORMAM_KEYS})
        return hit

    def cal(self, office: str, day: date) -> BusinessCalendar:
        """The office's calendar in force on `day`."""
        return self.calendars.at(office, day)

    def parameters(self, rule_key: str, day: date) -> tuple[Any, ...]:
        """The NORMAM-10 values rule `rule_key` takes (its `RuleSpec.normam`), in force on `day`."""
        hit = self._params.get((rule_key, day))
        if hit is None:
            normam = self.normam(day)
            hit = self._params[(rule_key, day)] = tuple(normam[k] for k in SPECS[rule_key].normam)
        return hit

    def deadline(self, rule_key: str, arg: Any, office: str, day: date) -> tuple[Any, str]:
        """Rule `rule_key` (valuation.deadlines.rule_specs) on `arg`, with the office's calendar and the
        NORMAM-10 values it takes, both in force on `day` (the day its period starts): memoised
        (the deadline, its steps joined)."""
        return rule(SPECS[rule_key].fn, arg, self.cal(office, day), *self.parameters(rule_key, day))

    @property
    def offices(self) -> tuple[str, ...]:
        return self.calendars.offices


# -- memoised rules -----------------------------------------------------------------------------------
_MEMO_LIMIT = 500_000
_memo: dict[tuple[Any, ...], tuple[Any, str]] = {}
_memo_lock = threading.Lock()


def rule(fn: Callable[..., Any], arg: Any, cal: BusinessCalendar, *params: Any) -> tuple[Any, str]:
    """fn(arg, cal, *params) with its steps joined, memoised per (calendar instance, rule, input,
    parameters). Calendars are cached by content (valuation.deadlines.calendars), so an edited local
    holiday or policy gives a new calendar instance and therefore new entries (the calendar is part
    of the key by identity: the memo keeps it alive)."""
    key = (cal, fn.__name__, arg, params)
    hit = _memo.get(key)
    if hit is not None:
        return hit
    d = fn(arg, cal, *params)
    value = (d, "\n".join(d.steps))
    with _memo_lock:
        if len(_memo) >= _MEMO_LIMIT:
            _memo.clear()
        _memo[key] = value
    return value


@functools.lru_cache(maxsize=65536)
def months(first: date, last: date) -> tuple[date, ...]:
    """The first day of every month from `first`'s to `last`'s (inclusive)."""
    out: list[date] = []
    m = date(first.year, first.month, 1)
    end = date(last.year, last.month, 1)
    while m <= end:
        out.append(m)
        m = date(m.year + (m.month == 12), m.month % 12 + 1, 1)
    return tuple(out)


# -- the builder ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """Where one deadline stands: `lapses` (closed on, state_pt, reason) is a period that ends by
    running out (the five-year lapse of arts. 6–7, the owner's balance): once past due it is a
    state ('met' on the day it closed, read as `state_pt`), not an overdue task."""

    met_on: date | None = None
    moot: str | None = None
    suspended: str | None = None
    overdue_reason: str | None = None
    closed_by: str | None = None
    lapses: tuple[date, str, str] | None = None


class Rows:
    """Collects deadline rows (tuples in COLUMNS order) and states them on `as_of`."""

    def __init__(self, as_of: date, due_soon_days: int, waivers: Mapping[str, str], met_keys: Mapping[str, date],
                 offices: Mapping[str, dict[str, Any]]) -> None:
        self.as_of = as_of
        self.due_soon_days = due_soon_days
        self.waivers = waivers
        self.met_keys = met_keys
        self.offices = offices
        self.rows: list[tuple[Any, ...]] = []

    def subject(self, office_code: str, *, contract: Mapping[str, Any] | None = None,
                wreck: tuple[int | None, str | None, str | None] = (None, None, None),
                organisation: tuple[int | None, str | None] = (None, None)) -> Subject:
        """Who/where a deadline is about, computed once per contract, wreck or event."""
        office = self.offices.get(office_code) or {}
        c = contract or {}
        return ((c.get("code"), c.get("organisation") or organisation[1], wreck[1], wreck[2], office_code,
                 office.get("state"), office.get("naval_district")),
                (c.get("id"), wreck[0], c.get("organisation_id") or organisation[0]))

    def add(self, key: str, rule_name: str, label: str, d: dl.Deadline | dl.Window, steps: str, subject: Subject,
            start: date | None, met_on: date | None = None, *, moot: str | None = None,
            suspended: str | None = None, overdue_reason: str | None = None, closed_by: str | None = None,
            lapses: tuple[date, str, str] | None = None) -> None:
        """Add one deadline of rule `rule_name` (a key of valuation.deadlines.rule_specs.SPECS: KeyError
        for a rule the table lacks), stated on `as_of` (see Outcome for the keyword arguments)."""
        if rule_name not in SPECS:
            raise KeyError(f"deadline rule {rule_name!r} is not in valuation.deadlines.rule_specs.RULES")
        due = d.end if isinstance(d, dl.Window) else d.due
        state, state_pt, met, late, reason = self._state(
            key, rule_name, due, Outcome(met_on, moot, suspended, overdue_reason, closed_by, lapses))
        moved = d.moved_from
        self.rows.append((key, rule_name, label, *subject[0], start, due, moved or due, moved, state, state_pt,
                          met, late, reason, d.basis, steps, *subject[1]))

    def _state(self, key: str, rule_name: str, due: date | None,
               o: Outcome) -> tuple[str, str, date | None, bool, str]:
        """(state, state_pt, met_on, late, reason) of one deadline on `as_of`."""
        met_on = o.met_on if o.met_on is not None else self.met_keys.get(key)
        if met_on is not None and met_on > self.as_of:
            met_on = None  # recorded for a later day: not met yet on as_of
        waived = self.waivers.get(key) or (o.moot if met_on is None else None)
        suspended = o.suspended
        if due is None:  # a clock stopped with no end (open suspension): no due date yet
            state = "waived" if waived else ("met" if met_on is not None else "suspended")
            suspended = suspended or "prazo suspenso, sem data final"
        else:
            state = dl.deadline_state(due, self.as_of, met_on, waived, due_soon_days=self.due_soon_days)
        late, state_pt = False, None
        if state == "met" and rule_name in PERIOD_RULES:
            reason = f"encerrado em {fmt(met_on)}" + (f" ({o.closed_by})" if o.closed_by else "")
        elif state == "met" and met_on is not None:
            late = due is not None and met_on > due
            reason = f"cumprido em {fmt(met_on)}"
            if late and due is not None:
                reason += f", com atraso de {(met_on - due).days} dia(s)"
        elif state == "waived":
            reason = str(waived)
        elif suspended:
            state, reason = "suspended", suspended
        elif state == "overdue" and o.lapses is not None:
            state, (met_on, state_pt, reason) = "met", o.lapses
        elif state == "overdue" and due is not None:
            reason = o.overdue_reason or f"vencido há {(self.as_of - due).days} dia(s)"
        else:
            days = (due - self.as_of).days if due is not None else 0
            reason = "vence hoje" if days == 0 else f"vence em {days} dia(s)"
        if state_pt is None:
            state_pt = CLOSED_LABEL if state == "met" and rule_name in PERIOD_RULES else STATE_LABELS[state]
        return state, state_pt, met_on, late, reason


# -- who reads what -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Scope:
    """What one reader may see: `whole` (every wreck-, office- and event-level deadline: dpc) or
    only its contracts (`contract_sql`, from valuation.db.access.contract_scope)."""

    whole: bool
    office: str | None
    contract_code: str | None
    organisation_id: int | None
    contract_sql: str
    contract_params: list[Any]

    @property
    def wrecks(self) -> bool:
        """True when the wreck-, office- and event-level deadlines are in scope."""
        return self.whole and self.contract_code is None and self.organisation_id is None


def scope(user: Principal, office: str | None, contract_code: str | None, organisation_id: int | None) -> Scope:
    """The reader's scope; AccessDenied for a role that reads no deadline. An explorer's
    `organisation_id` is always its own (whatever it asks for)."""
    require(user, "read_deadlines")
    office = chosen_office(user, office)   # an office officer reads its own office's alone
    sql, params = contract_scope(user, "c")
    clauses, params = [sql], list(params)
    if office:
        clauses.append("c.office_code = ?")
        params.append(office)
    if contract_code:
        clauses.append("c.code = ?")
        params.append(contract_code)
    whole = allowed(user, "read_all_deadlines")
    org = chosen_organisation(user, organisation_id, any_with="read_all_deadlines")
    if org is not None:
        clauses.append("c.organisation_id = ?")
        params.append(org)
    return Scope(whole, office or None, contract_code or None, org, " AND ".join(clauses), params)
