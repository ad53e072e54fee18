"""Tampering with a backup folder as its attacker would (issue 24): whoever can write the folder can
rewrite the Parquet files and the manifest's hashes too, so every helper here keeps the manifest
consistent with what it changed — the restore must then catch the change by something the folder
alone cannot forge."""
from __future__ import annotations

import functools
import hashlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from valuation.db import backup


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest(folder: Path) -> dict[str, Any]:
    return json.loads((folder / backup.MANIFEST).read_text(encoding="utf-8"))


def write_manifest(folder: Path, doc: dict[str, Any]) -> None:
    """The manifest with `files` recomputed from the Parquet files now in the folder."""
    doc["files"] = {p.name: sha(p) for p in sorted(folder.iterdir())
                    if p.is_file() and not p.is_symlink() and p.name != backup.MANIFEST}
    (folder / backup.MANIFEST).write_text(json.dumps(doc, default=str), encoding="utf-8")


def edit_manifest(folder: Path, change: Callable[[dict[str, Any]], None]) -> None:
    doc = manifest(folder)
    change(doc)
    write_manifest(folder, doc)


def rewrite_table(folder: Path, table: str, select: str, *, digests: bool = True) -> None:
    """Replace `<table>.parquet` by `select` ({src} is the old file) and make the manifest agree:
    the file's hash and, with `digests`, the table's row count and content digest (as an attacker
    who knows the digest's definition — it is in the source — would)."""
    path = folder / f"{table}.parquet"
    con = duckdb.connect()
    try:
        con.execute(f"COPY ({select.format(src=f'read_parquet({chr(39)}{path}{chr(39)})')}) TO '{path}.new' "
                    "(FORMAT parquet)")
    finally:
        con.close()
    Path(f"{path}.new").replace(path)
    doc = manifest(folder)
    if digests:
        doc["tables"][table] = _parquet_digest(path, table)
    write_manifest(folder, doc)


@functools.cache
def _schema() -> dict[str, list[tuple[str, str]]]:
    """Columns and types of every table of the current schema (built once by the migrations)."""
    from valuation.db.audit import HEAD_DDL
    from valuation.db.store import Store

    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "schema.duckdb"
        Store(db).close()
        con = duckdb.connect(str(db))
        try:
            con.execute(HEAD_DDL)
            return {t: backup._columns(con, t) for t in backup._tables(con)}
        finally:
            con.close()


def _parquet_digest(path: Path, table: str) -> dict[str, Any]:
    """The manifest's (rows, digest) of a table as the restore would load it from `path`: with the
    schema's columns and types (HUGEINT travels as text and is cast back)."""
    cols = _schema()[table]
    con = duckdb.connect()
    try:
        values = ", ".join(f'CAST("{c}" AS {t}) AS "{c}"' for c, t in cols)
        con.execute(f"CREATE TABLE {table} AS SELECT {values} FROM read_parquet('{path}')")
        d = backup.table_digests(con)[table]
    finally:
        con.close()
    return {"rows": d.rows, "digest": d.digest}


def plant_session(folder: Path, user_id: int, token: str, at: str) -> None:
    """A live session of `user_id` whose cookie is `token` (last seen at `at`, 'YYYY-MM-DD HH:MM:SS' UTC),
    as a sessions.parquet that the manifest lists with its digest and hash."""
    from valuation.accounts import sessions

    path = folder / "sessions.parquet"
    con = duckdb.connect()
    try:
        con.execute(f"COPY (SELECT 7::BIGINT AS id, '{sessions.token_hash(token)}' AS token_sha256, "
                    f"{int(user_id)}::BIGINT AS user_id, TIMESTAMP '{at}' AS created_at, "
                    f"TIMESTAMP '{at}' AS last_seen, NULL::TIMESTAMP AS revoked_at, "
                    f"NULL::VARCHAR AS revoked_reason) TO '{path}' (FORMAT parquet)")
    finally:
        con.close()
    doc = manifest(folder)
    doc["tables"]["sessions"] = _parquet_digest(path, "sessions")
    write_manifest(folder, doc)
