"""The policies in force, their history, and their changes (the DPC's policies page).

`policies` is append-only: a change is a new row (value, legal basis, who, when, reason,
`effective_from`). The value in force of a key on a day D is, among its rows that apply on
D (`effective_from` ≤ D, or — without one — set on or before D), the one with the latest
start (`effective_from`, else the day it was set), the latest written on a tie; without
such a row, the default of `valuation.policies.defaults`. A stored value that is not a valid value
of its key is never used: the default applies and `PolicyState.unreadable` says why.

Three older readers (store/partition._policy, store/commission.current_policy,
store/calendars.policy_values) take the latest row of a key and ignore `effective_from`;
so `set_policy` only writes values that apply at once (a later change unifies the readers
and opens dated values to the page).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from valuation.core.errors import InputError, Problem
from valuation.db.access import Principal, require
from valuation.policies import fields
from valuation.policies.defaults import DEFAULT_BY_KEY, DEFAULTS

if TYPE_CHECKING:
    import pandas as pd

    from valuation.db.store import Store, Tx

REASON_LABEL = "Motivo da alteração"
MIN_REASON, MAX_REASON = 10, 1000

_IN_FORCE_SQL = """
SELECT p.id, p.key, p.value_json, p.basis, p.set_by, p.set_at, p.reason, p.effective_from, u.full_name
FROM policies p LEFT JOIN users u ON u.username = p.set_by
WHERE p.key = ? AND coalesce(p.effective_from, CAST(p.set_at AS DATE)) <= ?
ORDER BY coalesce(p.effective_from, CAST(p.set_at AS DATE)) DESC, p.set_at DESC, p.id DESC
LIMIT 1"""


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


def _today(db: Store | Tx) -> date:
    store = getattr(db, "store", db)
    return store.now().date()


def _default_state(key: str, unreadable: str | None = None) -> PolicyState:
    spec = DEFAULT_BY_KEY[key]
    value = fields.parse(key, fields.form_value(key, spec.value))
    return PolicyState(key=key, label=spec.label, description=spec.description, basis=spec.basis, value=value,
                       text=fields.display(key, value), is_default=True, unreadable=unreadable)


def policy_in_force(db: Store | Tx, key: str, *, as_of: date | None = None) -> PolicyState:
    """The value of policy `key` in force on `as_of` (default: today), see the module docstring."""
    if key not in DEFAULT_BY_KEY:
        raise InputError(Problem("key", f"Política desconhecida: {str(key)[:60]}."))
    row = db.fetch_one(_IN_FORCE_SQL, [key, as_of or _today(db)])
    if row is None:
        return _default_state(key)
    try:
        value = fields.from_json(key, row["value_json"])
    except ValueError as exc:
        return _default_state(key, unreadable=f"o valor gravado em {row['set_at']:%d/%m/%Y} não é válido "
                                              f"({exc}); vale o padrão.")
    spec = DEFAULT_BY_KEY[key]
    return PolicyState(key=key, label=spec.label, description=spec.description, basis=row["basis"] or spec.basis,
                       value=value, text=fields.display(key, value), is_default=False, set_by=row["set_by"],
                       set_by_name=row["full_name"], set_at=row["set_at"], reason=row["reason"],
                       effective_from=row["effective_from"], row_id=int(row["id"]))


def list_policies(store: Store, user: Principal, *, as_of: date | None = None) -> list[PolicyState]:
    """Every policy of `valuation.policies.defaults.DEFAULTS` as in force on `as_of` (dpc only)."""
    require(user, "read_policies")
    return [policy_in_force(store, p.key, as_of=as_of) for p in DEFAULTS]


def policy_history(store: Store, user: Principal, key: str | None = None) -> pd.DataFrame:
    """Every stored change (newest first), with the value in pt-BR: columns id, key, label, text,
    basis, set_by, set_by_name, set_at, reason, effective_from (dpc only)."""
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
                    "text": text})
    cols = ["id", "key", "label", "text", "basis", "set_by", "set_by_name", "set_at", "reason", "effective_from"]
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


def _json_ready(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def set_policy(store: Store, user: Principal, key: str, raw: str | int | bool | Sequence[str], reason: str | None, *,
               effective_from: date | None = None) -> PolicyState:
    """Record a new value of policy `key` (dpc only): validated (InputError naming the policy by its
    label), with its reason, appended and audited; returns the policy as now in force.

    `effective_from` must be None or today: the older readers apply a row at once, so a dated
    value cannot be written yet (it would be applied before its day)."""
    require(user, "manage_policies")
    problems: list[Problem] = []
    value = why = None
    try:
        value = fields.parse(key, raw)
    except InputError as exc:
        problems += exc.problems
    try:
        why = _reason(reason)
    except InputError as exc:
        problems += exc.problems
    today = _today(store)
    if effective_from is not None and effective_from != today:
        problems.append(Problem("effective_from", "Vigência: por enquanto uma alteração vale a partir de hoje; "
                                                  "datas de vigência futuras ou passadas não são aceitas."))
    if problems:
        raise InputError(problems)
    before = policy_in_force(store, key)
    if before.value == value and not before.unreadable:
        raise InputError(Problem(key, f"{before.label}: o valor informado é igual ao que está em vigor; "
                                      f"nada foi alterado."))

    def write(tx: Tx) -> int:
        new_id = tx.scalar(
            "INSERT INTO policies (key, value_json, basis, set_by, set_at, reason, effective_from) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [key, fields.to_json(key, value), DEFAULT_BY_KEY[key].basis, user.username, store.now(), why,
             effective_from])
        tx.audit("set_policy", "policy", new_id, {key: _json_ready(before.value)},
                 {key: _json_ready(value), "reason": why, "effective_from": effective_from})
        return int(new_id)

    store.write(user.username, write)
    return policy_in_force(store, key)
