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
    recovery month and — once the commission has decided values — value band).

    One statement, one pass over the selection (`sel`, kept), counted every way the page shows. The decided
    values (`vals`) are the selection's own when `flt` narrows by a field of the items; when it narrows only
    by contract, they are read from item_valuation by its contract (the round's, the item's) without joining
    the items — at a million items and values that join was most of the summary (bench/README.md, issue 28:
    0.14 → 0.08 s as the DPC)."""
    where, params = _where(user, flt)
    cases, band_params = [], []
    for n, (upper, _label) in enumerate(VALUE_BANDS):
        if upper is None:
            cases.append(f"ELSE {n}")
        else:
            cases.append(f"WHEN value_brl < ? THEN {n}")
            band_params.append(upper)
    band = f"CASE WHEN value_brl IS NULL THEN {len(VALUE_BANDS)} {' '.join(cases)} END"
    if (where, params) != _where(user, ItemFilter(contract_code=flt.contract_code)):   # a field of the items
        with_value, value_params = f", v.value_brl {_FROM} {_value_join(user)}", []
        vals = "SELECT value_brl FROM sel"
    else:   # `where` names the contract (c) only: the values by their contract, the items not joined
        published = "" if allowed(user, "read_unpublished_values") else " AND v.published"
        with_value, value_params = f" {_FROM}", list(params)
        vals = (f"SELECT v.value_brl FROM item_valuation v JOIN contracts c ON c.id = v.contract_id "
                f"WHERE {where}{published}")
    frame = store.fetch_df(
        "WITH sel AS MATERIALIZED (SELECT i.id, i.quantity, i.weight_g, i.category, i.material, "
        f"year(i.recovered_on) * 100 + month(i.recovered_on) AS ym{with_value} WHERE {where}), "
        f"vals AS MATERIALIZED ({vals}), "
        "t AS (SELECT count(*) AS items, coalesce(sum(quantity), 0) AS quantity, sum(weight_g) AS weight_g, "
        "(SELECT count(*) FROM sel WHERE id IN (SELECT item_id FROM item_deliveries)) AS delivered, "
        "(SELECT count(value_brl) FROM vals) AS valued, (SELECT coalesce(sum(value_brl), 0) FROM vals) AS value_brl "
        "FROM sel), "
        # kind, label, items, quantity, value_brl, ord (the month's number, the value band's)
        "g AS (SELECT 'category' AS kind, category AS label, count(*) AS items, sum(quantity) AS quantity, "
        "NULL::DECIMAL(38, 2) AS value_brl, NULL::INTEGER AS ord FROM sel GROUP BY category "
        "UNION ALL SELECT 'material', material, count(*), sum(quantity), NULL, NULL FROM sel GROUP BY material "
        "UNION ALL SELECT 'month', printf('%04d-%02d', ym // 100, ym % 100), count(*), sum(quantity), NULL, ym "
        "FROM sel GROUP BY ym "
        f"UNION ALL SELECT 'band', NULL, count(*), NULL, sum(value_brl), {band} FROM vals "
        "WHERE value_brl IS NOT NULL GROUP BY ALL "
        f"UNION ALL SELECT 'band', NULL, items - valued, NULL, NULL, {len(VALUE_BANDS)} FROM t WHERE items > valued), "
        "r AS (SELECT *, row_number() OVER (PARTITION BY kind ORDER BY ord, items DESC, label) AS k FROM g) "
        "SELECT kind, label, items, quantity, value_brl, ord, k, NULL::DECIMAL(38, 2) AS weight_g, "
        "NULL::BIGINT AS delivered, NULL::BIGINT AS valued FROM r WHERE kind IN ('month', 'band') OR k <= ? "
        "UNION ALL SELECT kind, ?, sum(items), sum(quantity), NULL, NULL, ?, NULL, NULL, NULL FROM r "
        "WHERE kind IN ('category', 'material') AND k > ? GROUP BY kind "
        "UNION ALL SELECT 'totals', NULL, items, quantity, value_brl, NULL, NULL, weight_g, delivered, valued FROM t "
        "ORDER BY kind, k",
        [*params, *value_params, *band_params, MAX_GROUPS, OTHERS, MAX_GROUPS + 1, MAX_GROUPS])
    import pandas as pd

    def part(kind: str, *columns: str) -> pd.DataFrame:
        return frame.loc[frame["kind"] == kind, list(columns)].reset_index(drop=True)

    t = frame.loc[frame["kind"] == "totals"].iloc[0]
    totals: dict[str, Any] = {"items": int(t["items"]), "quantity": int(t["quantity"]),
                              "weight_g": None if pd.isna(t["weight_g"]) else t["weight_g"],
                              "delivered": int(t["delivered"]), "valued": int(t["valued"]), "value_brl": t["value_brl"]}
    totals["undelivered"] = totals["items"] - totals["delivered"]
    if totals["valued"]:
        labels = [label for _, label in VALUE_BANDS] + [NO_VALUE]
        bands = part("band", "ord", "items", "value_brl")
        by_band = pd.DataFrame({"label": [labels[int(b)] for b in bands["ord"]], "items": bands["items"],
                                "value_brl": bands["value_brl"]})
    else:
        by_band = pd.DataFrame({"label": [], "items": [], "value_brl": []})
    return InventorySummary(totals=totals, by_category=part("category", "label", "items", "quantity"),
                            by_material=part("material", "label", "items", "quantity"),
                            by_month=part("month", "label", "items", "quantity"), by_value_band=by_band)


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
