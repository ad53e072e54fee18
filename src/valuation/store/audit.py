"""The hash-chained audit log (architecture.md "Storage": tampering is detectable by a check).

Each row's `hash` is the sha256 of the canonical JSON (sorted keys, no spaces,
UTF-8) of its fields `id, at, actor, action, entity, entity_id, before_json,
after_json, prev_hash`, where `at` is written `YYYY-MM-DDTHH:MM:SS.ffffff` and
`prev_hash` is the previous row's hash (`GENESIS`, 64 zeros, for row 1). Ids run
1, 2, 3… without gaps, so `verify_chain` detects an edited row (its hash no
longer matches), a deleted row (a gap, and the next row's prev_hash points at
nothing) and a re-hashed edit (the following row's prev_hash). What a chain alone
cannot show is the removal of the newest rows: keep the head hash
(`chain_head`) somewhere else (a report, a printed record) to detect that.

Wreck positions never enter the log (rules.md §8: the admin, who reads the log,
is not cleared for positions): `redact_position` replaces them.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from valuation.auth import Principal, require
from valuation.errors import InputError, Problem

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

GENESIS = "0" * 64
HASHED_FIELDS = ("id", "at", "actor", "action", "entity", "entity_id", "before_json", "after_json", "prev_hash")
POSITION_FIELDS = ("lat_deg", "lat_min", "lat_hem", "lon_deg", "lon_min", "lon_hem", "datum",
                   "position_approximate", "depth_m", "latitude", "longitude")
VERIFY_BATCH = 10_000  # rows read per query while verifying: bounded memory on a long log
MAX_PAGE_SIZE = 500


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat(timespec="microseconds")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot audit a {type(value).__name__}")


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no spaces, UTF-8 text, Decimal/date as strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_default)


def _quoted(columns: tuple[str, ...]) -> str:
    """Column names quoted: `at` is a reserved word in DuckDB 2.0 ("at" in every statement)."""
    return ", ".join(f'"{c}"' for c in columns)


def _at_text(at: datetime) -> str:
    return at.replace(tzinfo=None).isoformat(sep="T", timespec="microseconds")


def row_hash(row: Mapping[str, Any]) -> str:
    """The sha256 (hex) of one audit row's canonical JSON over HASHED_FIELDS."""
    payload = {k: row[k] for k in HASHED_FIELDS}
    payload["id"] = int(payload["id"])
    payload["at"] = _at_text(payload["at"])
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def redact_position(record: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A copy of `record` with wreck-position fields replaced by 'sigilosa'."""
    if record is None:
        return None
    return {k: ("sigilosa" if k in POSITION_FIELDS and v is not None else v) for k, v in record.items()}


def append(cur: duckdb.DuckDBPyConnection, *, at: datetime, actor: str, action: str, entity: str,
           entity_id: object, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> dict[str, Any]:
    """Append one chained row on `cur` (inside the caller's transaction); returns the row."""
    last = cur.execute("SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1").fetchall()
    row: dict[str, Any] = {
        "id": (int(last[0][0]) + 1) if last else 1,
        "at": at.replace(tzinfo=None),
        "actor": actor,
        "action": action,
        "entity": entity,
        "entity_id": None if entity_id is None else str(entity_id),
        "before_json": None if before is None else canonical_json(dict(before)),
        "after_json": None if after is None else canonical_json(dict(after)),
        "prev_hash": last[0][1] if last else GENESIS,
    }
    row["hash"] = row_hash(row)
    cols = (*HASHED_FIELDS, "hash")
    cur.execute(f"INSERT INTO audit_log ({_quoted(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                [row[c] for c in cols]).fetchall()
    return row


def verify_chain(store: Any) -> tuple[bool, int | None, str]:
    """(ok, first_bad_id, message in pt-BR): checks ids, prev_hash links and every hash."""
    prev_id, prev_hash, checked = 0, GENESIS, 0
    cols = _quoted((*HASHED_FIELDS, "hash"))
    while True:
        rows = store.fetch(f"SELECT {cols} FROM audit_log WHERE id > ? ORDER BY id LIMIT {VERIFY_BATCH}", [prev_id])
        if not rows:
            break
        for row in rows:
            rid = int(row["id"])
            if rid != prev_id + 1:
                return (False, rid, f"Registro(s) de auditoria removido(s): falta(m) o(s) número(s) "
                                    f"{prev_id + 1} a {rid - 1} antes do registro {rid}.")
            if row["prev_hash"] != prev_hash:
                return (False, rid, f"Cadeia rompida no registro {rid}: o hash anterior não confere "
                                    f"(registro anterior alterado ou removido).")
            if row_hash(row) != row["hash"]:
                return (False, rid, f"Registro de auditoria {rid} foi alterado: o hash não confere.")
            prev_id, prev_hash, checked = rid, row["hash"], checked + 1
    if checked == 0:
        return (True, None, "Registro de auditoria vazio.")
    rows = "1 registro" if checked == 1 else f"{checked} registros"
    return (True, None, f"Cadeia íntegra: {rows}; último hash {prev_hash}.")


def chain_head(store: Any) -> dict[str, Any] | None:
    """The newest row's id and hash (record it elsewhere to detect removal of the newest rows)."""
    return store.fetch_one("SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1")


# -- reading the log (admin) ----------------------------------------------------------
def count_audit(store: Any, user: Principal, *, entity: str | None = None, actor: str | None = None) -> int:
    require(user, "read_audit")
    where, params = _filters(entity, actor)
    return int(store.scalar(f"SELECT count(*) FROM audit_log{where}", params))


def page_audit(store: Any, user: Principal, *, entity: str | None = None, actor: str | None = None,
               page: int = 1, page_size: int = 50) -> pd.DataFrame:
    """Newest first, paginated in SQL (admin only)."""
    require(user, "read_audit")
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        raise InputError(Problem("page", "Página: deve ser um número inteiro a partir de 1."))
    if isinstance(page_size, bool) or not isinstance(page_size, int) or not 1 <= page_size <= MAX_PAGE_SIZE:
        raise InputError(Problem("page_size", f"Itens por página: de 1 a {MAX_PAGE_SIZE}."))
    where, params = _filters(entity, actor)
    return store.fetch_df(
        f"SELECT id, \"at\", actor, action, entity, entity_id, before_json, after_json, hash "
        f"FROM audit_log{where} ORDER BY id DESC LIMIT ? OFFSET ?",
        [*params, page_size, (page - 1) * page_size])


def _filters(entity: str | None, actor: str | None) -> tuple[str, list[Any]]:
    clauses, params = [], []
    if entity:
        clauses.append("entity = ?")
        params.append(entity)
    if actor:
        clauses.append("actor = ?")
        params.append(actor)
    return ((" WHERE " + " AND ".join(clauses)) if clauses else ""), params
