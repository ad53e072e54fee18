"""The overview page's figures, computed in SQL within the user's scope.

Readers (dpc, commission roles, explorer) get the register and workload figures
of what they may read: dpc everything; commission roles the contracts under
assessment and their items; an explorer only its own organisation's contracts,
items and wrecks. Admin gets the user and audit figures instead (no wreck data).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from valuation.accounts.login import naive_utc
from valuation.db.access import (
    Principal,
    allowed,
    contract_scope,
    organisation_scope,
    position_scope,
    require,
    scope_name,
)


def _pairs(rows: list[dict[str, Any]]) -> dict[str, int]:
    return {str(r["k"]): int(r["n"]) for r in rows}


def _account_figures(store: Any, user: Principal, now: datetime | None) -> dict[str, Any]:
    moment = naive_utc(now) if now is not None else store.now()
    u = store.fetch_one(
        "SELECT count(*) AS users, count(*) FILTER (WHERE active) AS active, "
        "(SELECT count(*) FROM login_throttle WHERE scope IN ('pair', 'client', 'account') "
        "AND blocked_until > ?) AS locked FROM users", [moment])
    return {
        "role": user.role, "scope": "users",
        "users": int(u["users"]), "users_active": int(u["active"]), "users_locked": int(u["locked"]),
        "users_by_role": _pairs(store.fetch("SELECT role AS k, count(*) AS n FROM users GROUP BY role ORDER BY role")),
        "audit_rows": int(store.scalar("SELECT count(*) FROM audit_log")),
    }


def overview_figures(store: Any, user: Principal, *, now: datetime | None = None) -> dict[str, Any]:
    """A dict of plain ints and {label: int} maps; see the module docstring for the scope.

    Readers: role, scope ('all' | 'under_assessment' | 'own_organisation'), wrecks,
    wrecks_position_cleared, wrecks_by_state, organisations, contracts,
    contracts_by_status, contracts_by_kind, items, items_undelivered, items_by_category.
    Admin: role, scope 'users', users, users_active, users_locked (login throttles waiting now: accounts,
    addresses and pairs, valuation.accounts.throttle), users_by_role, audit_rows.
    """
    require(user, "read_overview")
    if allowed(user, "manage_users"):     # admin: the user and audit figures, no wreck data
        return _account_figures(store, user, now)
    cscope, cparams = contract_scope(user, "c")
    pscope, pparams = position_scope(user, "w")
    scope = scope_name(user)
    own = scope == "own_organisation"          # an explorer counts its own wrecks and organisation only
    visible_wrecks = "FROM wrecks w JOIN offices o ON o.code = w.office_code"
    wreck_filter, wparams = ("WHERE " + pscope, pparams) if own or scope == "own_office" else ("", [])
    w = store.fetch_one(f"SELECT count(*) AS n, count(*) FILTER (WHERE {pscope}) AS cleared "
                        f"{visible_wrecks} {wreck_filter}", [*pparams, *wparams])
    by_state = _pairs(store.fetch(f"SELECT o.state AS k, count(*) AS n {visible_wrecks} {wreck_filter} "
                                  "GROUP BY o.state ORDER BY o.state", wparams))
    oscope, oparams = organisation_scope(user, "o")      # an office officer: the companies of its office
    orgs = 1 if own else int(store.scalar(f"SELECT count(*) FROM organisations o WHERE {oscope}", oparams))
    contracts = store.fetch(f"SELECT c.status, c.kind, count(*) AS n FROM contracts c WHERE {cscope} "
                            "GROUP BY c.status, c.kind", cparams)
    by_status: dict[str, int] = {}
    by_kind: dict[str, int] = {}
    for r in contracts:
        by_status[r["status"]] = by_status.get(r["status"], 0) + int(r["n"])
        by_kind[r["kind"]] = by_kind.get(r["kind"], 0) + int(r["n"])
    items = store.fetch(
        "SELECT i.category AS k, count(*) AS n, count(*) FILTER (WHERE d.item_id IS NULL) AS undelivered "
        "FROM items i JOIN contracts c ON c.id = i.contract_id "
        "LEFT JOIN (SELECT DISTINCT item_id FROM item_deliveries) d ON d.item_id = i.id "
        f"WHERE {cscope} GROUP BY i.category ORDER BY i.category", cparams)
    return {
        "role": user.role, "scope": scope,
        "wrecks": int(w["n"]), "wrecks_position_cleared": int(w["cleared"]), "wrecks_by_state": by_state,
        "organisations": orgs,
        "contracts": sum(by_status.values()),
        "contracts_by_status": dict(sorted(by_status.items())),
        "contracts_by_kind": dict(sorted(by_kind.items())),
        "items": sum(int(r["n"]) for r in items),
        "items_undelivered": sum(int(r["undelivered"]) for r in items),
        "items_by_category": {str(r["k"]): int(r["n"]) for r in items},
    }
