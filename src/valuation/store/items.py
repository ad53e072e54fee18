"""Recovered items (Lei 7.542/1986 art. 23: each registered and delivered to the Naval Authority).

Paginated and filtered in SQL, never the whole table (architecture.md: 1M rows is
~59 MB of Arrow). Scope follows the contracts (scope.contract_scope): dpc all,
explorer its own organisation's contracts, commission roles the contracts under
assessment, admin none. `delivered_on` is the latest delivery row of the item
(item_deliveries is append-only), NULL while undelivered.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any


from valuation.auth import Principal
from valuation.store.paging import check_page
from valuation.store.scope import contract_scope, search_clause

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

MAX_PAGE_SIZE = 500   # a page is for people to read; bulk work goes through SQL aggregates
DEFAULT_PAGE_SIZE = 50


def _where(user: Principal, contract_code: str | None, search: str | None,
           category: str | None) -> tuple[str, list[Any]]:
    scope, params = contract_scope(user, "c")
    clauses = [scope]
    if contract_code:
        clauses.append("c.code = ?")
        params.append(contract_code)
    if category:
        clauses.append("i.category = ?")
        params.append(category)
    if search and search.strip():
        clause, extra = search_clause(("i.item_code", "i.description", "i.material", "i.lot"), search)
        clauses.append(clause)
        params += extra
    return " AND ".join(clauses), params


_FROM = "FROM items i JOIN contracts c ON c.id = i.contract_id"


def count_items(store: Any, user: Principal, *, contract_code: str | None = None, search: str | None = None,
                category: str | None = None) -> int:
    """How many items match (same filters as page_items)."""
    where, params = _where(user, contract_code, search, category)
    return int(store.scalar(f"SELECT count(*) {_FROM} WHERE {where}", params))


def page_items(store: Any, user: Principal, *, contract_code: str | None = None, search: str | None = None,
               category: str | None = None, page: int = 1, page_size: int = DEFAULT_PAGE_SIZE) -> pd.DataFrame:
    """One page of items (1-based), ordered by contract code and item code.

    Columns: id, contract_code, item_code, description, category, material,
    quantity, weight_g, recovered_on, depth_m, lot, condition, notes, delivered_on.
    """
    check_page(page, page_size, MAX_PAGE_SIZE)
    where, params = _where(user, contract_code, search, category)
    return store.fetch_df(
        "WITH page AS ("
        " SELECT i.id, c.code AS contract_code, i.item_code, i.description, i.category, i.material, i.quantity,"
        " i.weight_g, i.recovered_on, i.depth_m, i.lot, i.condition, i.notes"
        f" {_FROM} WHERE {where} ORDER BY c.code, i.item_code LIMIT ? OFFSET ?), "
        "latest AS (SELECT item_id, arg_max(delivered_on, id) AS delivered_on FROM item_deliveries"
        " WHERE item_id IN (SELECT id FROM page) GROUP BY item_id) "
        "SELECT page.*, latest.delivered_on FROM page LEFT JOIN latest ON latest.item_id = page.id "
        "ORDER BY page.contract_code, page.item_code",
        [*params, page_size, (page - 1) * page_size])


def item_categories(store: Any, user: Principal, *, contract_code: str | None = None) -> list[str]:
    """The categories present among the items the user may read (for a filter widget)."""
    where, params = _where(user, contract_code, None, None)
    return [r["category"] for r in store.fetch(
        f"SELECT DISTINCT i.category {_FROM} WHERE {where} ORDER BY i.category", params)]
