"""Issue 14, item 2 — the audit seal cannot be laundered.

Reproduction (failed before the fix): with VALUATION_AUDIT_KEY set, rewrite a row, re-hash the
chain and forge `audit_head`; `audit verify` reports the bad seal — but the next ordinary login
re-sealed the forged anchor and `verify` then passed. Now a write never extends an anchor whose
seal does not verify (AuditSealError; the service records an alert the admin sees), writes made
without the key in a keyed deployment are refused, and switching the key on or rotating it is
an explicit, verified, audited step (`audit seal`).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.conftest import NOW
from valuation.accounts import login
from valuation.accounts.users import add_user
from valuation.cli.main import main
from valuation.db import audit
from valuation.db.store import Store
from valuation.jobs.runs import SEAL_ALERT, audit_alert

KEY = "chave-do-selo-" * 4


def _build(path: Path) -> None:
    with Store(path) as s:
        for name in ("ana.admin", "bia.dpc"):
            add_user(s, {"username": name, "full_name": name.title(), "role": "admin" if "admin" in name else "dpc",
                         "password": "uma-senha-comprida"}, actor="cli")
        for i in range(4):
            s.write("ana.admin", lambda tx, i=i: tx.audit("touch", "test", i, {"v": i}, {"v": i + 1}))


def _forge(path: Path) -> None:
    """What the issue did: edit a row, re-hash the whole chain, rewrite the anchor (not the seal: no key)."""
    con = duckdb.connect(str(path))
    try:
        names = [*audit.HASHED_FIELDS, "seals_json", "hash"]
        cols = ", ".join(f'"{c}"' for c in names[:-1])
        rows = [dict(zip(names, r)) for r in con.execute(f"SELECT {cols}, hash FROM audit_log ORDER BY id").fetchall()]
        prev = audit.GENESIS
        for row in rows:
            if row["id"] == 3:
                row["after_json"] = '{"v":999}'
            row["prev_hash"], row["hash"] = prev, None
            row["hash"] = audit.row_hash(row)
            prev = row["hash"]
            con.execute("UPDATE audit_log SET after_json = ?, prev_hash = ?, hash = ? WHERE id = ?",
                        [row["after_json"], row["prev_hash"], row["hash"], row["id"]])
        con.execute(f"UPDATE {audit.HEAD_TABLE} SET head_hash = ?", [prev])
    finally:
        con.close()


def _verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    rc = main(["audit", "verify", "--db", str(path)])
    return rc, json.loads(capsys.readouterr().out)


@pytest.fixture
def sealed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(audit.AUDIT_KEY_ENV, KEY)
    path = tmp_path / "sealed.duckdb"
    _build(path)
    return path


def test_a_login_no_longer_reseals_a_forged_anchor(sealed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _forge(sealed)
    rc, doc = _verify(sealed, capsys)
    assert rc == 1 and "Selo" in doc["message"]
    with Store(sealed) as s:
        anchor = audit.read_anchor(s)
        user = login.authenticate(s, "ana.admin", "uma-senha-comprida", now=NOW)   # the admin still gets in…
        assert user.role == "admin"
        assert audit.read_anchor(s) == anchor                                     # …but nothing extended it
        with pytest.raises(audit.AuditSealError, match="selo"):
            s.write("ana.admin", lambda tx: tx.audit("touch", "test", 9, None, {"v": 9}))
    rc, doc = _verify(sealed, capsys)
    assert rc == 1 and "Selo" in doc["message"]                                   # still reported


def test_writes_without_the_key_in_a_keyed_deployment_are_refused(sealed: Path, capsys, monkeypatch) -> None:
    monkeypatch.delenv(audit.AUDIT_KEY_ENV)
    with Store(sealed) as s:
        before = (s.scalar("SELECT count(*) FROM audit_log"), audit.read_anchor(s))
        with pytest.raises(audit.AuditSealError, match=audit.AUDIT_KEY_ENV):
            s.write("bia.dpc", lambda tx: tx.audit("touch", "test", 9, None, {"v": 9}))
        assert (s.scalar("SELECT count(*) FROM audit_log"), audit.read_anchor(s)) == before
    monkeypatch.setenv(audit.AUDIT_KEY_ENV, KEY)
    rc, doc = _verify(sealed, capsys)
    assert rc == 0 and "selo é válido" in doc["message"]                          # no false alarm later


def test_switching_the_key_on_and_rotating_it_are_explicit_verified_steps(tmp_path: Path, monkeypatch, capsys) -> None:
    path = tmp_path / "plain.duckdb"
    _build(path)                                                                 # no key yet
    monkeypatch.setenv(audit.AUDIT_KEY_ENV, KEY)
    with Store(path) as s, pytest.raises(audit.AuditSealError, match="audit seal"):
        s.write("bia.dpc", lambda tx: tx.audit("touch", "test", 9, None, {"v": 9}))   # a stripped seal looks alike
    assert main(["audit", "seal", "--db", str(path)]) == 0
    assert _verify(path, capsys)[0] == 0
    monkeypatch.setenv("OLD_AUDIT_KEY", KEY)
    monkeypatch.setenv(audit.AUDIT_KEY_ENV, "uma-chave-nova-" * 4)
    assert main(["audit", "seal", "--db", str(path), "--old-key-env", "OLD_AUDIT_KEY"]) == 0
    rc, doc = _verify(path, capsys)
    assert rc == 0 and "selo é válido" in doc["message"]
    with Store(path) as s:
        actions = [r["action"] for r in s.fetch("SELECT action FROM audit_log ORDER BY id")]
    assert actions.count("audit_sealed") == 2


def test_sealing_refuses_a_chain_that_does_not_verify(tmp_path: Path, monkeypatch, capsys) -> None:
    path = tmp_path / "plain.duckdb"
    _build(path)
    con = duckdb.connect(str(path))
    con.execute("UPDATE audit_log SET actor = 'mallory' WHERE id = 2")
    con.close()
    monkeypatch.setenv(audit.AUDIT_KEY_ENV, KEY)
    assert main(["audit", "seal", "--db", str(path)]) == 3                        # refused, nothing sealed
    with Store(path) as s:
        assert not audit.read_anchor(s)["seal"]


def test_the_service_alerts_the_admin_when_a_write_is_refused(sealed: Path) -> None:
    from service.alerts import install, uninstall
    from valuation.jobs.settings import JobSettings

    _forge(sealed)
    with Store(sealed) as s:
        hook = install(s, JobSettings.from_env(sealed))
        try:
            with pytest.raises(audit.AuditSealError):
                s.write("bia.dpc", lambda tx: tx.audit("touch", "test", 9, None, {"v": 9}))
            hook.join()
        finally:
            uninstall(hook)
        alert = audit_alert(s)
        assert alert is not None and "selo" in alert["message"]
        assert s.scalar("SELECT job FROM job_runs ORDER BY id DESC LIMIT 1") == SEAL_ALERT
        assert s.scalar("SELECT count(*) FROM audit_log WHERE action LIKE '%job%'") == 0   # the chain stays as it was


def test_a_copy_of_a_sealed_database_keeps_refusing_until_verified(sealed: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.duckdb"
    shutil.copyfile(sealed, copy)
    _forge(copy)
    with Store(copy) as s, pytest.raises(audit.AuditSealError):
        s.write("x", lambda tx: tx.audit("touch", "test", 1, None, None))
