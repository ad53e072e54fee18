"""The recovered-item inventory (issue 4): import, browsing at treasure-wreck scale, exports.

Law
    - Every recovered thing is registered and delivered to the Naval Authority; until then
      the explorer is its depositary (Lei 7.542/1986 art. 23). `store.custody` tracks delivery.
    - Items are imported only into a contract IN FORCE (status 'vigente') whose kind allows
      recovery: exploração, remoção or demolição. A survey (pesquisa) gives no right to
      remove anything (art. 18 sole paragraph), so a survey contract has no items.

Import (`import_items`): all or nothing. The file is parsed and validated without the
database (`valuation.inventory.importer.parse_items`: every bad cell named `linha N, coluna X`
with the reason in Portuguese); a good file goes in ONE transaction: the `imports` record
(who, when, file name, sha256, row count), the items (one bulk insert through Arrow) and one
audit row. A file already imported into the same contract (same sha256) is refused. Who:
dpc into any contract, an explorer into its own organisation's contracts only (another
company's contract is "not found", as everywhere in the store).

Browsing (`count_items`, `page_items`, `summarise`, `filter_options`, `export_items`):
filtered, searched, paginated and aggregated in DuckDB; a page never holds more than
`MAX_PAGE_SIZE` rows and charts read grouped rows. Scope follows the contracts
(`scope.contract_scope`): dpc all, explorer its own organisation's, commission roles the
contracts under assessment, admin none. Decided values come from `item_valuation`
(migration 002); explorers see only published ones.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.core.errors import ConflictError, InputError, NotFound, Problem
from valuation.db.access import Principal, allowed, contract_scope, require
from valuation.db.paging import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, check_page  # noqa: F401 (MAX_PAGE_SIZE: callers)
from valuation.db.search import search_clause

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.store import Store, Tx
    from valuation.inventory.importer import ParsedItems

Progress = Callable[[float, str], None]

# Art. 18 sole paragraph: a survey authorisation removes nothing; these kinds may recover items.
RECOVERY_KINDS: tuple[str, ...] = ("exploração", "remoção", "demolição")
IMPORTABLE_STATUS = "vigente"
IMPORT_KIND = "itens"                      # imports.kind of an items file

MAX_IMPORT_BYTES = 200 * 1024 * 1024       # Streamlit's default upload limit; a 100 000-row CSV is ~12 MB
CHECKPOINT_AFTER_ROWS = 10_000             # architecture.md: CHECKPOINT after large imports
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

# The item columns in pt-BR, as the import accepts them (an export can be imported again).
COLUMN_LABELS: dict[str, str] = {
    "contract_code": "Contrato",
    "item_code": "Código do item",
    "description": "Descrição",
    "category": "Categoria",
    "material": "Material",
    "quantity": "Quantidade",
    "weight_g": "Peso (g)",
    "recovered_on": "Data de recuperação",
    "depth_m": "Profundidade (m)",
    "lot": "Lote",
    "condition": "Condição",
    "notes": "Observações",
    "delivered_on": "Entregue em",
    "value_brl": "Valor decidido (R$)",
    "historical": "Histórico",
}
EXPORT_COLUMNS: tuple[str, ...] = ("contract_code", "item_code", "description", "category", "material", "quantity",
                                   "weight_g", "recovered_on", "depth_m", "lot", "condition", "notes",
                                   "delivered_on", "value_brl", "historical")

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
        clause, extra = search_clause(("i.item_code", "i.description", "i.material", "i.lot", "i.notes"), flt.search)
        clauses.append(clause)
        params += extra
    return " AND ".join(clauses), params


def _value_join(user: Principal, alias: str = "i") -> str:
    """Decided values per item (item_valuation): explorers see only published decisions."""
    published = " AND v.published" if user.role == "explorer" else ""
    return f"LEFT JOIN item_valuation v ON v.item_id = {alias}.id{published}"


# -- browsing ----------------------------------------------------------------------------------
def count_items(store: Store, user: Principal, flt: ItemFilter = ItemFilter()) -> int:
    """How many items the user may read match `flt`."""
    where, params = _where(user, flt)
    return int(store.scalar(f"SELECT count(*) {_FROM} WHERE {where}", params))


def page_items(store: Store, user: Principal, flt: ItemFilter = ItemFilter(), *, page: int = 1,
               page_size: int = DEFAULT_PAGE_SIZE, order: str = "codigo") -> pd.DataFrame:
    """One page (1-based) of the items matching `flt`, in `order` (a key of ORDERS).

    Columns: id, contract_code, item_code, description, category, material, quantity, weight_g,
    recovered_on, depth_m, lot, condition, notes, delivered_on (latest delivery, NULL while
    undelivered), value_brl and historical (the decision in force, NULL when none).
    """
    check_page(page, page_size)
    if order not in ORDERS:
        raise InputError(Problem("order", f"Ordem desconhecida: {order}."))
    where, params = _where(user, flt)
    return store.fetch_df(
        "WITH page AS ("
        " SELECT i.id, c.code AS contract_code, i.item_code, i.description, i.category, i.material, i.quantity,"
        " i.weight_g, i.recovered_on, i.depth_m, i.lot, i.condition, i.notes"
        f" {_FROM} WHERE {where} ORDER BY {ORDERS[order]} LIMIT ? OFFSET ?), "
        "latest AS (SELECT item_id, arg_max(delivered_on, id) AS delivered_on FROM item_deliveries"
        " WHERE item_id IN (SELECT id FROM page) GROUP BY item_id) "
        "SELECT p.id, p.contract_code, p.item_code, p.description, p.category, p.material, p.quantity, p.weight_g,"
        " p.recovered_on, p.depth_m, p.lot, p.condition, p.notes, l.delivered_on, v.value_brl, v.historical "
        "FROM page p LEFT JOIN latest l ON l.item_id = p.id "
        f"{_value_join(user, 'p')} ORDER BY {', '.join('p.' + part.strip() for part in ORDERS[order].split(','))}",
        [*params, page_size, (page - 1) * page_size])


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
        for n, (upper, label) in enumerate(VALUE_BANDS):
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
        raise InputError(Problem("formato", f"A seleção tem {_thousands(n)} itens; a exportação em {fmt.upper()} "
                                            f"vai até {_thousands(limit)} linhas: {hint}."))
    where, params = _where(user, flt)
    df = store.fetch_df(
        "SELECT c.code AS contract_code, i.item_code, i.description, i.category, i.material, i.quantity, i.weight_g, "
        "i.recovered_on, i.depth_m, i.lot, i.condition, i.notes, "
        "(SELECT arg_max(d.delivered_on, d.id) FROM item_deliveries d WHERE d.item_id = i.id) AS delivered_on, "
        f"v.value_brl, v.historical {_FROM} {_value_join(user)} WHERE {where} ORDER BY c.code, i.item_code", params)
    df = _plain_objects(df.loc[:, list(EXPORT_COLUMNS)])
    df["historical"] = [None if h is None else ("Sim" if h else "Não") for h in df["historical"]]
    df = df.rename(columns=COLUMN_LABELS)
    if fmt == "csv":
        return to_csv_bytes(df)
    return to_xlsx_bytes({"Inventário": df}, money_columns=[COLUMN_LABELS["value_brl"]],
                         date_columns=[COLUMN_LABELS["recovered_on"], COLUMN_LABELS["delivered_on"]])


def _plain_objects(df: pd.DataFrame) -> pd.DataFrame:
    """Arrow-backed columns as Python objects (Decimal, date, int, str, None) for the writers
    (through Arrow's to_pylist: iterating an Arrow-backed pandas column is ~10× slower)."""
    import pandas as pd
    import pyarrow as pa

    table = pa.Table.from_pandas(df, preserve_index=False)
    return pd.DataFrame({name: pd.Series(table.column(name).to_pylist(), dtype=object) for name in table.column_names})


def _thousands(n: int) -> str:
    return f"{n:,}".replace(",", ".")


# -- import ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ImportResult:
    """What an accepted import wrote."""

    import_id: int
    contract_code: str
    rows: int
    file_name: str
    sha256: str
    format: str                       # 'csv' | 'xlsx'
    encoding: str | None
    separator: str | None
    ignored_columns: tuple[str, ...]
    items_in_contract: int            # the contract's item count after the import


def _target_contract(db: Any, user: Principal, contract_code: str) -> dict[str, Any]:
    """The contract an import goes into: in the user's scope (else NotFound), of a recovery
    kind and in force (else InputError). `db` is a Store or a Tx."""
    code = (contract_code or "").strip() if isinstance(contract_code, str) else ""
    if not code:
        raise InputError(Problem("contrato", "Contrato: informe o código do contrato."))
    scope, params = contract_scope(user, "c")
    row = db.fetch_one(f"SELECT c.id, c.code, c.kind, c.status, c.organisation_id FROM contracts c "
                       f"WHERE c.code = ? AND {scope}", [code, *params])
    if row is None:
        raise NotFound(f"Contrato {code} não encontrado.", what="contract", key=code)
    if row["kind"] not in RECOVERY_KINDS:
        raise InputError(Problem("contrato", f"O contrato {code} é de {row['kind']}: a autorização de pesquisa não dá "
                                             "direito de remover coisa alguma (Lei 7.542/1986, art. 18, parágrafo "
                                             "único), portanto não há bens resgatados a importar."))
    if row["status"] != IMPORTABLE_STATUS:
        raise InputError(Problem("contrato", f"O contrato {code} está {row['status']}: só se importam bens para "
                                             "contrato vigente."))
    return row


def importable_contracts(store: Store, user: Principal) -> list[str]:
    """Codes of the contracts this user may import into (empty for roles that may not import)."""
    if not allowed(user, "import_items"):
        return []
    return [r["code"] for r in readable_contracts(store, user) if r["importable"]]


def _casualty_date(store: Store, contract_id: int) -> date | None:
    """The first day the contract's wreck can have been lying on the bottom (its casualty date, or the
    first day of the casualty's month or year when only those are known)."""
    row = store.fetch_one("SELECT w.casualty_year AS y, w.casualty_month AS m, w.casualty_day AS d FROM contracts c "
                          "JOIN wrecks w ON w.id = c.wreck_id WHERE c.id = ?", [contract_id])
    if row is None or row["y"] is None:
        return None
    try:
        return date(int(row["y"]), int(row["m"] or 1), int(row["d"] or 1))
    except ValueError:
        return None


def import_items(store: Store, user: Principal, contract_code: str, data: bytes, file_name: str, *,
                 today: date, progress: Progress | None = None, channel: str = "page",
                 note: dict[str, Any] | None = None) -> ImportResult:
    """Import an items file (CSV or XLSX) into a contract — all or nothing (issue 4; art. 23).

    Raises AccessDenied (role), NotFound (contract outside the user's scope), InputError (a
    survey contract — art. 18 sole paragraph —, a contract not in force, an empty, too large
    or already imported file, or bad rows: every bad cell as `linha N, coluna X`). Nothing is
    written unless everything is good; then one transaction writes the import record, the
    items and one audit row (`channel` and `note` go into the audit row). `progress(f, text)`
    is called with f from 0 to 1.
    """
    from valuation.inventory.importer import parse_items

    require(user, "import_items")
    contract = _target_contract(store, user, contract_code)
    name = (file_name or "").strip()[:255] or "arquivo"
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise InputError(Problem("arquivo", "O arquivo está vazio."))
    if len(data) > MAX_IMPORT_BYTES:
        raise InputError(Problem("arquivo", f"O arquivo tem {len(data) // (1024 * 1024)} MB; o limite é "
                                            f"{MAX_IMPORT_BYTES // (1024 * 1024)} MB. Divida-o em partes."))
    data = bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    earlier = store.fetch_one("SELECT id, file_name, imported_at, imported_by FROM imports WHERE contract_id = ? AND "
                              "kind = ? AND sha256 = ? ORDER BY id LIMIT 1", [contract["id"], IMPORT_KIND, sha])
    if earlier is not None:
        raise InputError(Problem("arquivo", f"Este arquivo já foi importado no contrato {contract['code']} em "
                                            f"{earlier['imported_at']:%d/%m/%Y} por {earlier['imported_by']} "
                                            f"(importação nº {earlier['id']}, {earlier['file_name']})."))

    def parse_progress(fraction: float, text: str) -> None:
        if progress:
            progress(min(0.9, 0.9 * fraction), text)

    parsed = parse_items(data, name, today=today, existing_codes=_codes_taken(store, int(contract["id"])),
                         progress=parse_progress, not_before=_casualty_date(store, int(contract["id"])))
    if progress:
        progress(0.92, f"gravando {_thousands(parsed.row_count)} itens")

    def run(tx: Tx) -> ImportResult:
        target = _target_contract(tx, user, contract["code"])   # still in force, inside the transaction
        import_id = int(tx.scalar(
            "INSERT INTO imports (contract_id, kind, file_name, sha256, row_count, imported_by, imported_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [target["id"], IMPORT_KIND, name, sha, parsed.row_count, user.username, store.now()]))
        tx.insert_frame("items", _insert_table(parsed, int(target["id"]), import_id))
        total = int(tx.scalar("SELECT count(*) FROM items WHERE contract_id = ?", [target["id"]]))
        after = {"import_id": import_id, "contract": target["code"], "file_name": name, "sha256": sha,
                 "rows": parsed.row_count, "format": parsed.format, "encoding": parsed.encoding,
                 "separator": parsed.separator, "channel": channel, **(note or {})}
        tx.audit("items_imported", "contract", target["id"], None, after)
        return ImportResult(import_id=import_id, contract_code=target["code"], rows=parsed.row_count,
                            file_name=name, sha256=sha, format=parsed.format, encoding=parsed.encoding,
                            separator=parsed.separator, ignored_columns=parsed.ignored_columns,
                            items_in_contract=total)

    try:
        result = store.write(user.username, run)
    except ConflictError:
        # UNIQUE (contract_id, item_code): another import wrote some of these codes after the
        # file was checked. Name them (the write was rolled back: nothing is kept).
        _refuse_codes_taken_meanwhile(store, int(contract["id"]), parsed)
        raise
    if result.rows >= CHECKPOINT_AFTER_ROWS:
        store.checkpoint()
    if progress:
        progress(1.0, f"{_thousands(result.rows)} itens importados")
    return result


def _codes_taken(store: Store, contract_id: int) -> Callable[[Any], Any]:
    """For the parser: which of the file's codes (an Arrow string column) the contract already
    has (`_lookup_codes`)."""
    return lambda codes: _lookup_codes(store, contract_id, codes)


def _lookup_codes(store: Store, contract_id: int, codes: Any) -> Any:
    """A boolean array: the codes (Arrow strings) the contract has — one join in DuckDB, the
    codes registered as an Arrow table."""
    import numpy as np
    import pyarrow as pa

    mask = np.zeros(len(codes), dtype=bool)
    if not len(codes) or not store.scalar("SELECT count(*) > 0 FROM items WHERE contract_id = ?", [contract_id]):
        return mask
    stage = pa.table({"row": pa.array(np.arange(len(codes), dtype=np.int64)), "item_code": codes})
    cur = store.cursor()
    view = f"_file_codes_{id(stage)}"
    try:
        cur.register(view, stage)
        rows = cur.sql(f"SELECT s.row FROM {view} s JOIN items i ON i.contract_id = ? AND i.item_code = s.item_code",
                       params=[contract_id]).to_arrow_table().column(0).to_numpy()
    finally:
        cur.unregister(view)
        cur.close()
    mask[rows] = True
    return mask


def _insert_table(parsed: ParsedItems, contract_id: int, import_id: int) -> Any:
    import numpy as np
    import pyarrow as pa

    table = pa.Table.from_pandas(parsed.frame, preserve_index=False)
    n = table.num_rows
    table = table.append_column("contract_id", pa.array(np.full(n, contract_id, dtype=np.int64)))
    return table.append_column("import_id", pa.array(np.full(n, import_id, dtype=np.int64)))


def _refuse_codes_taken_meanwhile(store: Store, contract_id: int, parsed: ParsedItems) -> None:
    """InputError naming the file's lines whose codes the contract has now (written by another
    import after the file was validated); nothing when there is none."""
    import pyarrow as pa

    codes = pa.Table.from_pandas(parsed.frame[["item_code"]], preserve_index=False).column(0).combine_chunks()
    rows = _lookup_codes(store, contract_id, codes).nonzero()[0][:1000]
    if len(rows):
        raise InputError([Problem(f"linha {int(parsed.lines[r])}, coluna item_code",
                                  "código já cadastrado neste contrato") for r in rows])


def list_imports(store: Store, user: Principal, *, contract_code: str | None = None,
                 limit: int = 50) -> pd.DataFrame:
    """The latest item imports the user may read: id, contract_code, file_name, sha256, row_count,
    imported_by, imported_at (newest first)."""
    require(user, "read_items")
    scope, params = contract_scope(user, "c")
    clauses = [scope, "m.kind = ?"]
    params.append(IMPORT_KIND)
    if contract_code:
        clauses.append("c.code = ?")
        params.append(contract_code)
    return store.fetch_df(
        "SELECT m.id, c.code AS contract_code, m.file_name, m.sha256, m.row_count, m.imported_by, m.imported_at "
        f"FROM imports m JOIN contracts c ON c.id = m.contract_id WHERE {' AND '.join(clauses)} "
        "ORDER BY m.id DESC LIMIT ?", [*params, max(1, min(int(limit), 500))])


# -- problems for a table on the page -------------------------------------------------------------
_CELL = re.compile(r"^linha (\d+), coluna (.+)$")
_LINE = re.compile(r"^linha (\d+)$")


def problems_frame(exc: InputError) -> pd.DataFrame:
    """The problems of a refused file as rows (linha, coluna, motivo) for an error table:
    `linha` is the file's line (None for a problem of the whole file), `coluna` the column's
    pt-BR label (the header the template and the exports use)."""
    import pandas as pd

    labels = {**COLUMN_LABELS}
    lines: list[int | None] = []
    columns: list[str] = []
    reasons: list[str] = []
    for p in exc.problems:
        m = _CELL.match(p.path or "")
        if m:
            column = m[2]
            lines.append(int(m[1]))
            columns.append(labels.get(column, column))  # the column by its label, as the sheet's header reads
        else:
            m = _LINE.match(p.path or "")
            lines.append(int(m[1]) if m else None)
            columns.append("" if m or not p.path else p.path)
        reasons.append(p.message)
    return pd.DataFrame({"linha": pd.array(lines, dtype="Int64"), "coluna": columns, "motivo": reasons})


__all__ = [
    "CSV_MAX_ROWS", "COLUMN_LABELS", "ImportResult", "InventorySummary", "ItemFilter", "RECOVERY_KINDS",
    "XLSX_MAX_ROWS", "count_items", "export_items", "filter_options", "import_items", "importable_contracts",
    "list_imports", "page_items", "problems_frame", "readable_contracts", "summarise",
]
