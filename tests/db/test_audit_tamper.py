"""Issue 8.1 — the audit trail: every write is audited, and tampering behind the
application's back (raw DuckDB on the file, no Store) is reported by
`python -m valuation audit verify`, naming the first broken row.

The expected row numbers come from the construction of each tampering (N rows, the
k-th edited…), never from the verifier. What the file alone cannot reveal is stated
as tests too ("documented limits"), with the check that does reveal it.
"""
from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.conftest import FAST_HASHER, NOW
from tests.support.package_modules import PACKAGE_DIR, source_files
from valuation.accounts import login, passwords
from valuation.accounts.login import AuthenticationFailed
from valuation.accounts.users import add_user
from valuation.cli.main import main
from valuation.db import audit
from valuation.db.store import Store

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import TAMPER  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]

N = 8          # rows in the log built by `audited_db`
K = 4          # "a middle row"
KEY_ENV = audit.AUDIT_KEY_ENV
PY = sys.executable
HASHED = ("id", "at", "actor", "action", "entity", "entity_id", "before_json", "after_json", "prev_hash",
          "seals_json")   # row seals (issue 14), part of the hash when present


def _build(path: Path) -> None:
    """A database whose log holds exactly N rows, all written by application code."""
    with Store(path) as s:
        for name, role in (("ana.admin", "admin"), ("bia.dpc", "dpc"), ("caio.dpc", "dpc")):   # 3 rows
            add_user(s, {"username": name, "full_name": name.title(), "role": role,
                         "password": "uma-senha-comprida"}, actor="cli")
        login.authenticate(s, "ana.admin", "uma-senha-comprida", now=NOW)                        # 1 row
        with pytest.raises(AuthenticationFailed):
            login.authenticate(s, "bia.dpc", "senha-errada-000", now=NOW)                        # 1 row
        for i in range(N - 5):                                                                  # 3 rows
            s.write("ana.admin", lambda tx, i=i: tx.audit("touch", "test", i, {"v": i}, {"v": i + 1}))
        assert s.scalar("SELECT count(*) FROM audit_log") == N


@pytest.fixture(scope="module")
def _template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("audit") / "template.duckdb"
    real, passwords._hasher = passwords._hasher, FAST_HASHER       # module scope: the autouse fixture is not active yet
    try:
        _build(path)
    finally:
        passwords._hasher = real
    return path


@pytest.fixture
def audited_db(tmp_path: Path, _template: Path) -> Path:
    """A private copy of a database whose log holds N application-written rows (no key)."""
    path = tmp_path / "audited.duckdb"
    shutil.copyfile(_template, path)
    return path


def raw(path: Path, *statements: str | tuple[str, list[Any]]) -> None:
    """Tamper behind the application's back: a plain DuckDB connection, no Store, no audit."""
    con = duckdb.connect(str(path))
    try:
        for st in statements:
            sql, params = (st, None) if isinstance(st, str) else st
            con.execute(sql, params)
    finally:
        con.close()


def rows(path: Path) -> list[dict[str, Any]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        cur = con.execute(f"SELECT {', '.join(chr(34) + c + chr(34) for c in HASHED)}, hash FROM audit_log ORDER BY id")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]
    finally:
        con.close()


def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    """`python -m valuation audit verify --db PATH`, in-process (the same code path as the CLI)."""
    capsys.readouterr()
    rc = main(["audit", "verify", "--db", str(path)])
    out = capsys.readouterr()
    return rc, json.loads(out.out), out.err


# -- tamperings -------------------------------------------------------------------------------
def _rehash_row(path: Path, rid: int, **changes: Any) -> None:
    row = next(r for r in rows(path) if r["id"] == rid)
    row.update(changes)
    raw(path, (f"UPDATE audit_log SET after_json = ?, hash = ? WHERE id = {rid}",
               [row["after_json"], audit.row_hash(row)]))


def _rewrite_chain_from(path: Path, rid: int, *, reanchor: bool) -> None:
    """Edit row `rid` and recompute every hash and link after it, as an informed attacker would."""
    chain = rows(path)
    prev = audit.GENESIS
    updates: list[tuple[str, list[Any]]] = []
    for row in chain:
        if row["id"] == rid:
            row["after_json"] = '{"v":999}'
        row["prev_hash"] = prev
        row["hash"] = audit.row_hash(row)
        prev = row["hash"]
        updates.append(("UPDATE audit_log SET after_json = ?, prev_hash = ?, hash = ? WHERE id = ?",
                        [row["after_json"], row["prev_hash"], row["hash"], row["id"]]))
    if reanchor:
        updates.append((f"UPDATE {audit.HEAD_TABLE} SET head_hash = ?", [prev]))
    raw(path, *updates)


def _append_forged(path: Path) -> None:
    last = rows(path)[-1]
    row = {"id": last["id"] + 1, "at": last["at"] + timedelta(seconds=1), "actor": "mallory", "action": "create",
           "entity": "user", "entity_id": "99", "before_json": None, "after_json": '{"role":"admin"}',
           "prev_hash": last["hash"], "seals_json": None}
    row["hash"] = audit.row_hash(row)
    raw(path, ('INSERT INTO audit_log (id, "at", actor, action, entity, entity_id, before_json, after_json, '
               'prev_hash, seals_json, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
               [row[c] for c in (*HASHED, "hash")]))


def _swap_ids(path: Path, a: int, b: int) -> None:
    raw(path, f"UPDATE audit_log SET id = -1 WHERE id = {a}", f"UPDATE audit_log SET id = {a} WHERE id = {b}",
        f"UPDATE audit_log SET id = {b} WHERE id = -1")


# name → (tampering, first broken row, a word the message must contain)
TAMPERINGS: dict[str, tuple[Callable[[Path], None], int, str]] = {
    "edit a middle row (what)": (lambda p: raw(p, f"UPDATE audit_log SET after_json = '{{\"v\":0}}' WHERE id = {K}"),
                                 K, "alterado"),
    "edit a middle row (who)": (lambda p: raw(p, f"UPDATE audit_log SET actor = 'mallory' WHERE id = {K}"),
                                K, "alterado"),
    "edit a middle row (when)": (lambda p: raw(p, f'UPDATE audit_log SET "at" = "at" - INTERVAL 1 DAY WHERE id = {K}'),
                                 K, "alterado"),
    "edit the first row": (lambda p: raw(p, "UPDATE audit_log SET entity_id = '0' WHERE id = 1"), 1, "alterado"),
    "edit a row and recompute its own hash": (lambda p: _rehash_row(p, K, after_json='{"v":7}'), K + 1,
                                              "hash anterior"),
    "delete a middle row": (lambda p: raw(p, f"DELETE FROM audit_log WHERE id = {K}"), K + 1, "removido"),
    "delete the first row": (lambda p: raw(p, "DELETE FROM audit_log WHERE id = 1"), 2, "removido"),
    "delete the last row": (lambda p: raw(p, f"DELETE FROM audit_log WHERE id = {N}"), N, "do fim"),
    "delete the last three rows": (lambda p: raw(p, f"DELETE FROM audit_log WHERE id > {N - 3}"), N - 2, "do fim"),
    "delete every row": (lambda p: raw(p, "DELETE FROM audit_log"), 1, "do fim"),
    "reorder two ids": (lambda p: _swap_ids(p, K, K + 1), K, "hash anterior"),
    "delete a row and renumber the rest": (lambda p: raw(p, f"DELETE FROM audit_log WHERE id = {K}",
                                                         f"UPDATE audit_log SET id = id - 1 WHERE id > {K}"),
                                           K, "hash anterior"),
    "append a forged, well-chained row": (_append_forged, N + 1, "acrescentado"),
    "re-hash the whole chain after an edit": (lambda p: _rewrite_chain_from(p, K, reanchor=False), N, "reescrita"),
    "drop the anchor": (lambda p: raw(p, f"DROP TABLE {audit.HEAD_TABLE}"), N + 1, "ausente"),
    "lower the anchor's count": (lambda p: raw(p, f"UPDATE {audit.HEAD_TABLE} SET row_count = row_count - 1"),
                                 N, "reescrita"),
}


def test_an_intact_chain_verifies(audited_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, doc, err = verify(audited_db, capsys)
    assert (rc, doc["ok"], doc["first_bad_id"]) == (0, True, None), doc
    assert doc["head"]["id"] == N and doc["head"]["hash"] == rows(audited_db)[-1]["hash"]
    assert "Cadeia íntegra" in doc["message"] and "Âncora confere" in doc["message"]
    assert err == ""


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_tampering_is_reported_at_the_first_broken_row(audited_db: Path, capsys: pytest.CaptureFixture[str],
                                                       name: str) -> None:
    tamper, first_bad, word = TAMPERINGS[name]
    tamper(audited_db)
    rc, doc, err = verify(audited_db, capsys)
    TAMPER.count(f"store:audit-log:{name}", outcome="detected" if rc == 1 else "missed")
    assert rc == 1 and doc["ok"] is False, doc
    assert doc["first_bad_id"] == first_bad, (name, doc)
    assert word in doc["message"], doc["message"]
    assert f"chain broken at row {first_bad}" in err and "Traceback" not in err


@pytest.mark.parametrize("tamper, first_bad", [
    (lambda p: raw(p, f"DELETE FROM audit_log WHERE id = {N}"), N + 1),      # the gap stays: 8 is missing before 9
    (lambda p: raw(p, f"DROP TABLE {audit.HEAD_TABLE}"), N + 1),              # a marker row records the missing anchor
    (_append_forged, N + 2),                                  # our next row does not link to the forgery
    (lambda p: raw(p, f"DELETE FROM audit_log WHERE id = {K}"), K + 1),
])
def test_later_writes_by_the_application_do_not_hide_a_tampering(audited_db: Path, capsys, tamper,
                                                                   first_bad: int) -> None:
    tamper(audited_db)
    with Store(audited_db) as s:                       # the dashboard carries on: a failed login is audited
        with pytest.raises(AuthenticationFailed):
            login.authenticate(s, "caio.dpc", "senha-errada-111", now=NOW)
        s.write("ana.admin", lambda tx: tx.audit("touch", "test", "after", None, {"v": 1}))
    rc, doc, _ = verify(audited_db, capsys)
    assert rc == 1 and doc["first_bad_id"] == first_bad, doc


def test_the_real_command_exits_1_naming_the_row_and_0_when_intact(audited_db: Path, tmp_path: Path) -> None:
    intact = tmp_path / "intact.duckdb"
    intact.write_bytes(audited_db.read_bytes())
    raw(audited_db, f"DELETE FROM audit_log WHERE id = {N}")
    for path, status in ((intact, 0), (audited_db, 1)):
        proc = subprocess.run([PY, "-m", "valuation", "audit", "verify", "--db", str(path)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == status, proc.stderr
        assert "Traceback" not in proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["ok"] is (status == 0)
        if status:
            assert doc["first_bad_id"] == N and f"row {N}" in proc.stderr


def test_every_row_is_anchored_as_it_is_written(store: Store) -> None:
    for i in range(3):
        store.write("ana", lambda tx, i=i: tx.audit("touch", "test", i, None, {"i": i}))
        head = audit.read_anchor(store)
        last = store.fetch_one("SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1")
        assert (head["row_count"], head["head_id"], head["head_hash"]) == (i + 1, last["id"], last["hash"])


def test_a_rolled_back_write_leaves_neither_row_nor_anchor(store: Store) -> None:
    store.write("ana", lambda tx: tx.audit("touch", "test", 1, None, {}))
    before = (store.scalar("SELECT count(*) FROM audit_log"), audit.read_anchor(store))

    def fail(tx: Any) -> None:
        tx.audit("touch", "test", 2, None, {})
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        store.write("ana", fail)
    assert (store.scalar("SELECT count(*) FROM audit_log"), audit.read_anchor(store)) == before
    assert audit.verify_chain(store)[0]


# -- the seal (VALUATION_AUDIT_KEY) -------------------------------------------------------------
def test_with_a_key_a_rewritten_and_reanchored_chain_is_detected(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv(KEY_ENV, "k" * 64)
    path = tmp_path / "sealed.duckdb"
    _build(path)
    rc, doc, _ = verify(path, capsys)
    assert rc == 0 and "selo é válido" in doc["message"]
    _rewrite_chain_from(path, K, reanchor=True)          # the attacker has the file, not the key
    rc, doc, _ = verify(path, capsys)
    assert rc == 1 and doc["first_bad_id"] == N and "Selo" in doc["message"]


def test_with_a_key_an_unsealed_or_foreign_anchor_is_refused(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv(KEY_ENV, "first-key-" * 4)
    path = tmp_path / "sealed.duckdb"
    _build(path)
    monkeypatch.setenv(KEY_ENV, "another-key-" * 4)
    rc, doc, _ = verify(path, capsys)
    assert rc == 1 and "Selo da âncora não confere" in doc["message"]
    raw(path, f"UPDATE {audit.HEAD_TABLE} SET seal = NULL")
    rc, doc, _ = verify(path, capsys)
    assert rc == 1 and "sem selo" in doc["message"]


def test_without_the_key_at_hand_a_seal_is_reported_unchecked(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv(KEY_ENV, "k" * 64)
    path = tmp_path / "sealed.duckdb"
    _build(path)
    monkeypatch.delenv(KEY_ENV)
    rc, doc, _ = verify(path, capsys)
    assert rc == 0 and "selo não verificado" in doc["message"]


# -- documented limits (SECURITY.md "What is and is not detectable") ------------------------------
def test_limit_without_a_key_a_coordinated_rewrite_of_log_and_anchor_passes(audited_db: Path, capsys) -> None:
    """Someone who can write the file and knows the scheme can rebuild the chain and its anchor.
    The file alone cannot show it; a head recorded elsewhere before (backup manifest, the output
    of `audit verify`) can, and so does the seal when VALUATION_AUDIT_KEY is set (test above)."""
    _, before, _ = verify(audited_db, capsys)
    _rewrite_chain_from(audited_db, K, reanchor=True)
    rc, after, _ = verify(audited_db, capsys)
    assert rc == 0                                                  # not detectable from the file alone…
    assert after["head"]["hash"] != before["head"]["hash"]          # …but the recorded head no longer matches


def test_limit_removing_the_whole_log_and_its_anchor_looks_like_a_new_database(audited_db: Path, capsys) -> None:
    _, before, _ = verify(audited_db, capsys)
    raw(audited_db, "DELETE FROM audit_log", f"DROP TABLE {audit.HEAD_TABLE}", "DELETE FROM row_seals")
    rc, after, _ = verify(audited_db, capsys)
    assert rc == 0 and after["head"] is None and before["head"] is not None


# -- every write is audited --------------------------------------------------------------------
def test_every_store_module_that_writes_also_audits() -> None:
    """Static guard over src/valuation (new modules included): a module that runs INSERT, UPDATE,
    DELETE or a bulk insert must also call `.audit(` — or name, in `AUDITED_BY`, the modules (paths
    under the package, e.g. "commission/entries") whose audited transactions alone call it (each
    must import it and call `.audit(`). Infrastructure is exempt."""
    exempt = {"db/store.py", "db/audit.py", "db/backup.py", "cli/db.py",
              "accounts/throttle.py", "db/seals.py",   # their writes run inside audited transactions
              "notices/notify.py"}   # a notice is written by the act's own audited write (notices.events' callers:
                                     # rounds, statements, requests, the daily job, issue_once's `issued` hook)
    write_sql = re.compile(r"\b(INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+[a-z_]+\s+SET)\b", re.IGNORECASE)
    offenders = []
    for path in source_files():
        rel = path.relative_to(PACKAGE_DIR).as_posix()
        if rel in exempt or path.name == "__init__.py":
            continue
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        if not (any(write_sql.search(s) for s in strings) or "insert_frame(" in text) or ".audit(" in text:
            continue
        callers = next((ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == "AUDITED_BY" for t in n.targets)), ())
        package, _, module = rel.removesuffix(".py").rpartition("/")
        dotted = ".".join(("valuation", *package.split("/"))) if package else "valuation"
        imports_it = re.compile(rf"from {re.escape(dotted)} import [^\n]*\b{module}\b|"
                                rf"from {re.escape(dotted)}\.{module} import")
        if not callers or not all(
                ".audit(" in (PACKAGE_DIR / f"{c}.py").read_text(encoding="utf-8")
                and imports_it.search((PACKAGE_DIR / f"{c}.py").read_text(encoding="utf-8")) for c in callers):
            offenders.append(rel)
    assert not offenders, f"store modules that write without an audit row: {offenders}"


def _audit_rows(s: Store) -> list[dict[str, Any]]:
    return s.fetch("SELECT * FROM audit_log ORDER BY id")


WRECK = {"code": "NAU-2020-77", "name": "Balsa Teste", "hull_material": "aço", "casualty_year": 2020,
         "casualty_type": "naufrágio", "lat_deg": 1, "lat_min": 0, "lat_hem": "S", "lon_deg": 40, "lon_min": 0,
         "lon_hem": "W", "datum": "WGS-84", "office_code": "CPRJ", "situation": "soçobrada"}
ORG = {"name": "Épsilon Ltda", "cnpj": "33.000.167/0001-01", "nationality": "brasileira", "address": "Rua C",
       "city": "Santos", "state": "SP", "representative_name": "Zé", "registered_on": "2024-01-01"}
OWNER = {"name": "Dono", "doc_kind": "desconhecido", "nationality": "brasileira", "whereabouts_known": False}


def _writes() -> dict[str, tuple[str, Callable[[Any], Any], str, bool]]:
    """name → (principal key, call, audited entity, has a `before` state)."""
    from valuation.accounts import users
    from valuation.registry import organisations, owners, wrecks

    return {
        "create_wreck": ("dpc", lambda w: wrecks.create_wreck(w.store, w.principal("dpc"), WRECK), "wreck", False),
        "create_organisation": ("dpc", lambda w: organisations.create_organisation(w.store, w.principal("dpc"), ORG),
                                "organisation", False),
        "create_owner": ("dpc", lambda w: owners.create_owner(w.store, w.principal("dpc"), OWNER), "owner", False),
        "create_user": ("admin", lambda w: users.create_user(w.store, w.principal("admin"), {
            "username": "novo.user", "full_name": "Novo", "role": "dpc", "password": "senha-longa-123"}), "user",
            False),
        "set_role": ("admin", lambda w: users.set_role(w.store, w.principal("admin"), w.ids["com.navy"], "commission",
                                                       commission_body="culture"), "user", True),
        "set_active": ("admin", lambda w: users.set_active(w.store, w.principal("admin"), w.ids["com.navy"], False),
                       "user", True),
        "unlock_user": ("admin", lambda w: users.unlock_user(w.store, w.principal("admin"), w.ids["com.navy"]),
                        "user", True),
        "reset_password": ("admin", lambda w: users.reset_password(w.store, w.principal("admin"), w.ids["com.navy"],
                                                                   "nova-senha-123"), "user", True),
    }


@pytest.mark.parametrize("name", sorted(_writes()))
def test_each_write_records_who_when_what_before_and_after(small_world: Any, name: str) -> None:
    key, call, entity, has_before = _writes()[name]
    s = small_world.store
    start = s.now()
    before = len(_audit_rows(s))
    call(small_world)
    new = _audit_rows(s)[before:]
    assert len(new) == 1, new
    row = new[0]
    assert row["actor"] == small_world.username(key)                       # who
    assert start - timedelta(seconds=1) <= row["at"] <= s.now() + timedelta(seconds=1)   # when (naive UTC)
    assert row["entity"] == entity and row["entity_id"] and row["action"]   # what
    assert json.loads(row["after_json"])                                     # after
    assert (row["before_json"] is not None) is has_before                   # before, for a change
    if has_before:
        assert (json.loads(row["before_json"]) != json.loads(row["after_json"])
                or name in ("unlock_user", "reset_password"))
    assert "password_hash" not in (row["before_json"] or "") + row["after_json"]
    assert "$argon2" not in (row["before_json"] or "") + row["after_json"]
    assert audit.verify_chain(s)[0]


def test_positions_never_enter_the_log(small_world: Any) -> None:
    from valuation.registry import wrecks

    wrecks.create_wreck(small_world.store, small_world.principal("dpc"), {**WRECK, "depth_m": "12.34",
                                                                           "lat_min": "17.25"})
    after = json.loads(_audit_rows(small_world.store)[-1]["after_json"])
    for field in ("lat_deg", "lat_min", "lon_deg", "depth_m", "datum"):
        assert after.get(field) in (None, "sigilosa"), field
    assert "17.25" not in json.dumps(after) and "12.34" not in json.dumps(after)


def test_the_log_timestamps_are_utc_and_ordered(audited_db: Path) -> None:
    ats = [r["at"] for r in rows(audited_db)]
    assert ats == sorted(ats)
    assert all(isinstance(a, datetime) and a.tzinfo is None for a in ats)
