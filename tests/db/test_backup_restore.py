"""Issue 8.8 — `db backup` / `db restore`: Parquet per table plus the schema, a round trip that
reproduces every table (checked by an independent EXCEPT ALL comparison, not only by the
backup's own digests), the audit chain included, and fresh ids after the restore."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import duckdb
import pytest

from valuation.accounts.users import add_user
from valuation.cli.main import main
from valuation.db import audit, backup
from valuation.db.store import Store
from valuation.registry.owners import create_owner

PY = sys.executable
OWNER = {"name": "Dono Novo", "doc_kind": "desconhecido", "nationality": "brasileira", "whereabouts_known": False}


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


def _populate(world: Any) -> None:
    """Audited writes through the application, plus a row inserted with an explicit id far beyond
    its sequence (as an import or a hand fix might do): the restore must not reuse ids."""
    s = world.store
    add_user(s, {"username": "novo.admin", "full_name": "Novo Admin", "role": "admin",
                 "password": "senha-longa-123"}, actor="cli")
    create_owner(s, world.principal("dpc"), OWNER)
    s.write("fixture", lambda tx: tx.execute(
        "INSERT INTO owners (id, name, doc_kind, nationality, whereabouts_known) "
        "VALUES (500, 'Dono Manual', 'desconhecido', 'brasileira', false)"))
    s.write("fixture", lambda tx: tx.audit("create", "owner", 500, None, {"name": "Dono Manual"}))


def _compare(a: Path, b: Path) -> list[str]:
    """Independent oracle: both files attached to one connection; per table the same columns and
    types, and no row of one missing from the other (EXCEPT ALL keeps duplicates)."""
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{a}' AS a (READ_ONLY)")
        con.execute(f"ATTACH '{b}' AS b (READ_ONLY)")
        tables = {}
        for db in ("a", "b"):
            tables[db] = {t: con.execute(
                "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = ? AND table_name = ? "
                "ORDER BY column_index", [db, t]).fetchall()
                for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = ?",
                                        [db]).fetchall()}
        same = set(tables["a"]) == set(tables["b"])
        diffs = [] if same else [f"tables {sorted(set(tables['a']) ^ set(tables['b']))}"]
        for t in sorted(set(tables["a"]) & set(tables["b"])):
            if tables["a"][t] != tables["b"][t]:
                diffs.append(f"{t}: columns differ")
                continue
            for x, y in (("a", "b"), ("b", "a")):
                n = con.execute(f'SELECT count(*) FROM (SELECT * FROM {x}."{t}" EXCEPT ALL SELECT * FROM {y}."{t}")'
                                ).fetchall()[0][0]
                if n:
                    diffs.append(f"{t}: {n} rows of {x} not in {y}")
        return diffs
    finally:
        con.close()


def test_round_trip_reproduces_every_table_and_the_chain_then_continues_it(small_world: Any, tmp_path: Path) -> None:
    _populate(small_world)
    small_world.store.close()
    original = small_world.path
    first = tmp_path / "first-copy"
    proc = subprocess.run([PY, "-m", "valuation", "db", "backup", "--db", str(original), "--to", str(first)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["audit"]["ok"] is True and summary["tables"]["owners"] == 3
    files = {p.name for p in first.iterdir()}
    assert {"manifest.json", "owners.parquet", "audit_log.parquet"} <= files
    assert not {p for p in files if not p.endswith(".parquet")} - {"manifest.json"}   # no SQL in a backup
    moved = tmp_path / "elsewhere" / "copy"             # a backup is relocatable
    moved.parent.mkdir()
    first.rename(moved)

    restored = tmp_path / "restored.duckdb"
    proc = subprocess.run([PY, "-m", "valuation", "db", "restore", "--from", str(moved), "--db", str(restored)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert _compare(original, restored) == []
    with Store(original, read_only=True) as a, Store(restored, read_only=True) as b:
        assert backup.table_digests(a) == backup.table_digests(b)
        assert audit.verify_chain(b)[0] and audit.chain_head(a) == audit.chain_head(b)
        assert audit.read_anchor(a) == audit.read_anchor(b)
        head = audit.chain_head(b)
    proc = subprocess.run([PY, "-m", "valuation", "audit", "verify", "--db", str(restored)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout)["ok"] is True

    with Store(restored) as s:                           # a new write after the restore
        new_id = create_owner(s, small_world.principal("dpc"), OWNER)
        assert new_id == 501                             # past the explicit id 500, not 3
        row = s.fetch_one("SELECT id, prev_hash FROM audit_log ORDER BY id DESC LIMIT 1")
        assert (row["id"], row["prev_hash"]) == (head["id"] + 1, head["hash"])
        assert audit.verify_chain(s)[0]


def test_every_sequence_restarts_past_the_largest_id(small_world: Any, tmp_path: Path, capsys) -> None:
    s = small_world.store
    s.write("fixture", lambda tx: tx.execute(
        "INSERT INTO wrecks (id, code, name, hull_material, casualty_year, casualty_precision, casualty_type, "
        "lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, office_code, situation) VALUES "
        "(90, 'X-90', 'Manual', 'aço', 2000, 'year', 'naufrágio', 1, 0, 'S', 40, 0, 'W', 'WGS-84', 'CPRJ', "
        "'soçobrada')"))
    s.close()
    assert cli(capsys, "db", "backup", "--db", str(small_world.path), "--to", str(tmp_path / "b"))[0] == 0
    restored = tmp_path / "r.duckdb"
    assert cli(capsys, "db", "restore", "--from", str(tmp_path / "b"), "--db", str(restored))[0] == 0
    con = duckdb.connect(str(restored))
    try:
        pairs = con.execute("SELECT table_name, column_name, column_default FROM duckdb_columns() "
                            "WHERE column_default LIKE 'nextval(%'").fetchall()
        assert len(pairs) >= 8
        for table, column, default in pairs:
            top = con.execute(f'SELECT coalesce(max("{column}"), 0) FROM "{table}"').fetchall()[0][0]
            assert con.execute(f"SELECT {default}").fetchall()[0][0] > top, (table, default)
    finally:
        con.close()


def test_restore_never_overwrites_and_leaves_nothing_behind(small_world: Any, tmp_path: Path, capsys) -> None:
    small_world.store.close()
    assert cli(capsys, "db", "backup", "--db", str(small_world.path), "--to", str(tmp_path / "b"))[0] == 0
    target = tmp_path / "existing.duckdb"
    target.write_bytes(b"precious")
    rc, out, err = cli(capsys, "db", "restore", "--from", str(tmp_path / "b"), "--db", str(target))
    assert rc == 2 and out == "" and "already exists" in err
    assert target.read_bytes() == b"precious"
    wal_only = tmp_path / "w.duckdb"
    (tmp_path / "w.duckdb.wal").write_bytes(b"x")          # a stray WAL counts as an existing database
    assert cli(capsys, "db", "restore", "--from", str(tmp_path / "b"), "--db", str(wal_only))[0] == 2
    assert not wal_only.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_backup_refuses_a_directory_that_holds_files(small_world: Any, tmp_path: Path, capsys) -> None:
    small_world.store.close()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "keep.txt").write_text("mine")
    rc, out, err = cli(capsys, "db", "backup", "--db", str(small_world.path), "--to", str(tmp_path / "b"))
    assert rc == 2 and "not an empty directory" in err
    assert [p.name for p in (tmp_path / "b").iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("damage, word", [
    (lambda d: (d / "owners.parquet").write_bytes((d / "owners.parquet").read_bytes()[:-20] + b"\0" * 20),
     "owners.parquet was altered"),
    (lambda d: (d / "users.parquet").unlink(), "users.parquet is missing"),
    (lambda d: (d / "extra.parquet").write_bytes(b"PAR1"), "extra.parquet is in the backup directory"),
    (lambda d: (d / "manifest.json").unlink(), "not a valuation backup"),
    (lambda d: (d / "manifest.json").write_text("{", encoding="utf-8"), "unreadable"),
])
def test_a_damaged_backup_is_refused_and_creates_nothing(small_world: Any, tmp_path: Path, capsys, damage,
                                                         word: str) -> None:
    small_world.store.close()
    b = tmp_path / "b"
    assert cli(capsys, "db", "backup", "--db", str(small_world.path), "--to", str(b))[0] == 0
    damage(b)
    target = tmp_path / "r.duckdb"
    rc, out, err = cli(capsys, "db", "restore", "--from", str(b), "--db", str(target))
    assert rc == 2 and word in err and "Traceback" not in err, err
    assert not target.exists() and not any(p.name.startswith(".r.duckdb") for p in tmp_path.iterdir())


def test_a_manifest_rewritten_to_match_altered_files_still_fails_the_digest_check(small_world: Any,
                                                                                tmp_path: Path) -> None:
    """Replacing a table's Parquet and its file hash is caught by the per-table content digest."""
    s = small_world.store
    b = tmp_path / "b"
    backup.backup(s, b)
    con = duckdb.connect()
    con.execute(f"COPY (SELECT * REPLACE ('Outro nome' AS name) FROM read_parquet('{b / 'wrecks.parquet'}')) "
                f"TO '{tmp_path / 'w.parquet'}' (FORMAT parquet)")
    con.close()
    shutil.move(tmp_path / "w.parquet", b / "wrecks.parquet")
    manifest = json.loads((b / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["wrecks.parquet"] = backup._file_sha256(b / "wrecks.parquet")
    (b / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(backup.InputError, match="table wrecks: restored content differs"):
        backup.restore(b, tmp_path / "r.duckdb")
    assert not (tmp_path / "r.duckdb").exists()


def test_a_broken_chain_is_backed_up_but_restored_only_when_accepted_and_then_recorded(small_world: Any,
                                                                                     tmp_path: Path, capsys) -> None:
    s = small_world.store
    for i in range(3):
        s.write("ana", lambda tx, i=i: tx.audit("touch", "test", i, None, {"i": i}))
    s.write("mallory", lambda tx: tx.execute("UPDATE audit_log SET actor = 'x' WHERE id = 2"))
    s.close()
    rc, out, err = cli(capsys, "db", "backup", "--db", str(small_world.path), "--to", str(tmp_path / "b"))
    assert rc == 0 and json.loads(out)["audit"]["first_bad_id"] == 2 and "does not verify" in err
    rc, out, err = cli(capsys, "db", "restore", "--from", str(tmp_path / "b"), "--db", str(tmp_path / "r.duckdb"))
    assert rc == 2 and out == "" and "--accept-broken-chain" in err and not (tmp_path / "r.duckdb").exists()
    rc, out, err = cli(capsys, "db", "restore", "--from", str(tmp_path / "b"), "--db", str(tmp_path / "r.duckdb"),
                       "--accept-broken-chain")
    assert rc == 0 and json.loads(out)["accepted_broken_chain"] is True and "accepted" in err
    with Store(tmp_path / "r.duckdb", read_only=True) as r:
        last = r.fetch_one("SELECT actor, action, entity_id FROM audit_log ORDER BY id DESC LIMIT 1")
        assert last == {"actor": "cli", "action": audit.RESTORE_ACCEPTED_ACTION, "entity_id": "2"}
        assert audit.verify_chain(r)[:2] == (False, 2)
    raw = duckdb.connect(str(tmp_path / "r.duckdb"))            # even with the original break repaired…
    raw.execute("UPDATE audit_log SET actor = 'ana' WHERE id = 2")
    raw.close()
    with Store(tmp_path / "r.duckdb", read_only=True) as r:      # …the acceptance stays reported
        ok, bad, message = audit.verify_chain(r)
        assert not ok and "accept-broken-chain" in message


def test_a_backup_taken_by_the_dashboard_process_while_it_writes_is_consistent(small_world: Any,
                                                                               tmp_path: Path) -> None:
    """backup() reads files, digests and head in one transaction: with writes going on in other
    threads, the restore still reproduces the manifest exactly and the chain verifies."""
    s = small_world.store
    stop = threading.Event()

    def writer() -> None:
        i = 0
        while not stop.is_set():
            s.write("w", lambda tx, i=i: (tx.execute("UPDATE users SET failed_attempts = ? WHERE username = 'com.navy'",
                                                     [i % 3]), tx.audit("touch", "user", "com.navy", None, {"i": i})))
            i += 1

    t = threading.Thread(target=writer)
    t.start()
    try:
        manifests = [backup.backup(s, tmp_path / f"b{i}") for i in range(3)]
    finally:
        stop.set()
        t.join()
    for i, manifest in enumerate(manifests):
        summary = backup.restore(tmp_path / f"b{i}", tmp_path / f"r{i}.duckdb")
        assert summary["audit"]["ok"] is True, summary["audit"]
        assert summary["audit"]["head_id"] == manifest["audit"]["head_id"]
        assert summary["tables"]["audit_log"] == manifest["tables"]["audit_log"]["rows"]
