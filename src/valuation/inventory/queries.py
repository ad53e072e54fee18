"""The recovered-item inventory (issue 4): import, browsing at treasure-wreck scale, exports.

Law
    - Every recovered thing is registered and delivered to the Naval Authority; until then
      the explorer is its depositary (Lei 7.542/1986 art. 23). `store.custody` tracks delivery.
    - Items are imported only into a contract IN FORCE (status 'vigente') whose kind allows
      recovery: exploração, remoção or demolição. A survey (pesquisa) gives no right to
      remove anything (art. 18 sole paragraph), so a survey contract has no items.

Import: `valuation.inventory.item_import` (all or nothing, one transaction).

Browsing (`count_items`, `page_items`, `summarise`, `filter_options`, `export_items`):
filtered, searched, paginated and aggregated in DuckDB; a page never holds more than
`MAX_PAGE_SIZE` rows and charts read grouped rows. Scope follows the contracts
(`scope.contract_scope`): dpc all, explorer its own organisation's, commission roles the
contracts under assessment, admin none. Decided values come from `item_valuation`
(migration 002); explorers see only published ones.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.core.errors import InputError, Problem
from valuation.core.money import format_count
from valuation.db.access import Principal, allowed, contract_scope, require
from valuation.db.paging import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, check_page  # noqa: F401 (MAX_PAGE_SIZE: callers)
from valuation.db.search import search_clause
from valuation.inventory.fields import FIELD_LABELS, ITEM_FIELDS, SEARCHED, select_list

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.store import Store

# Art. 18 sole paragraph: a survey authorisation removes nothing; these kinds may recover items.
RECOVERY_KINDS: tuple[str, ...] = ("exploração", "remoção", "demolição")
IMPORTABLE_STATUS = "vigente"
# Exports, measured on this 2-core machine kind with the 15 inventory columns of 1M-item data:
# XLSX ≈ 0,2 ms per row (20 000 rows ≈ 4 s; 100 000 would take ~20 s and ~100 MB of memory),
# CSV ≈ 0,045 ms per row (250 000 rows ≈ 11 s, ~20 MB held in the dashboard until downloaded).
# A bigger selection is refused with a message to use CSV / to filter first.
XLSX_MAX_ROWS = 20_000
CSV_MAX_ROWS = 250_000
MAX_GROUPS = 20                            # bars per summary chart; the rest is one "outros" bar
MAX_OPTIONS = 500                          # distinct values offered in a filter widget

# Value bands (R$) of the decided values, upper bounds exclusive.
VALUE_BANDS: tuple[tuple[Decimal | None, str], ...] = (
    (Decimal("1000"), "até R$ 1 mil"),
    (Decimal("10000"), "R$ 1 mil a 10 mil"),
    (Decimal("100000"), "R$ 10 mil a 100 mil"),
    (Decimal("1000000"), "R$ 100 mil a 1 milhão"),
    (None, "acima de R$ 1 milhão"),
)
NO_VALUE = "sem valor decidido"
OTHERS = "(outros)"

# The columns of a listing and an export in pt-BR: the contract, the item's fields (their labels are
# the headers the import accepts: an export can be imported again), then delivery and decision.
COLUMN_LABELS: dict[str, str] = {"contract_code": "Contrato", **FIELD_LABELS, "delivered_on": "Entregue em",
                                 "value_brl": "Valor decidido (R$)", "historical": "Histórico"}
EXPORT_COLUMNS: tuple[str, ...] = tuple(COLUMN_LABELS)
DATE_COLUMNS: tuple[str, ...] = (*(f.key for f in ITEM_FIELDS if f.kind == "date"), "delivered_on")

# Orderings a page may ask for (never SQL from the caller), over the page's output columns.
ORDERS: dict[str, str] = {
    "codigo": "contract_code, item_code",
    "recuperacao": "recovered_on, contract_code, item_code",
    "recuperacao_desc": "recovered_on DESC, contract_code, item_code",
    "peso_desc": "weight_g DESC NULLS LAST, contract_code, item_code",
}
ORDER_LABELS: dict[str, str] = {"codigo": "Contrato e código", "recuperacao": "Recuperação (mais antigos)",
                                "recuperacao_desc": "Recuperação (mais recentes)", "peso_desc": "Peso (maiores)"}


# -- filters -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ItemFilter:
    """A selection of items: every field narrows it; None (or '') means 'any'.

    `search` is accent- and case-insensitive over code, description, material, lot and notes;
    `delivered` True/False keeps delivered/undelivered items (art. 23); dates are inclusive.
    """

    contract_code: str | None = None
    search: str | None = None
    category: str | None = None
    material: str | None = None
    lot: str | None = None
    delivered: bool | None = None
    recovered_from: date | None = None
    recovered_to: date | None = None


_FROM = "FROM items i JOIN contracts c ON c.id = i.contract_id"
_DELIVERED = "EXISTS (SELECT 1 FROM item_deliveries d WHERE d.item_id = i.id)"


def _where(user: Principal, flt: ItemFilter) -> tuple[str, list[Any]]:
    require(user, "read_items")
    scope, params = contract_scope(user, "c")
    clauses = [scope]
    for column, value in (("c.code", flt.contract_code), ("i.category", flt.category),
                          ("i.material", flt.material), ("i.lot", flt.lot)):
        if value is not None and str(value).strip():
            clauses.append(f"{column} = ?")
            params.append(str(value).strip())
    if flt.delivered is not None:
        clauses.append(_DELIVERED if flt.delivered else f"NOT {_DELIVERED}")
    if flt.recovered_from is not None:
        clauses.append("i.recovered_on >= ?")
        params.append(flt.recovered_from)
    if flt.recovered_to is not None:
        clauses.append("i.recovered_on <= ?")
        params.append(flt.recovered_to)
    if flt.search and flt.search.strip():
        clause, extra = search_clause(tuple(f"i.{key}" for key in SEARCHED), flt.search)
        clauses.append(clause)
        params += extra
    return " AND ".join(clauses), params


def _value_join(user: Principal, alias: str = "i") -> str:
    """Decided values per item (item_valuation): explorers see only published decisions."""
    published = "" if allowed(user, "read_unpublished_values") else " AND v.published"
    return f"LEFT JOIN item_valuation v ON v.item_id = {alias}.id{published}"


# -- browsing ----------------------------------------------------------------------------------
def count_items(store: Store, user: Principal, flt: ItemFilter = ItemFilter()) -> int:
    """How many items the user may read match `flt`."""
    where, params = _where(user, flt)
    return int(store.scalar(f"SELECT count(*) {_FROM} WHERE {where}", params))


def page_items(store: Store, user: Principal, flt: ItemFilter = ItemFilter(), *, page: int = 1,
               page_size: int = DEFAULT_PAGE_SIZE, order: str = "codigo") -> pd.DataFrame:
    """One page (1-based) of the items matching `flt`, in `order` (a key of ORDERS).

    Columns: id, contract_code, the item's fields (`inventory.fields.ITEM_FIELDS`), delivered_on
    (latest delivery, NULL while undelivered), value_brl and historical (the decision in force,
    NULL when none).
    """
    check_page(page, page_size)
    if order not in ORDERS:
        raise InputError(Problem("order", f"Ordem desconhecida: {order}."))
    where, params = _where(user, flt)
    return store.fetch_df(
        "WITH page AS ("
        f" SELECT i.id, c.code AS contract_code, {select_list('i')}"
        f" {_FROM} WHERE {where} ORDER BY {ORDERS[order]} LIMIT ? OFFSET ?), "
        "latest AS (SELECT item_id, arg_max(delivered_on, id) AS delivered_on FROM item_deliveries"
        " WHERE item_id IN (SELECT id FROM page) GROUP BY item_id) "
        f"SELECT p.id, p.contract_code, {select_list('p')}, l.delivered_on, v.value_brl, v.historical "
        "FROM page p LEFT JOIN latest l ON l.item_id = p.id "
        f"{_value_join(user, 'p')} ORDER BY {', '.join('p.' + part.strip() for part in ORDERS[order].split(','))}",
        [*params, page_size, (page - 1) * page_size])


FIND_MAX_CHARS = 100
FIND_LIMIT = 50


def find_items(store: Store, user: Principal, term: str, *, limit: int = FIND_LIMIT) -> list[dict[str, Any]]:
    """The items the user may read (every contract of theirs, whatever page or filter is shown) whose code or
    description contains `term` (accent- and case-insensitive): id, item_code, description, contract_code,
    at most `limit`, the exact code first."""
    wanted = str(term or "").strip()
    if len(wanted) > FIND_MAX_CHARS:
        raise InputError(Problem("item", f"Código ou descrição do item: no máximo {FIND_MAX_CHARS} caracteres."))
    if not wanted:
        return []
    require(user, "read_items")
    scope, params = contract_scope(user, "c")
    clause, extra = search_clause(("i.item_code", "i.description"), wanted)
    return store.fetch(f"SELECT i.id, i.item_code, i.description, c.code AS contract_code {_FROM} "
                       f"WHERE {scope} AND {clause} ORDER BY lower(i.item_code) <> lower(?), i.item_code LIMIT ?",
                       [*params, *extra, wanted, int(limit)])


def filter_options(store: Store, user: Principal, *, contract_code: str | None = None) -> dict[str, list[str]]:
    """Distinct categories and materials among the items the user may read (for filter widgets),
    at most MAX_OPTIONS each."""
    where, params = _where(user, ItemFilter(contract_code=contract_code))
    out: dict[str, list[str]] = {}
    for column in ("category", "material"):
        out[column] = [r["v"] for r in store.fetch(
            f"SELECT DISTINCT i.{column} AS v {_FROM} WHERE {where} ORDER BY v LIMIT {MAX_OPTIONS}", params)]
    return out


def readable_contracts(store: Store, user: Principal) -> list[dict[str, Any]]:
    """Contracts the user may read that hold items or may receive them: code, kind, status,
    organisation, items (count), importable (in force and of a recovery kind)."""
    require(user, "read_items")
    scope, params = contract_scope(user, "c")
    kinds = ", ".join("?" for _ in RECOVERY_KINDS)
    return store.fetch(
        "SELECT c.code, c.kind, c.status, o.name AS organisation, coalesce(n.items, 0) AS items, "
        f"(c.status = ? AND c.kind IN ({kinds})) AS importable "
        "FROM contracts c JOIN organisations o ON o.id = c.organisation_id "
        "LEFT JOIN (SELECT contract_id, count(*) AS items FROM items GROUP BY contract_id) n ON n.contract_id = c.id "
        f"WHERE {scope} AND (n.items > 0 OR c.kind IN ({kinds})) ORDER BY c.code",
        [IMPORTABLE_STATUS, *RECOVERY_KINDS, *params, *RECOVERY_KINDS])


@dataclass(frozen=True)
class InventorySummary:
    """Totals and grouped counts of a selection (all computed in SQL).

    `totals`: items, quantity, weight_g, delivered, undelivered, valued (items with a decided
    value the user may see), value_brl (their sum, exact). The frames have columns
    `label`, `items`, `quantity` (by_value_band: `label`, `items`, `value_brl`), ordered for a
    chart: categories and materials by item count (top MAX_GROUPS, then OTHERS), months
    chronologically ('AAAA-MM'), value bands from low to high then NO_VALUE.
    """

    totals: dict[str, Any]
    by_category: pd.DataFrame
    by_material: pd.DataFrame
    by_month: pd.DataFrame
    by_value_band: pd.DataFrame


def summarise(store: Store, user: Principal, flt: ItemFilter = ItemFilter()) -> InventorySummary:
    """Totals and the grouped counts behind the inventory's charts (category, material,
    recovery month and — once the commission has decided values — value band)."""
    where, params = _where(user, flt)
    vj = _value_join(user)
    # The selection is evaluated once, then counted three ways (delivered: a semi-join; valued: an
    # inner join): at a million items the single query with a correlated EXISTS and a LEFT JOIN
    # over every item took ~370 ms (bench/README.md, issue 7).
    totals = store.fetch_one(
        f"WITH sel AS MATERIALIZED (SELECT i.id, i.quantity, i.weight_g {_FROM} WHERE {where}), "
        "a AS (SELECT count(*) AS items, coalesce(sum(quantity), 0) AS quantity, sum(weight_g) AS weight_g FROM sel), "
        "d AS (SELECT count(*) AS delivered FROM sel WHERE id IN (SELECT item_id FROM item_deliveries)), "
        "w AS (SELECT count(v.value_brl) AS valued, coalesce(sum(v.value_brl), 0) AS value_brl FROM sel "
        f"{_value_join(user, 'sel').replace('LEFT JOIN', 'JOIN', 1)}) "
        "SELECT a.items, a.quantity, a.weight_g, d.delivered, w.valued, w.value_brl FROM a, d, w", params) or {}
    totals = {k: (int(v) if k in ("items", "quantity", "delivered", "valued") else v) for k, v in totals.items()}
    totals["undelivered"] = totals.get("items", 0) - totals.get("delivered", 0)

    def grouped(expr: str) -> pd.DataFrame:
        return store.fetch_df(
            f"WITH g AS (SELECT {expr} AS label, count(*) AS items, sum(i.quantity) AS quantity "
            f"{_FROM} WHERE {where} GROUP BY 1), r AS (SELECT *, row_number() OVER (ORDER BY items DESC, label) AS k "
            f"FROM g) SELECT label, items, quantity FROM (SELECT label, items, quantity, k FROM r WHERE k <= ? "
            f"UNION ALL SELECT ?, sum(items), sum(quantity), ? FROM r WHERE k > ? HAVING count(*) > 0) ORDER BY k",
            [*params, MAX_GROUPS, OTHERS, MAX_GROUPS + 1, MAX_GROUPS])

    by_month = store.fetch_df(   # grouped on an integer, the 'AAAA-MM' label written per group only
        "SELECT printf('%04d-%02d', ym // 100, ym % 100) AS label, items, quantity FROM ("
        "SELECT year(i.recovered_on) * 100 + month(i.recovered_on) AS ym, count(*) AS items, "
        f"sum(i.quantity) AS quantity {_FROM} WHERE {where} GROUP BY 1) ORDER BY ym", params)
    if totals.get("valued"):
        cases = []
        band_params: list[Any] = []
        for n, (upper, _label) in enumerate(VALUE_BANDS):
            if upper is None:
                cases.append(f"ELSE {n}")
            else:
                cases.append(f"WHEN v.value_brl < ? THEN {n}")
                band_params.append(upper)
        labels = [label for _, label in VALUE_BANDS] + [NO_VALUE]
        by_band = store.fetch_df(
            f"SELECT CASE WHEN v.value_brl IS NULL THEN {len(VALUE_BANDS)} {' '.join(cases)} END AS band, "
            f"count(*) AS items, sum(v.value_brl) AS value_brl {_FROM} {vj} WHERE {where} GROUP BY 1 ORDER BY 1",
            [*band_params, *params])
        by_band.insert(0, "label", [labels[int(b)] for b in by_band["band"]])
        by_band = by_band.drop(columns="band")
    else:
        import pandas as pd

        by_band = pd.DataFrame({"label": [], "items": [], "value_brl": []})
    return InventorySummary(totals=totals, by_category=grouped("i.category"), by_material=grouped("i.material"),
                            by_month=by_month, by_value_band=by_band)


# -- exports -----------------------------------------------------------------------------------
def export_items(store: Store, user: Principal, flt: ItemFilter, fmt: str) -> bytes:
    """The selection as a spreadsheet: fmt 'xlsx' (at most XLSX_MAX_ROWS rows) or 'csv' (at most
    CSV_MAX_ROWS; UTF-8 with BOM, ';' and decimal comma for Brazilian Excel). Text cells that
    begin with = + - @, TAB or NUL are neutralised (valuation.exports); numbers and dates stay
    typed. Headers are the pt-BR names the import accepts. InputError when too many rows."""
    from valuation.exports import to_csv_bytes, to_xlsx_bytes

    if fmt not in ("xlsx", "csv"):
        raise InputError(Problem("formato", f"Formato de exportação desconhecido: {fmt}."))
    limit = XLSX_MAX_ROWS if fmt == "xlsx" else CSV_MAX_ROWS
    n = count_items(store, user, flt)
    if n > limit:
        hint = ("use CSV, que não tem esse limite de planilha e é gerado bem mais depressa, ou filtre a seleção"
                if fmt == "xlsx" else "filtre a seleção (por contrato, categoria, período…) e exporte em partes")
        raise InputError(Problem("formato", f"A seleção tem {format_count(n)} itens; a exportação em {fmt.upper()} "
                                            f"vai até {format_count(limit)} linhas: {hint}."))
    where, params = _where(user, flt)
    df = store.fetch_df(
        f"SELECT c.code AS contract_code, {select_list('i')}, "
        "(SELECT arg_max(d.delivered_on, d.id) FROM item_deliveries d WHERE d.item_id = i.id) AS delivered_on, "
        f"v.value_brl, v.historical {_FROM} {_value_join(user)} WHERE {where} ORDER BY c.code, i.item_code", params)
    df = _plain_objects(df.loc[:, list(EXPORT_COLUMNS)])
    df["historical"] = [None if h is None else ("Sim" if h else "Não") for h in df["historical"]]
    df = df.rename(columns=COLUMN_LABELS)
    if fmt == "csv":
        return to_csv_bytes(df)
    return to_xlsx_bytes({"Inventário": df}, money_columns=[COLUMN_LABELS["value_brl"]],
                         date_columns=[COLUMN_LABELS[key] for key in DATE_COLUMNS])


def _plain_objects(df: pd.DataFrame) -> pd.DataFrame:
    """Arrow-backed columns as Python objects (Decimal, date, int, str, None) for the writers
    (through Arrow's to_pylist: iterating an Arrow-backed pandas column is ~10× slower)."""
    import pandas as pd
    import pyarrow as pa

    table = pa.Table.from_pandas(df, preserve_index=False)
    return pd.DataFrame({name: pd.Series(table.column(name).to_pylist(), dtype=object) for name in table.column_names})


__all__ = [
    "CSV_MAX_ROWS", "COLUMN_LABELS", "InventorySummary", "ItemFilter", "RECOVERY_KINDS", "XLSX_MAX_ROWS",
    "count_items", "export_items", "filter_options", "page_items", "readable_contracts", "summarise",
]
