"""Capitanias (CP), Delegacias (DL) and Agências (AG): where requests and reports are filed.

The list of offices is a public directory: every role may read it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from valuation.core.errors import NotFound
from valuation.db.access import Principal, require

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

OFFICE_KINDS = {"CP": "Capitania dos Portos", "DL": "Delegacia", "AG": "Agência"}


def list_offices(store: Any, user: Principal, *, state: str | None = None) -> pd.DataFrame:
    """code, name, kind, state, city, naval_district — ordered by state and code."""
    require(user, "read_offices")
    where, params = ("WHERE state = ?", [state.upper()]) if state else ("", [])
    return store.fetch_df(
        f"SELECT code, name, kind, state, city, naval_district FROM offices {where} ORDER BY state, code",
        params)


def get_office(store: Any, user: Principal, code: str) -> dict[str, Any]:
    require(user, "read_offices")
    row = store.fetch_one("SELECT code, name, kind, state, city, naval_district FROM offices WHERE code = ?",
                          [code])
    if row is None:
        raise NotFound(f"Capitania/Delegacia/Agência {code} não encontrada.", what="office", key=code)
    return row
