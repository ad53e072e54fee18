"""Row scopes of the access policy, as SQL predicates (the SQL twin of `valuation.accounts.auth`).

Every role-scoped query builds its WHERE clause from these, so the rule lives in
one place; `tests/test_access.py` checks them against `auth.position_cleared`.

"Under assessment" (the commission's workload): a contract that has recovered
items. When assessment rounds get their own table, only `UNDER_ASSESSMENT`
changes.
"""
from __future__ import annotations

import unicodedata
from typing import Any

from valuation.accounts.auth import COMMISSION_ROLES, Principal, require
from valuation.core.errors import AccessDenied

# Contract ids under assessment (commission workload).
UNDER_ASSESSMENT = "SELECT DISTINCT contract_id FROM items"


def contract_scope(user: Principal, alias: str = "c") -> tuple[str, list[Any]]:
    """(predicate over contracts `alias`, params): which contracts `user` may read."""
    require(user, "read_contracts")
    if user.role == "dpc":
        return "TRUE", []
    if user.role == "explorer":
        return f"{alias}.organisation_id = ?", [user.organisation_id]
    if user.role in COMMISSION_ROLES:
        return f"{alias}.id IN ({UNDER_ASSESSMENT})", []
    raise AccessDenied(user=user.username, action="read_contracts")


def position_scope(user: Principal, alias: str = "w") -> tuple[str, list[Any]]:
    """(boolean SQL expression over wrecks `alias`, params): is the position cleared? (rules.md §8)"""
    if user.role == "dpc":
        return "TRUE", []
    if user.role == "explorer":
        return f"({alias}.id IN (SELECT wreck_id FROM contracts WHERE organisation_id = ?))", [user.organisation_id]
    if user.role in COMMISSION_ROLES:
        return f"({alias}.id IN (SELECT wreck_id FROM contracts WHERE id IN ({UNDER_ASSESSMENT})))", []
    return "FALSE", []


def organisation_scope(user: Principal, alias: str = "o") -> tuple[str, list[Any]]:
    """(predicate over organisations `alias`, params): explorers see only their own."""
    require(user, "read_organisations")
    if user.role == "explorer":
        return f"{alias}.id = ?", [user.organisation_id]
    return "TRUE", []


def fold(text: str) -> str:
    """Lower-case without accents, as DuckDB's lower(strip_accents(x)): for searches."""
    decomposed = unicodedata.normalize("NFKD", text.strip().lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def search_clause(columns: tuple[str, ...], term: str) -> tuple[str, list[Any]]:
    """Accent- and case-insensitive 'contains' over `columns` (no LIKE wildcards to escape)."""
    folded = fold(term)
    parts = [f"contains(lower(strip_accents(coalesce({c}, ''))), ?)" for c in columns]
    return "(" + " OR ".join(parts) + ")", [folded] * len(columns)
