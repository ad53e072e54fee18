"""Issue 24, item 1 — a backup cannot plant anything: ephemeral security state is never restored, and a
restore refuses any row that the backup's vouch (sealed under the audit key) does not cover.

Reproduction (failed before the fix): a row added to `sessions.parquet` (its file hash and table digest
updated in the manifest, which whoever can write the folder can do) was restored, `audit verify`
passed, and the planted token opened the dashboard without a password; a wreck, an item or an
organisation added (or a position moved) the same way restored just as well. Now:

- sessions and login throttle state are never backed up and never restored (a restored database starts
  with no sessions); a backup that lists them has them ignored, and the summary says so;
- every other table is covered by the backup's vouch: the digest of all its tables and its chain head,
  taken in the backup's snapshot, HMAC-sealed under VALUATION_AUDIT_KEY, and recorded in the live chain
  by a `backup_taken` row. A restored table that differs refuses the restore (unless
  --accept-broken-chain, which `audit verify` reports forever); with the key configured, a vouch
  recomputed or unsealed by someone without it is refused too.

The rows are planted by construction (copies of real rows with new ids), never chosen by the code
under test.
"""
from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support import backup as B
from tests.support import partition as P
from valuation.accounts import sessions
from valuation.cli.main import main
from valuation.core.errors import InputError
from valuation.db import audit, backup
from valuation.db import backup_vouch as vouching
from valuation.db.store import Store

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import TAMPER  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]

NOW = datetime(2025, 6, 30, 12, 0, tzinfo=UTC)
STAMP = f"{NOW:%Y-%m-%d %H:%M:%S}"
TOKEN = "t" * 43                                  # a token whose hash the attacker puts in sessions.parquet


def _plant_throttle(folder: Path) -> None:
    path = folder / "login_throttle.parquet"
    con = duckdb.connect()
    try:
        con.execute(f"COPY (SELECT 'account' AS scope, 'dpc.silva' AS key, 1000 AS failures, TIMESTAMP '{STAMP}' "
                    f"AS last_failure_at, TIMESTAMP '2099-01-01' AS blocked_until, "
                    f"CAST(NULL AS TIMESTAMP) AS started_at, 0 AS refused, CAST(NULL AS VARCHAR) AS detail) "
                    f"TO '{path}' (FORMAT parquet)")
    finally:
        con.close()
    doc = B.manifest(folder)
    doc["tables"]["login_throttle"] = B._parquet_digest(path, "login_throttle")
    B.write_manifest(folder, doc)


@pytest.fixture(scope="module")
def world_backup(tmp_path_factory: pytest.TempPathFactory,
                 _world_template: tuple[Path, dict[str, int]]) -> tuple[dict[str, int], Path]:
    """The small world's ids and its backup, taken once for the module: each test plants into a copy (`_fresh`)."""
    template, ids = _world_template
    tmp = tmp_path_factory.mktemp("planted-rows")
    shutil.copyfile(template, tmp / "world.duckdb")
    with Store(tmp / "world.duckdb") as store:
        backup.backup(store, tmp / "pristine")
    return ids, tmp / "pristine"


def _fresh(pristine: Path, tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    shutil.copytree(pristine, folder)
    return folder


def test_a_planted_session_and_throttle_are_never_restored(world_backup: tuple[dict[str, int], Path],
                                                          tmp_path: Path) -> None:
    ids, pristine = world_backup
    folder = _fresh(pristine, tmp_path, "planted")
    B.plant_session(folder, ids["dpc.silva"], TOKEN, STAMP)
    _plant_throttle(folder)
    summary = backup.restore(folder, tmp_path / "r.duckdb")
    TAMPER.count("restore:planted:sessions", outcome="not restored")
    TAMPER.count("restore:planted:login_throttle", outcome="not restored")
    assert summary["not_restored"] == {"login_throttle": 1, "sessions": 1}
    with Store(tmp_path / "r.duckdb") as s:
        assert s.scalar("SELECT count(*) FROM sessions") == 0
        assert s.scalar("SELECT count(*) FROM login_throttle") == 0
        assert sessions.validate(s, TOKEN, now=NOW) is None           # the planted cookie opens nothing
        assert audit.verify_chain(s)[0]


def test_a_backup_holds_no_sessions_nor_throttle_state(small_world: Any, tmp_path: Path) -> None:
    s = small_world.store
    sessions.issue(s, small_world.principal("dpc"), now=NOW)
    s.write("fixture", lambda tx: tx.execute("INSERT INTO login_throttle (scope, key, failures, last_failure_at, "
                                             "blocked_until) VALUES ('client', '10.0.0.9', 3, ?, NULL)",
                                             [NOW.replace(tzinfo=None)]))
    manifest = backup.backup(s, tmp_path / "b")
    assert not {"sessions", "login_throttle"} & set(manifest["tables"])
    assert not (tmp_path / "b" / "sessions.parquet").exists()
    assert not (tmp_path / "b" / "login_throttle.parquet").exists()


def _copy_first_row(table: str, new_id: str, **changes: str) -> str:
    """SELECT of the backup's rows plus a copy of its first row under a new id (and `changes`)."""
    repl = ", ".join(f"{v} AS {k}" for k, v in {"id": new_id, **changes}.items())
    return f"SELECT * FROM {{src}} UNION ALL (SELECT * REPLACE ({repl}) FROM {{src}} ORDER BY id LIMIT 1)"


PLANTED: dict[str, tuple[str, str]] = {
    "a wreck": ("wrecks", _copy_first_row("wrecks", "9001", code="'W-PLANTADO'")),
    "a wreck's position moved": ("wrecks", "SELECT * REPLACE (CASE WHEN id = (SELECT min(id) FROM {src}) THEN 1 "
                                           "ELSE lat_deg END AS lat_deg) FROM {src}"),
    "an item": ("items", _copy_first_row("items", "9001", item_code="'PLANTADO-1'")),
    "an organisation": ("organisations", _copy_first_row("organisations", "9001", name="'Plantada Ltda'",
                                                      cnpj="NULL")),
    "a contract": ("contracts", _copy_first_row("contracts", "9001", code="'PLANT-1'")),
    "an admin": ("users", _copy_first_row("users", "9001", username="'plantado'", role="'admin'")),
    "an owner": ("owners", _copy_first_row("owners", "9001", name="'Dono Plantado'")),
    "an office's name": ("offices", "SELECT * REPLACE ('Capitania Plantada' AS name) FROM {src}"),
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_a_planted_row_of_record_is_refused(world_backup: tuple[dict[str, int], Path], tmp_path: Path,
                                            name: str) -> None:
    _ids, pristine = world_backup
    table, select = PLANTED[name]
    folder = _fresh(pristine, tmp_path, "planted")
    B.rewrite_table(folder, table, select)
    target = tmp_path / "r.duckdb"
    with pytest.raises(InputError) as refused:
        backup.restore(folder, target)
    TAMPER.count(f"restore:planted:{table}", outcome="refused")
    assert "vouch" in str(refused.value), str(refused.value)
    assert not target.exists()


def test_every_table_but_the_ephemeral_ones_is_in_the_vouch(world_backup: tuple[dict[str, int], Path]) -> None:
    """The vouch's digest changes when any table other than sessions and login_throttle changes."""
    _ids, pristine = world_backup
    tables = B.manifest(pristine)["tables"]
    base = backup.vouch_digest(tables)
    for table in tables:
        changed = {**tables, table: {**tables[table], "digest": "0" * 64}}
        assert backup.vouch_digest(changed) != base, table
    for table in backup.EPHEMERAL_TABLES:
        planted = {**tables, table: {"rows": 1, "digest": "0" * 64}}
        assert backup.vouch_digest(planted) == base, table
    assert backup.EPHEMERAL_TABLES == ("login_throttle", "sessions")


def test_no_tampered_table_restores(small_world: Any, tmp_path: Path) -> None:
    """One row removed from each table of a backup that holds rows (the small world with an issued
    statement): not one restores. Most are refused by the vouch; a removed row that others reference
    may be refused first by a foreign key; a row removed from a lookup a migration fills (roles) by the
    manifest's digest, since the migration wrote it again."""
    P.prepare(small_world)
    P.issued_a1(small_world)
    backup.backup(small_world.store, tmp_path / "pristine")
    small_world.store.close()
    doc = B.manifest(tmp_path / "pristine")
    tables = sorted(t for t, e in doc["tables"].items() if e["rows"] > 0 and t != "schema_migrations")
    assert len(tables) >= 15, tables
    for table in tables:
        folder = _fresh(tmp_path / "pristine", tmp_path, f"minus-{table}")
        B.rewrite_table(folder, table, "SELECT * FROM {src} OFFSET 1")
        with pytest.raises(InputError) as refused:
            backup.restore(folder, tmp_path / f"r-{table}.duckdb")
        text = str(refused.value)
        why = "vouch" if "vouch" in text else "constraint" if "constraint" in text else "chain or seal" \
            if ("audit" in text or "chain" in text or "seal" in text or "selo" in text) else "manifest digest" \
            if "differs from the manifest" in text else "other"   # a lookup a migration fills (roles)
        TAMPER.count(f"restore:tampered:{table}", outcome=f"refused ({why})")
        assert why != "other", (table, text)
        assert not (tmp_path / f"r-{table}.duckdb").exists(), table
        shutil.rmtree(folder)


def test_accepting_a_planted_row_is_recorded_forever(world_backup: tuple[dict[str, int], Path], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    _ids, pristine = world_backup
    folder = _fresh(pristine, tmp_path, "planted")
    B.rewrite_table(folder, "wrecks", PLANTED["a wreck"][1])
    capsys.readouterr()
    assert main(["db", "restore", "--from", str(folder), "--db", str(tmp_path / "r.duckdb"),
                 "--accept-broken-chain"]) == 0
    capsys.readouterr()
    assert main(["audit", "verify", "--db", str(tmp_path / "r.duckdb")]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert "accept-broken-chain" in doc["message"]


def test_a_backup_without_a_vouch_is_refused_unless_accepted(world_backup: tuple[dict[str, int], Path],
                                                             tmp_path: Path) -> None:
    """A folder in the format before vouching (2), or one whose vouch was removed."""
    _ids, pristine = world_backup
    folder = _fresh(pristine, tmp_path, "old")
    B.edit_manifest(folder, lambda d: (d.pop("vouch"), d.update(format="valuation-backup/2")))
    with pytest.raises(InputError, match="vouch"):
        backup.restore(folder, tmp_path / "r.duckdb")
    summary = backup.restore(folder, tmp_path / "r.duckdb", accept_broken_chain=True)
    assert summary["accepted_broken_chain"] is True


def test_the_backup_is_recorded_in_the_live_chain_with_its_vouch(small_world: Any, tmp_path: Path) -> None:
    s = small_world.store
    manifest = backup.backup(s, tmp_path / "b", actor="agenda")
    row = s.fetch_one("SELECT actor, action, entity, entity_id, after_json FROM audit_log ORDER BY id DESC LIMIT 1")
    assert (row["actor"], row["action"], row["entity"], row["entity_id"]) == ("agenda", "backup_taken", "backup", "b")
    after = json.loads(row["after_json"])
    assert after["digest"] == manifest["vouch"]["digest"] and after["head_id"] == manifest["vouch"]["head_id"]
    assert manifest["recorded"] is True and audit.verify_chain(s)[0]
    s.close()
    summary = backup.restore(tmp_path / "b", tmp_path / "r.duckdb")
    assert summary["vouch"]["digest"] == after["digest"]
    with Store(small_world.path, read_only=True) as live:     # what a restore drill checks
        found = vouching.find_record(live, summary["vouch"]["digest"])
        assert found is not None and (found["actor"], found["folder"]) == ("agenda", "b")
        assert vouching.find_record(live, "0" * 64) is None


def test_with_the_key_a_recomputed_or_stripped_vouch_is_refused(small_world: Any, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(audit.AUDIT_KEY_ENV, "k" * 64)
    s = small_world.store
    audit.seal_chain(s, actor="cli")
    backup.backup(s, tmp_path / "pristine")
    s.close()
    assert backup.restore(tmp_path / "pristine", tmp_path / "ok.duckdb")["vouch"]["seal"] == "verified"
    for name, change in (("recomputed", "digest"), ("stripped", "seal")):
        folder = _fresh(tmp_path / "pristine", tmp_path, name)
        B.rewrite_table(folder, "wrecks", PLANTED["a wreck"][1])
        doc = B.manifest(folder)
        if change == "digest":       # the attacker recomputes the vouch's digest from the new tables
            doc["vouch"]["digest"] = backup.vouch_digest(doc["tables"])
        else:
            doc["vouch"]["digest"] = backup.vouch_digest(doc["tables"])
            doc["vouch"]["seal"] = None
        B.write_manifest(folder, doc)
        with pytest.raises(InputError, match="vouch"):
            backup.restore(folder, tmp_path / f"{name}.duckdb")
        TAMPER.count(f"restore:planted:vouch-{name}", outcome="refused")
