"""Authorisations and contracts (autorização, licença, contrato, portaria), role-scoped.

dpc: every contract; explorer: its own organisation's (contracts.organisation_id);
commission roles: the contracts under assessment (db.access.UNDER_ASSESSMENT);
admin: none. A contract outside the user's scope is reported as not found.
Money columns (fixed_amount, salvage_award, caution_amount) and shares are exact Decimals.
Each contract carries its co-signature state (Lei 7.542 art. 20 §1; valuation.registry.co_signatures):
co_signature_required, co_signed_on, co_signature_act, co_signature_missing and state_pt (the status,
qualified when a required co-signature is missing: the contract is not in force).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.law import CONTRACT_KINDS
from valuation.db.access import Principal, contract_scope

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

STATUSES: tuple[str, ...] = ("solicitado", "vigente", "suspenso", "concluído", "cancelado", "expirado")
ACTS: tuple[str, ...] = ("autorização", "licença", "contrato", "portaria")

# the share of the other items: `other_share`, or `other_share_original` for a contract under the original
# art. 21 (signed before 28/12/2000; migration 022, valuation.partition.terms.OTHER_SHARE_SQL)
_COLS = (
    "c.id, c.code, c.kind, c.act, c.act_number, c.status, c.organisation_id, o.name AS organisation_name, "
    "c.wreck_id, w.code AS wreck_code, w.name AS wreck_name, c.office_code, c.requested_on, c.signed_on, "
    "c.starts_on, c.expires_on, c.work_ended_on, c.cancelled_on, c.cancel_reason, c.surveyor_organisation_id, "
    "c.modality, c.historical_share, c.historical_payment, "
    "coalesce(c.other_share, c.other_share_original) AS other_share, c.fixed_amount, c.salvage_award, "
    "c.value_fixed, c.caution_amount, c.created_at"
)
_FROM = ("FROM contracts c JOIN organisations o ON o.id = c.organisation_id "
         "JOIN wrecks w ON w.id = c.wreck_id ")


def list_contracts(store: Any, user: Principal, *, status: str | None = None,
                   kind: str | None = None, wreck_id: int | None = None, counts: bool = True) -> pd.DataFrame:
    """Contracts the user may read, ordered by code, with `items` (recovered items), `undelivered` and
    the co-signature state (module docstring); `wreck_id`: only that wreck's. `counts=False`: `items` and
    `undelivered` are left out (None) — a page that does not show them (at a million items they were most of
    the Contratos page's time)."""
    scope, params = contract_scope(user, "c")
    clauses = [scope]
    problems = []
    if wreck_id is not None:
        clauses.append("c.wreck_id = ?")
        params.append(wreck_id)
    if status:
        if status not in STATUSES:
            problems.append(Problem("status", f"Situação do contrato desconhecida: {status}."))
        clauses.append("c.status = ?")
        params.append(status)
    if kind:
        if kind not in CONTRACT_KINDS:
            problems.append(Problem("kind", f"Tipo de contrato desconhecido: {kind}."))
        clauses.append("c.kind = ?")
        params.append(kind)
    if problems:
        raise InputError(problems)
    if not counts:
        df = store.fetch_df(f"SELECT {_COLS}, NULL AS items, NULL AS undelivered {_FROM} WHERE {' AND '.join(clauses)} "
                            "ORDER BY c.code", params)
        return _with_co_signature(store, df)
    df = store.fetch_df(
        f"WITH visible AS (SELECT c.id FROM contracts c WHERE {' AND '.join(clauses)}), "
        "counts AS (SELECT i.contract_id, count(*) AS items, "
        "  count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM item_deliveries d WHERE d.item_id = i.id)) AS undelivered "
        "  FROM items i WHERE i.contract_id IN (SELECT id FROM visible) GROUP BY i.contract_id) "
        f"SELECT {_COLS}, coalesce(n.items, 0) AS items, coalesce(n.undelivered, 0) AS undelivered "
        f"{_FROM} LEFT JOIN counts n ON n.contract_id = c.id "
        "WHERE c.id IN (SELECT id FROM visible) ORDER BY c.code", params)
    return _with_co_signature(store, df)


def contract_choices(store: Any, user: Principal, *, with_items: bool = False) -> pd.DataFrame:
    """The contracts the user may read, ordered by code, for a page that lets one be chosen: id, code,
    organisation_name, and `has_items` (it holds recovered items) when `with_items` — none of
    `list_contracts`' counts (at a million items they were most of such a page's time) nor its
    co-signature state."""
    scope, params = contract_scope(user, "c")
    has = (", EXISTS (SELECT 1 FROM items i WHERE i.contract_id = c.id) AS has_items" if with_items else "")
    return store.fetch_df(f"SELECT c.id, c.code, o.name AS organisation_name{has} FROM contracts c "
                          f"JOIN organisations o ON o.id = c.organisation_id WHERE {scope} ORDER BY c.code", params)


_CO_COLUMNS = ("co_signature_required", "co_signed_on", "co_signature_act", "co_signature_missing", "state_pt")


def _with_co_signature(store: Any, df: pd.DataFrame) -> pd.DataFrame:
    from valuation.registry.co_signatures import annotate

    ids = [int(i) for i in df["id"]] if len(df) else []
    rows = annotate(store, store.fetch("SELECT id, kind, act, status, signed_on, historical_share FROM contracts "
                                       "WHERE id IN (SELECT unnest(?::BIGINT[]))", [ids])) if ids else []
    by_id = {int(r["id"]): r for r in rows}
    for col in _CO_COLUMNS:
        df[col] = _object_series([by_id[i][col] for i in ids])
    return df


def _object_series(values: list[Any]) -> Any:
    import pandas as pd

    return pd.Series(values, dtype=object)


def get_contract(store: Any, user: Principal, code: str, *, counts: bool = True) -> dict[str, Any]:
    """One contract as a dict (same fields as list_contracts; `counts=False`: without the item counts, None);
    NotFound outside the user's scope."""
    scope, params = contract_scope(user, "c")
    counted = ("(SELECT count(*) FROM items i WHERE i.contract_id = c.id) AS items, "
               "(SELECT count(*) FROM items i WHERE i.contract_id = c.id AND NOT EXISTS "
               " (SELECT 1 FROM item_deliveries d WHERE d.item_id = i.id)) AS undelivered "
               if counts else "NULL AS items, NULL AS undelivered ")
    row = store.fetch_one(f"SELECT {_COLS}, {counted}{_FROM} WHERE c.code = ? AND {scope}", [code, *params])
    if row is None:
        raise NotFound(f"Contrato {str(code)[:60]} não encontrado.", what="contract", key=code)
    from valuation.registry.co_signatures import annotate

    return annotate(store, [row])[0]
