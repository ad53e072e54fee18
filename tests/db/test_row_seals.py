"""Issue 14, item 9 — data tables are tamper-evident.

Reproduction (failed before the fix): the audit chain detected edits of `audit_log`, but an UPDATE
of an issued statement's net amount, a decision, an assessment value or a user's role behind the
application's back went unnoticed, and a replaced statement PDF was served as stored. Now
`audit verify` re-hashes the rows of those tables against digests recorded in the chain and names
the first row that differs. Expected rows come from the tampering's construction (the row we
change), never from the verifier.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.conftest import NOW
from tests.support.db_copies import copy_database
from valuation.accounts import login, users
from valuation.cli.main import main
from valuation.db import seals
from valuation.db.audit import verify_chain
from valuation.db.store import Store

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import TAMPER  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]


@pytest.fixture
def demo(tmp_path: Path, full_demo_db: Path) -> Path:
    path = tmp_path / "demo.duckdb"
    return copy_database(full_demo_db, path)   # with its attached files


def _first(path: Path, sql: str) -> Any:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchall()[0][0]
    finally:
        con.close()


def raw(path: Path, *statements: str) -> None:
    con = duckdb.connect(str(path))
    try:
        for sql in statements:
            con.execute(sql)
    finally:
        con.close()


def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    rc = main(["audit", "verify", "--db", str(path)])
    return rc, json.loads(capsys.readouterr().out)


ISSUED = "SELECT min(id) FROM statements WHERE status = 'emitido'"
# name → (the id of the row to change, the tampering of that row, the table the message names)
TAMPERINGS: dict[str, tuple[str, Callable[[int], str], str]] = {
    "an issued statement's net amount": (ISSUED, lambda i: f"UPDATE statements SET net = net + 1000 WHERE id = {i}",
                                         "statements"),
    "an issued statement's PDF replaced": (ISSUED, lambda i: f"UPDATE statements SET pdf = '%PDF-forjado'::BLOB "
                                                             f"WHERE id = {i}", "statements"),
    "a decision's value": ("SELECT min(id) + 7 FROM decisions",
                           lambda i: f"UPDATE decisions SET value_brl = value_brl * 10 WHERE id = {i}", "decisions"),
    "a decision removed": ("SELECT max(id) FROM decisions", lambda i: f"DELETE FROM decisions WHERE id = {i}",
                           "decisions"),
    "a decision added": ("SELECT max(id) + 1 FROM decisions",
                         lambda i: f"INSERT INTO decisions SELECT {i}, round_id, item_id, historical, 1.00, "
                                   f"significance, "
                                   f"must_keep, basis, NULL, decided_by, decided_at FROM decisions LIMIT 1",
                         "decisions"),
    "an assessment value": ("SELECT min(id) + 11 FROM assessment_log",
                            lambda i: f"UPDATE assessment_log SET amount = amount + 1 WHERE id = {i}",
                            "assessment_log"),
    "an assessment's conversion day (art. 21 §3)": (
        "SELECT min(id) + 5 FROM assessment_log",
        lambda i: f"UPDATE assessment_log SET conversion_date = DATE '2020-01-02', "
                  f"conversion_rate_date = DATE '2020-01-02' WHERE id = {i}", seals.ASSESSMENT_CONVERSION),
    "a request's step moved (the day the Authority's period runs from)": (
        "SELECT min(id) FROM request_steps WHERE kind = 'instruction_ended'",
        lambda i: f"UPDATE request_steps SET day = day + 20 WHERE id = {i}", "request_steps"),
    "an appeal's filing day (its timeliness, Lei 9.784/1999 art. 63 I)": (
        "SELECT min(id) FROM appeals WHERE on_time = false",
        lambda i: f"UPDATE appeals SET on_time = true, filed_on = filed_on - 40 WHERE id = {i}", "appeals"),
    "an appeal's outcome (Lei 9.784/1999 art. 64)": (
        "SELECT min(id) FROM appeal_steps WHERE outcome = 'não provido'",
        lambda i: f"UPDATE appeal_steps SET outcome = 'provido' WHERE id = {i}", "appeal_steps"),
    "a decision's notification day (the 10 days of art. 59)": (
        "SELECT min(id) FROM administrative_decisions",
        lambda i: f"UPDATE administrative_decisions SET notified_on = notified_on + 30 WHERE id = {i}",
        "administrative_decisions"),
    "a verified signature's outcome (issue 27 §2)": (
        "SELECT min(id) FROM document_signatures WHERE outcome = 'refused'",
        lambda i: f"UPDATE document_signatures SET outcome = 'valid', reason = NULL WHERE id = {i}",
        "document_signatures"),
    "a kept act's content key (issue 43: its downloads would serve another act)": (
        "SELECT min(id) FROM issued_copies",
        lambda i: f"UPDATE issued_copies SET content_key = repeat('0', 64) WHERE id = {i}",
        "issued_copies"),
    "a user's role": ("SELECT id FROM users WHERE role = 'explorer' ORDER BY id LIMIT 1",
                      lambda i: f"UPDATE users SET role = 'dpc', organisation_id = NULL WHERE id = {i}", "users"),
}


def test_the_demo_is_sealed_and_verifies(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, doc = verify(demo, capsys)
    assert rc == 0 and "Conteúdo protegido confere" in doc["message"]
    for table in ("statements", "decisions", "assessment_log", "users", "request_steps", "administrative_decisions",
                  "appeals", "appeal_steps", "document_signatures", "issued_copies"):
        assert _first(demo, f"SELECT count(*) FROM row_seals WHERE tbl = '{table}'") > 0, table


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_a_row_changed_behind_the_applications_back_is_named(demo: Path, capsys, name: str) -> None:
    pick, tamper, table = TAMPERINGS[name]
    row_id = int(_first(demo, pick))
    raw(demo, tamper(row_id))
    rc, doc = verify(demo, capsys)
    TAMPER.count(f"store:row-seals:{table}", outcome="detected" if rc == 1 else "missed")
    assert rc == 1, doc
    named = seals.BY_TABLE[table].subject.format(table=table, id=row_id)   # "Tabela statements, registro 3"
    assert named in doc["message"], doc["message"]
    with Store(demo) as s:                                    # an ordinary write afterwards launders nothing
        s.write("ana", lambda tx: tx.audit("touch", "test", 1, None, {"v": 1}))
    rc, doc = verify(demo, capsys)
    assert rc == 1 and named in doc["message"]


def test_rewriting_the_seals_too_is_caught_by_the_chain(demo: Path, capsys) -> None:
    row_id = int(_first(demo, ISSUED))
    spec = seals.BY_TABLE["statements"]
    raw(demo, f"UPDATE statements SET net = net + 1000 WHERE id = {row_id}",
        f"UPDATE row_seals SET digest = (SELECT {spec.digest_sql()} FROM statements r WHERE r.id = {row_id}) "
        f"WHERE tbl = 'statements' AND row_id = {row_id}")
    rc, doc = verify(demo, capsys)
    assert rc == 1 and "row_seals" in doc["message"]


def test_changes_made_by_the_application_keep_verifying(small_world: Any, capsys) -> None:
    s, admin = small_world.store, small_world.principal("admin")
    users.set_role(s, admin, small_world.ids["com.navy"], "dpc")
    users.set_active(s, admin, small_world.ids["exp.beta"], False)
    users.reset_password(s, admin, small_world.ids["dpc.silva"], "uma-senha-nova-123")
    login.authenticate(s, "com.culture", small_world.passwords["com.culture"], now=NOW)
    ok, _bad, message = verify_chain(s)
    assert ok, message
    assert s.scalar("SELECT count(*) FROM audit_log WHERE action = 'rows_sealed'") == 0   # carried by the writes' rows
    small_world.store.close()
    raw(small_world.path, f"UPDATE users SET role = 'admin' WHERE id = {small_world.ids['exp.alfa']}")
    rc, doc = verify(small_world.path, capsys)
    assert rc == 1 and f"Tabela users, registro {small_world.ids['exp.alfa']}" in doc["message"]


def test_a_write_without_an_audit_row_still_seals_what_it_wrote(small_world: Any) -> None:
    s = small_world.store
    s.write("fixture", lambda tx: tx.audit("touch", "test", 0, None, None))       # the baseline
    s.write("fixture", lambda tx: tx.execute("UPDATE users SET full_name = 'Outro' WHERE username = 'com.navy'"))
    assert s.scalar("SELECT count(*) FROM audit_log WHERE action = 'rows_sealed'") == 1
    assert verify_chain(s)[0]


@pytest.mark.parametrize("tamper, named", [
    ("UPDATE users SET role = 'admin' WHERE username = 'exp.alfa'", "Tabela users, registro"),
    ("INSERT INTO assessment_log SELECT * REPLACE (id + 1000 AS id) FROM assessment_log ORDER BY id DESC LIMIT 1",
     "Tabela assessment_log, registro"),
])
def test_a_change_between_two_writes_of_the_same_store_stays_unsealed(small_world: Any, capsys, tamper: str,
                                                                     named: str) -> None:
    """The seals' bookkeeping is re-read in every transaction, never carried from this Store's last commit:
    a row changed or added outside the write funnel (a plain cursor of the same process, which the Store's
    revision does not see) between two of its writes is not sealed by the next one and `verify` names it."""
    from tests.support.commission import enter, full_panel, item_ids
    from valuation.commission.rounds import open_round
    s, panel, items = small_world.store, full_panel(small_world), item_ids(small_world)
    rnd = open_round(s, panel["pres"], "A-1")
    enter(s, panel["navy1"], rnd.id, items["A1-001"], historical=False, amount="10")
    assert verify_chain(s)[0]
    cur = s.cursor()
    try:
        cur.execute(tamper)
    finally:
        cur.close()
    enter(s, panel["navy1"], rnd.id, items["A1-002"], historical=False, amount="20")     # the same Store writes on
    users.set_active(s, small_world.principal("admin"), small_world.ids["exp.beta"], False)
    s.close()
    rc, doc = verify(small_world.path, capsys)
    assert rc == 1 and named in doc["message"], doc


def test_a_write_naming_its_sealed_tables_leaves_any_other_unsealed_and_verify_names_it(small_world: Any,
                                                                                       capsys) -> None:
    """`Store.write(sealed=…)` (a member's entry names assessment_log, issue 28): the rows of the named table
    are sealed as before; the seals read no other table, so a row the write changed in a sealed table it did
    not name is left unsealed — and `verify` names it: naming fewer tables can never seal what it was not
    told about."""
    from tests.support.commission import enter, full_panel, item_ids
    from valuation.commission.rounds import open_round
    s, panel, items = small_world.store, full_panel(small_world), item_ids(small_world)
    s.write("fixture", lambda tx: tx.audit("touch", "test", 0, None, None))       # the baseline
    rnd = open_round(s, panel["pres"], "A-1")
    first = enter(s, panel["navy1"], rnd.id, items["A1-001"], historical=False, amount="10")
    again = enter(s, panel["navy1"], rnd.id, items["A1-001"], historical=False, amount="12")   # a correction
    for log_id in (first.log_id, again.log_id):
        assert s.scalar("SELECT count(*) FROM row_seals WHERE tbl = 'assessment_log' AND row_id = ?", [log_id]) == 1
    assert verify_chain(s)[0]
    s.write("fixture", lambda tx: tx.execute("UPDATE users SET full_name = 'Outro' WHERE username = 'com.navy'"),
            sealed=("assessment_log",))
    users.set_active(s, small_world.principal("admin"), small_world.ids["exp.beta"], False)   # every table read
    s.close()
    rc, doc = verify(small_world.path, capsys)
    assert rc == 1 and f"Tabela users, registro {small_world.ids['com.navy']} " in doc["message"], doc


def test_the_first_write_of_a_database_without_seals_seals_every_table_even_when_it_names_one(
        small_world: Any) -> None:
    s = small_world.store
    assert s.scalar("SELECT count(*) FROM row_seals") == 0          # the fixture's rows: no seal yet
    s.write("fixture", lambda tx: tx.audit("touch", "test", 0, None, None), sealed=("assessment_log",))
    assert s.scalar("SELECT count(*) FROM row_seals WHERE tbl = 'users'") == s.scalar("SELECT count(*) FROM users")
    assert verify_chain(s)[0]


def _entries_on_a_copy(world: Any, name: str, counted: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Open a round and record three entries (a first entry, a correction, another member's) on a copy of the
    world with a fixed clock — by `finish`'s counted path when `counted`, else by `_finish_small` — and return
    the seals and the audit rows written."""
    from datetime import datetime

    from tests.support.commission import enter, full_panel, item_ids
    from valuation.commission.rounds import open_round

    path = world.path.parent / name
    copy_database(world.path, path)
    with monkeypatch.context() as m:
        if counted:
            m.setattr(seals, "_small_applies", lambda tx, marks: False)
        with Store(path, clock=lambda: datetime(2026, 3, 2, 10, 0, 0)) as s:
            world = type(world)(store=s, path=path, ids=world.ids, principals=world.principals)
            panel, items = full_panel(world), item_ids(world)
            s.write("fixture", lambda tx: tx.audit("touch", "test", 0, None, None))       # the baseline
            rnd = open_round(s, panel["pres"], "A-1")
            before = int(s.scalar("SELECT max(id) FROM audit_log"))
            enter(s, panel["navy1"], rnd.id, items["A1-001"], historical=False, amount="10")
            enter(s, panel["navy1"], rnd.id, items["A1-001"], historical=True, amount="12")    # a correction
            enter(s, panel["cult1"], rnd.id, items["A1-002"], historical=False, amount="7.5")
            assert verify_chain(s)[0]
            return {"seals": s.fetch("SELECT * FROM row_seals WHERE audit_id > ? ORDER BY audit_id, tbl, row_id",
                                     [before]),
                    "audit": s.fetch("SELECT id, seals_json, hash FROM audit_log WHERE id > ? ORDER BY id", [before])}


def test_one_entry_seals_its_row_in_one_statement_as_the_counted_path_does(small_world: Any,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """`Store.write(small=True)` (`record_assessment`): the entry's log row is sealed by `_finish_small` — the same
    seals (both of the log's: its columns and its conversion date), audit rows, `seals_json` and hashes as the
    counted path of `finish` gives for the same entries."""
    small_world.store.checkpoint()
    small = _entries_on_a_copy(small_world, "small.duckdb", False, monkeypatch)
    counted = _entries_on_a_copy(small_world, "counted.duckdb", True, monkeypatch)
    assert len(small["audit"]) == 3 and all(r["seals_json"] for r in small["audit"])
    assert {r["tbl"] for r in small["seals"]} == {"assessment_log", "assessment_conversion"}
    assert len(small["seals"]) == 6
    assert small == counted


def test_a_small_write_seals_every_row_it_appends_and_none_added_before_it(small_world: Any, capsys) -> None:
    """`small` chooses only how the seals are found: a write that says so but appends several rows gets them all
    sealed; a row added behind the application's back before it opened stays unsealed, and `verify` names it."""
    from tests.support.commission import enter, full_panel, item_ids
    from valuation.commission.rounds import open_round

    s, panel, items = small_world.store, full_panel(small_world), item_ids(small_world)
    s.write("fixture", lambda tx: tx.audit("touch", "test", 0, None, None))       # the baseline
    rnd = open_round(s, panel["pres"], "A-1")
    first = enter(s, panel["navy1"], rnd.id, items["A1-001"], historical=False, amount="10")
    cur = s.cursor()
    try:                                               # behind the application's back
        forged = cur.execute("INSERT INTO assessment_log BY NAME SELECT * EXCLUDE (id) FROM assessment_log "
                             "WHERE id = ? RETURNING id", [first.log_id]).fetchall()[0][0]
    finally:
        cur.close()

    def copies(tx: Any) -> list[int]:
        ids = [r["id"] for r in tx.execute("INSERT INTO assessment_log BY NAME SELECT * EXCLUDE (id) FROM "
                                           "assessment_log WHERE id = ? RETURNING id", [first.log_id])]
        ids += [r["id"] for r in tx.execute("INSERT INTO assessment_log BY NAME SELECT * EXCLUDE (id) FROM "
                                            "assessment_log WHERE id IN (?, ?) RETURNING id", [first.log_id, ids[0]])]
        tx.audit("touch", "test", 1, None, None)
        return ids

    made = s.write("fixture", copies, sealed=("assessment_log",), small=True)
    assert len(made) == 3
    for log_id in made:
        assert s.scalar("SELECT count(*) FROM row_seals WHERE row_id = ? AND tbl IN ('assessment_log', "
                        "'assessment_conversion')", [log_id]) == 2
    assert s.scalar("SELECT count(*) FROM row_seals WHERE row_id = ? AND tbl = 'assessment_log'", [forged]) == 0
    s.close()
    rc, doc = verify(small_world.path, capsys)
    assert rc == 1 and f"registro {forged} " in doc["message"], doc
