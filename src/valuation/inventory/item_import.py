"""Importing an items file into a contract (issue 4; Lei 7.542/1986 art. 23) — the store side.

All or nothing. The file is parsed and validated without the database
(`valuation.inventory.importer.parse_items`: every bad cell named `linha N, coluna X` with the
reason in Portuguese); a good file goes in ONE transaction: the `imports` record (who, when,
file name, sha256, row count), the items (one bulk insert through Arrow) and one audit row. A
file already imported into the same contract (same sha256) is refused. Items go only into a
contract IN FORCE of a recovery kind (`queries.RECOVERY_KINDS`: a survey removes nothing, art.
18 sole paragraph). Who: dpc into any contract, an explorer into its own organisation's
contracts only (another company's contract is "not found", as everywhere in the store).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core.errors import ConflictError, InputError, NotFound, Problem
from valuation.core.money import format_count
from valuation.core.problems import problems_frame as problems_table
from valuation.db.access import Principal, allowed, contract_scope, require
from valuation.inventory.fields import FIELD_LABELS
from valuation.inventory.queries import (
    IMPORTABLE_STATUS,
    RECOVERY_KINDS,
    readable_contracts,
)

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.store import Store, Tx
    from valuation.inventory.importer import ParsedItems

Progress = Callable[[float, str], None]

IMPORT_KIND = "itens"                      # imports.kind of an items file
MAX_IMPORT_BYTES = 200 * 1024 * 1024       # Streamlit's default upload limit; a 100 000-row CSV is ~12 MB
CHECKPOINT_AFTER_ROWS = 10_000             # architecture.md: CHECKPOINT after large imports


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


def _new_file(store: Store, contract: dict[str, Any], data: object) -> tuple[bytes, str]:
    """(the file's bytes, their sha256) unless the file is empty, too large or already imported
    into the contract (InputError)."""
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise InputError(Problem("arquivo", "O arquivo está vazio."))
    if len(data) > MAX_IMPORT_BYTES:
        raise InputError(Problem("arquivo", f"O arquivo tem {len(data) // (1024 * 1024)} MB; o limite é "
                                            f"{MAX_IMPORT_BYTES // (1024 * 1024)} MB. Divida-o em partes."))
    raw = bytes(data)
    sha = hashlib.sha256(raw).hexdigest()
    earlier = store.fetch_one("SELECT id, file_name, imported_at, imported_by FROM imports WHERE contract_id = ? AND "
                              "kind = ? AND sha256 = ? ORDER BY id LIMIT 1", [contract["id"], IMPORT_KIND, sha])
    if earlier is not None:
        raise InputError(Problem("arquivo", f"Este arquivo já foi importado no contrato {contract['code']} em "
                                            f"{earlier['imported_at']:%d/%m/%Y} por {earlier['imported_by']} "
                                            f"(importação nº {earlier['id']}, {earlier['file_name']})."))
    return raw, sha


def _write_import(tx: Tx, user: Principal, code: str, parsed: ParsedItems, name: str, sha: str, moment: Any,
                  channel: str, note: dict[str, Any] | None) -> ImportResult:
    """The import's one transaction: the import record, the items (one bulk insert), one audit row."""
    target = _target_contract(tx, user, code)   # still in force, inside the transaction
    import_id = int(tx.scalar(
        "INSERT INTO imports (contract_id, kind, file_name, sha256, row_count, imported_by, imported_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        [target["id"], IMPORT_KIND, name, sha, parsed.row_count, user.username, moment]))
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
    data, sha = _new_file(store, contract, data)

    def parse_progress(fraction: float, text: str) -> None:
        if progress:
            progress(min(0.9, 0.9 * fraction), text)

    parsed = parse_items(data, name, today=today, existing_codes=_codes_taken(store, int(contract["id"])),
                         progress=parse_progress, not_before=_casualty_date(store, int(contract["id"])), sha256=sha)
    if progress:
        progress(0.92, f"gravando {format_count(parsed.row_count)} itens")

    def run(tx: Tx) -> ImportResult:
        return _write_import(tx, user, contract["code"], parsed, name, sha, store.now(), channel, note)

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
        progress(1.0, f"{format_count(result.rows)} itens importados")
    return result


def _casualty_date(store: Store, contract_id: int) -> date | None:
    """The first day the contract's wreck can have been lying on the bottom: the earliest date its
    casualty can be, at the precision the registry knows it (`core.casualty.casualty_bounds`:
    a century's first day, a year's or month's first day, the day)."""
    from valuation.core.casualty import casualty_bounds

    row = store.fetch_one("SELECT w.casualty_year AS y, w.casualty_month AS m, w.casualty_day AS d, "
                          "w.casualty_precision AS p FROM contracts c JOIN wrecks w ON w.id = c.wreck_id "
                          "WHERE c.id = ?", [contract_id])
    if row is None or row["y"] is None:
        return None
    try:
        return casualty_bounds(int(row["y"]), row["m"], row["d"], row["p"])[0]
    except ValueError:
        return None


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
        raise InputError([Problem("item_code", "código já cadastrado neste contrato", line=int(parsed.lines[r]),
                                  column="item_code") for r in rows])


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
def problems_frame(exc: InputError) -> pd.DataFrame:
    """The problems of a refused file (linha, coluna, motivo), the column by its pt-BR label (the
    header the template and the exports use); linha empty for a problem of the whole file."""
    return problems_table(exc, FIELD_LABELS).rename(columns=str.lower)
