"""The policy in force: the one reader of `policies`, their history, and their changes.

`policies` is append-only: a change is a new row (value, legal reference, who, when, reason,
`effective_from`). A row applies from its `effective_from` (without one — rows written before
migration 009 or by hand — from the day it was set). The value in force of a key on a day D is,
among the rows that apply on D, the one with the latest start, the latest written on a tie;
without such a row, the default of `valuation.policies.defaults`. A stored value that is not a
valid value of its key is never used: the default applies and `PolicyState.unreadable` says why.

    policy_in_force(db, key, as_of=)   the PolicyState on a day (default: today)
    timeline(db, key) / timelines(db, keys)
                                       every version of a key, for computations that look a
                                       value up per period (`PolicyTimeline.at(day)`)
    set_policy(store, user, key, raw, reason, effective_from=, basis=)   DPC records a value

Which day a computation asks for: the NORMAM parameters and the calendar (`DEFAULTS[…].dated`)
the day its period starts (valuation.deadlines.params), so that a change never rewrites a due
date already computed for an earlier period; every other policy the day it is used (a round
takes the Commission's rules in force when it opens, a page the due-soon window of its as-of).
"""
from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from valuation.core import clock, law
from valuation.core.errors import InputError, Problem
from valuation.core.money import format_date_br
from valuation.db.access import Principal, require
from valuation.db.store import store_of
from valuation.policies import fields
from valuation.policies.defaults import DEFAULT_BY_KEY, DEFAULTS

if TYPE_CHECKING:
    import pandas as pd

    from valuation.db.store import Store, Tx

REASON_LABEL = "Motivo da alteração"
BASIS_LABEL = "Referência legal"
EFFECTIVE_LABEL = "Vigência a partir de"
MIN_REASON, MAX_REASON = 10, 1000
MAX_BASIS = 300
MAX_YEARS_AHEAD = 10   # an effective date further ahead is a typing error

_ROWS_SQL = """
SELECT p.id, p.key, p.value_json, p.basis, p.set_by, p.set_at, p.reason, p.effective_from, u.full_name
FROM policies p LEFT JOIN users u ON u.username = p.set_by
WHERE p.key IN ({marks})
ORDER BY p.key, coalesce(p.effective_from, """ + clock.day_sql("p.set_at") + """), p.set_at, p.id"""


@dataclass(frozen=True)
class PolicyState:
    """One policy as it stands on a day: its value (typed and in pt-BR) and where it came from."""
    key: str
    label: str
    description: str
    basis: str
    value: Any
    text: str                       # the value in pt-BR
    is_default: bool
    set_by: str | None = None       # username
    set_by_name: str | None = None  # full name (None when the user no longer exists)
    set_at: datetime | None = None  # naive UTC
    reason: str | None = None
    effective_from: date | None = None
    row_id: int | None = None
    unreadable: str | None = None   # why a stored row was not used (the default applies)

    @property
    def starts(self) -> date | None:
        """The first day this value applies (None for the default: always)."""
        if self.is_default:
            return None
        return self.effective_from or (clock.brasilia(self.set_at).date() if self.set_at else None)

    def legal(self) -> law.LegalValue[Any]:
        """The value as a LegalValue: value, legal reference and the day it applies from."""
        return law.LegalValue(self.value, self.basis, self.starts)


@dataclass(frozen=True)
class PolicyTimeline:
    """Every version of one policy in the order they start: `at(day)` is the one in force on `day`."""
    key: str
    default: PolicyState
    starts: tuple[date, ...] = ()
    states: tuple[PolicyState, ...] = ()

    def at(self, day: date) -> PolicyState:
        i = bisect.bisect_right(self.starts, day)
        return self.states[i - 1] if i else self.default

    def changes(self) -> tuple[date, ...]:
        """The days on which the value in force may change (the starts of the stored versions)."""
        return self.starts


def _today(db: Store | Tx) -> date:
    return store_of(db).today()


def _spec_state(key: str, unreadable: str | None = None) -> PolicyState:
    spec = DEFAULT_BY_KEY[key]
    value = fields.parse(key, fields.form_value(key, spec.value))
    return PolicyState(key=key, label=spec.label, description=spec.description, basis=spec.basis, value=value,
                       text=fields.display(key, value), is_default=True, unreadable=unreadable)


def _state(row: dict[str, Any]) -> PolicyState:
    key = row["key"]
    spec = DEFAULT_BY_KEY[key]
    try:
        value = fields.from_json(key, row["value_json"])
    except ValueError as exc:
        # never used: the default applies in its place, and says why
        set_on = format_date_br(clock.brasilia(row["set_at"]).date())
        return replace(_spec_state(key, unreadable=f"o valor gravado em {set_on} não é válido ({exc}); vale o padrão."),
                       effective_from=row["effective_from"], row_id=int(row["id"]))
    return PolicyState(key=key, label=spec.label, description=spec.description, basis=row["basis"] or spec.basis,
                       value=value, text=fields.display(key, value), is_default=False, set_by=row["set_by"],
                       set_by_name=row["full_name"], set_at=row["set_at"], reason=row["reason"],
                       effective_from=row["effective_from"], row_id=int(row["id"]))


def _check_key(key: str) -> None:
    if key not in DEFAULT_BY_KEY:
        raise InputError(Problem("key", f"Política desconhecida: {str(key)[:60]}."))


def timelines(db: Store | Tx, keys: Iterable[str]) -> dict[str, PolicyTimeline]:
    """key → its PolicyTimeline (one query for all keys; kept for the Store's revision, `Store.memo`)."""
    keys = list(dict.fromkeys(keys))
    for key in keys:
        _check_key(key)
    return dict(db.memo(("policy_timelines", tuple(keys)), lambda: _read_timelines(db, keys)))


def _read_timelines(db: Store | Tx, keys: list[str]) -> dict[str, PolicyTimeline]:
    rows = db.fetch(_ROWS_SQL.format(marks=", ".join("?" for _ in keys)), keys) if keys else []
    grouped: dict[str, list[dict[str, Any]]] = {k: [] for k in keys}
    for r in rows:
        grouped[r["key"]].append(r)
    out: dict[str, PolicyTimeline] = {}
    for key in keys:
        starts: list[date] = []
        states: list[PolicyState] = []
        for r in grouped[key]:
            start = r["effective_from"] or clock.brasilia(r["set_at"]).date()
            if starts and starts[-1] == start:   # same start: the later write wins
                states[-1] = _state(r)
                continue
            starts.append(start)
            states.append(_state(r))
        out[key] = PolicyTimeline(key, _spec_state(key), tuple(starts), tuple(states))
    return out


def timeline(db: Store | Tx, key: str) -> PolicyTimeline:
    return timelines(db, [key])[key]


def policy_in_force(db: Store | Tx, key: str, *, as_of: date | None = None) -> PolicyState:
    """The value of policy `key` in force on `as_of` (default: today), see the module docstring."""
    return timeline(db, key).at(as_of or _today(db))


def values_in_force(db: Store | Tx, keys: Sequence[str], *, as_of: date | None = None) -> dict[str, Any]:
    """key → the typed value in force on `as_of` (default: today), for callers that need values only."""
    day = as_of or _today(db)
    return {k: t.at(day).value for k, t in timelines(db, keys).items()}


def list_policies(store: Store, user: Principal, *, as_of: date | None = None) -> list[PolicyState]:
    """Every policy of `valuation.policies.defaults.DEFAULTS` as in force on `as_of` (dpc only)."""
    require(user, "read_policies")
    day = as_of or _today(store)
    return [t.at(day) for t in timelines(store, [p.key for p in DEFAULTS]).values()]


def scheduled(store: Store, user: Principal, *, after: date | None = None) -> list[PolicyState]:
    """Values recorded to apply after `after` (default: today), in the order they start (dpc only)."""
    require(user, "read_policies")
    day = after or _today(store)
    return sorted((s for t in timelines(store, [p.key for p in DEFAULTS]).values() for s in t.states
                   if s.starts is not None and s.starts > day), key=lambda s: (s.starts, s.label))


def policy_history(store: Store, user: Principal, key: str | None = None) -> pd.DataFrame:
    """Every stored change (newest first), with the value in pt-BR: columns id, key, label, text,
    basis, set_by, set_by_name, set_at, reason, effective_from, starts (the first day it applies)
    (dpc only)."""
    import pandas as pd

    require(user, "read_policies")
    where, params = ("WHERE p.key = ?", [key]) if key else ("", [])
    rows = store.fetch(f"SELECT p.id, p.key, p.value_json, p.basis, p.set_by, u.full_name AS set_by_name, p.set_at, "
                       f"p.reason, p.effective_from FROM policies p LEFT JOIN users u ON u.username = p.set_by "
                       f"{where} ORDER BY p.set_at DESC, p.id DESC", params)
    out = []
    for r in rows:
        if r["key"] not in DEFAULT_BY_KEY:
            continue  # a key this version does not know has no reader either
        try:
            text = fields.display(r["key"], fields.from_json(r["key"], r["value_json"]))
        except ValueError:
            text = "valor inválido (não aplicado)"
        out.append({**{k: v for k, v in r.items() if k != "value_json"}, "label": DEFAULT_BY_KEY[r["key"]].label,
                    "text": text, "basis": r["basis"] or DEFAULT_BY_KEY[r["key"]].basis,
                    "starts": r["effective_from"] or clock.brasilia(r["set_at"]).date()})
    cols = ["id", "key", "label", "text", "basis", "set_by", "set_by_name", "set_at", "reason", "effective_from",
            "starts"]
    return pd.DataFrame(out, columns=cols)


def _reason(reason: object) -> str:
    text = reason.strip() if isinstance(reason, str) else ""
    if not text:
        raise InputError(Problem("reason", f"{REASON_LABEL}: campo obrigatório (diga por que o valor muda e "
                                           f"cite o ato que a decide, se houver)."))
    if len(text) < MIN_REASON:
        raise InputError(Problem("reason", f"{REASON_LABEL}: escreva ao menos {MIN_REASON} caracteres."))
    if len(text) > MAX_REASON:
        raise InputError(Problem("reason", f"{REASON_LABEL}: no máximo {MAX_REASON} caracteres."))
    return text


def _basis(key: str, basis: object) -> str:
    if basis is None or (isinstance(basis, str) and not basis.strip()):
        return DEFAULT_BY_KEY[key].basis
    if not isinstance(basis, str):
        raise InputError(Problem("basis", f"{BASIS_LABEL}: informe o ato ou o artigo em texto."))
    text = " ".join(basis.split())
    if len(text) > MAX_BASIS:
        raise InputError(Problem("basis", f"{BASIS_LABEL}: no máximo {MAX_BASIS} caracteres."))
    return text


def _effective(effective_from: object, today: date) -> date:
    """The day a new value applies: today when not given; never before the law (29/09/1986),
    never more than MAX_YEARS_AHEAD years ahead."""
    if effective_from is None:
        return today
    if isinstance(effective_from, datetime) or not isinstance(effective_from, date):
        raise InputError(Problem("effective_from", f"{EFFECTIVE_LABEL}: informe uma data."))
    first: date = law.LAW_PUBLISHED.value
    last = today + timedelta(days=365 * MAX_YEARS_AHEAD)
    if not first <= effective_from <= last:
        raise InputError(Problem("effective_from", f"{EFFECTIVE_LABEL}: deve estar entre {format_date_br(first)} (Lei "
                                                   f"7.542/1986) e {format_date_br(last)}."))
    return effective_from


def _collect(*checks: Any) -> list[Any]:
    """Run each zero-argument check; InputError with every problem found when any fails."""
    problems: list[Problem] = []
    out: list[Any] = []
    for check in checks:
        try:
            out.append(check())
        except InputError as exc:
            problems += exc.problems
            out.append(None)
    if problems:
        raise InputError(problems)
    return out


def set_policy(store: Store, user: Principal, key: str, raw: object, reason: str | None, *,
               effective_from: date | None = None, basis: str | None = None) -> PolicyState:
    """Record a new value of policy `key` (dpc only): validated (InputError naming the field by its
    label), with its reason, legal reference (`basis`, default the key's) and the day it applies
    from (`effective_from`, default today: a past day applies to the periods that started since,
    a future one is scheduled); appended and audited. Returns the policy as in force on that day.
    A value equal to the one in force on that day is refused (nothing would change)."""
    require(user, "manage_policies")
    _check_key(key)
    today = _today(store)
    value, why, ref, starts = _collect(lambda: fields.parse(key, raw), lambda: _reason(reason),
                                       lambda: _basis(key, basis), lambda: _effective(effective_from, today))
    before = policy_in_force(store, key, as_of=starts)
    if before.value == value and not before.unreadable:
        raise InputError(Problem(key, f"{before.label}: o valor informado é igual ao que vigora em "
                                      f"{format_date_br(starts)}; nada foi alterado."))

    def write(tx: Tx) -> int:
        new_id = tx.scalar(
            "INSERT INTO policies (key, value_json, basis, set_by, set_at, reason, effective_from) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [key, fields.to_json(key, value), ref, user.username, store.now(), why, starts])
        tx.audit("set_policy", "policy", new_id, {key: _json_ready(before.value)},
                 {key: _json_ready(value), "reason": why, "basis": ref, "effective_from": starts})
        return int(new_id)

    store.write(user.username, write)
    return policy_in_force(store, key, as_of=starts)


def _json_ready(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_json_ready(v) for v in value]
    return value
