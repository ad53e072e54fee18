"""Authorisations and contracts (autorização, licença, contrato, portaria), role-scoped.

dpc: every contract; explorer: its own organisation's (contracts.organisation_id);
commission roles: the contracts under assessment (scope.UNDER_ASSESSMENT);
admin: none. A contract outside the user's scope is reported as not found.
Money columns (fixed_amount, salvage_award, caution_amount) and shares are exact Decimals.
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

_COLS = (
    "c.id, c.code, c.kind, c.act, c.act_number, c.status, c.organisation_id, o.name AS organisation_name, "
    "c.wreck_id, w.code AS wreck_code, w.name AS wreck_name, c.office_code, c.requested_on, c.signed_on, "
    "c.starts_on, c.expires_on, c.work_ended_on, c.cancelled_on, c.cancel_reason, c.surveyor_organisation_id, "
    "c.modality, c.historical_share, c.historical_payment, c.other_share, c.fixed_amount, c.salvage_award, "
    "c.value_fixed, c.caution_amount, c.created_at"
)
_FROM = ("FROM contracts c JOIN organisations o ON o.id = c.organisation_id "
         "JOIN wrecks w ON w.id = c.wreck_id ")


def list_contracts(store: Any, user: Principal, *, status: str | None = None,
                   kind: str | None = None) -> pd.DataFrame:
    """Contracts the user may read, ordered by code, with `items` (recovered items) and `undelivered`."""
    scope, params = contract_scope(user, "c")
    clauses = [scope]
    problems = []
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
    return store.fetch_df(
        f"WITH visible AS (SELECT c.id FROM contracts c WHERE {' AND '.join(clauses)}), "
        "counts AS (SELECT i.contract_id, count(*) AS items, "
        "  count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM item_deliveries d WHERE d.item_id = i.id)) AS undelivered "
        "  FROM items i WHERE i.contract_id IN (SELECT id FROM visible) GROUP BY i.contract_id) "
        f"SELECT {_COLS}, coalesce(n.items, 0) AS items, coalesce(n.undelivered, 0) AS undelivered "
        f"{_FROM} LEFT JOIN counts n ON n.contract_id = c.id "
        "WHERE c.id IN (SELECT id FROM visible) ORDER BY c.code", params)


def get_contract(store: Any, user: Principal, code: str) -> dict[str, Any]:
    """One contract as a dict (same fields as list_contracts); NotFound outside the user's scope."""
    scope, params = contract_scope(user, "c")
    row = store.fetch_one(
        f"SELECT {_COLS}, (SELECT count(*) FROM items i WHERE i.contract_id = c.id) AS items, "
        "(SELECT count(*) FROM items i WHERE i.contract_id = c.id AND NOT EXISTS "
        " (SELECT 1 FROM item_deliveries d WHERE d.item_id = i.id)) AS undelivered "
        f"{_FROM} WHERE c.code = ? AND {scope}", [code, *params])
    if row is None:
        raise NotFound(f"Contrato {code} não encontrado.", what="contract", key=code)
    return row
