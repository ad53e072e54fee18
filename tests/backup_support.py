"""Tampering with a backup folder as its attacker would (issue 24): whoever can write the folder can
rewrite the Parquet files and the manifest's hashes too, so every helper here keeps the manifest
consistent with what it changed — the restore must then catch the change by something the folder
alone cannot forge."""
from __future__ import annotations

import hashlib
import json
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


def _parquet_digest(path: Path, table: str) -> dict[str, Any]:
    """The manifest's (rows, digest) of a table as it would restore from `path`."""
    con = duckdb.connect()
    try:
        con.execute(f"CREATE TABLE {table} AS SELECT * FROM read_parquet('{path}')")
        d = backup.table_digests(con)[table]
    finally:
        con.close()
    return {"rows": d.rows, "digest": d.digest}
