"""Issue 14, item 4 — a restore runs no SQL from the backup folder.

Reproduction (failed before the fix): `schema.sql`/`load.sql` were executed by IMPORT DATABASE;
appending a `COPY … TO` statement (with the manifest's hashes updated, which anyone who can write
the folder can do) wrote a host file, a `read_text` of a system file ran, `INSTALL httpfs` was
attempted. Now the schema comes from the project's own migrations and each known table is loaded
only from its Parquet file, by name, with its columns and types checked; the connection that reads
the folder may read nothing else.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from valuation.core.errors import InputError
from valuation.db import backup
from valuation.db.store import Store


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _format1_backup(db: Path, folder: Path) -> dict[str, Any]:
    """A backup exactly as the code before issue 14 wrote it: DuckDB's EXPORT DATABASE (schema.sql,
    load.sql, Parquet files) and a format-1 manifest."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        con.execute("BEGIN TRANSACTION")
        con.execute(f"EXPORT DATABASE '{folder}' (FORMAT parquet)")
        manifest = {"format": backup.FORMATS[0], "schema_version": backup._schema_version(con),
                    "tables": {t: {"rows": d.rows, "digest": d.digest} for t, d in backup.table_digests(con).items()},
                    "sequences": backup._sequences(con), "audit": backup._audit_state(con)}
        con.execute("COMMIT")
    finally:
        con.close()
    return manifest


def _write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    manifest["files"] = {p.name: _sha(p) for p in sorted(folder.iterdir()) if p.is_file() and p.name != backup.MANIFEST}
    (folder / backup.MANIFEST).write_text(json.dumps(manifest, default=str), encoding="utf-8")


def test_sql_appended_to_a_format1_backup_is_never_executed(small_world: Any, tmp_path: Path) -> None:
    small_world.store.write("ana", lambda tx: tx.audit("touch", "test", 1, None, {"v": 1}))
    small_world.store.close()
    folder = tmp_path / "old-backup"
    manifest = _format1_backup(small_world.path, folder)
    pwned = tmp_path / "host-file-written-by-the-backup.txt"
    stolen = tmp_path / "stolen.csv"
    with (folder / "load.sql").open("a", encoding="utf-8") as fh:
        fh.write(f"\nCOPY (SELECT 'pwned' AS x) TO '{pwned}';\n")
        fh.write(f"COPY (SELECT * FROM read_text('/etc/hostname')) TO '{stolen}';\n")
        fh.write("INSTALL httpfs;\n")
    with (folder / "schema.sql").open("a", encoding="utf-8") as fh:
        fh.write(f"\nCOPY (SELECT 1 AS y) TO '{pwned}.schema';\n")
    _write_manifest(folder, manifest)                          # the hashes updated, as an attacker would
    target = tmp_path / "restored.duckdb"
    with pytest.raises(InputError, match="no vouch"):         # format 1 predates vouching (issue 24)
        backup.restore(folder, target)
    summary = backup.restore(folder, target, accept_broken_chain=True)
    assert not pwned.exists() and not stolen.exists() and not Path(f"{pwned}.schema").exists()
    assert summary["audit"]["ok"] and summary["tables"]["users"] == 9 and summary["accepted_broken_chain"]
    with Store(target, read_only=True) as s:
        assert s.scalar("SELECT count(*) FROM users") == 9


@pytest.fixture
def good_backup(small_world: Any, tmp_path: Path) -> Path:
    small_world.store.write("ana", lambda tx: tx.audit("touch", "test", 1, None, {"v": 1}))
    folder = tmp_path / "b"
    backup.backup(small_world.store, folder)
    small_world.store.close()
    return folder


def _refused(folder: Path, tmp_path: Path, word: str) -> None:
    target = tmp_path / "r.duckdb"
    with pytest.raises(InputError) as refused:
        backup.restore(folder, target)
    assert word in str(refused.value), str(refused.value)
    assert not target.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".r.duckdb")]


def test_a_sql_file_slipped_into_a_backup_is_refused(good_backup: Path, tmp_path: Path) -> None:
    (good_backup / "load.sql").write_text(f"COPY (SELECT 1) TO '{tmp_path / 'x.txt'}';", encoding="utf-8")
    manifest = json.loads((good_backup / backup.MANIFEST).read_text(encoding="utf-8"))
    _write_manifest(good_backup, manifest)
    _refused(good_backup, tmp_path, "load.sql")
    assert not (tmp_path / "x.txt").exists()


def _replace_parquet(folder: Path, table: str, select: str) -> None:
    path = folder / f"{table}.parquet"
    con = duckdb.connect()
    try:
        con.execute(f"COPY ({select.format(src=f'read_parquet({chr(39)}{path}{chr(39)})')}) TO '{path}.new' "
                    "(FORMAT parquet)")
    finally:
        con.close()
    Path(f"{path}.new").replace(path)
    manifest = json.loads((folder / backup.MANIFEST).read_text(encoding="utf-8"))
    _write_manifest(folder, manifest)


def test_a_parquet_file_with_other_columns_is_refused(good_backup: Path, tmp_path: Path) -> None:
    _replace_parquet(good_backup, "users", "SELECT *, 'x' AS extra FROM {src}")
    _refused(good_backup, tmp_path, "users.parquet: columns or types differ")


def test_a_parquet_file_with_other_types_is_refused(good_backup: Path, tmp_path: Path) -> None:
    _replace_parquet(good_backup, "owners", "SELECT * REPLACE (CAST(id AS VARCHAR) AS id) FROM {src}")
    _refused(good_backup, tmp_path, "owners.parquet: columns or types differ")


def test_a_table_the_schema_does_not_know_is_refused(good_backup: Path, tmp_path: Path) -> None:
    con = duckdb.connect()
    con.execute(f"COPY (SELECT 1 AS a) TO '{good_backup / 'intruder.parquet'}' (FORMAT parquet)")
    con.close()
    manifest = json.loads((good_backup / backup.MANIFEST).read_text(encoding="utf-8"))
    manifest["tables"]["intruder"] = {"rows": 1, "digest": "0" * 64}
    _write_manifest(good_backup, manifest)
    _refused(good_backup, tmp_path, "'intruder' is not part of schema version")


def test_a_schema_version_this_program_does_not_know_is_refused(good_backup: Path, tmp_path: Path) -> None:
    manifest = json.loads((good_backup / backup.MANIFEST).read_text(encoding="utf-8"))
    manifest["schema_version"] = 999
    _write_manifest(good_backup, manifest)
    _refused(good_backup, tmp_path, "schema version 999")


def test_the_connection_that_reads_the_folder_can_read_nothing_else(tmp_path: Path) -> None:
    folder = tmp_path / "b"
    folder.mkdir()
    con = backup._sandboxed(tmp_path / "x.duckdb", folder)
    try:
        for sql in ("SELECT * FROM read_text('/etc/hostname')", f"COPY (SELECT 1) TO '{tmp_path / 'y.csv'}'",
                    "INSTALL httpfs", "SET enable_external_access = true", f"ATTACH '{tmp_path / 'z.duckdb'}'"):
            with pytest.raises(duckdb.Error):
                con.execute(sql)
    finally:
        con.close()
    assert not (tmp_path / "y.csv").exists() and not (tmp_path / "z.duckdb").exists()
