"""Issue 24, item 5 — an issued statement is one sealed whole: its header, its PDF, its lines, its
survey-cost lines and its adjudicated items.

Reproduction (failed before the fix): +R$ 1 000 000 on a `statement_lines` row (or on an adjudicated
item's value in `statement_items`) of an issued statement passed `audit verify` and showed to the
explorer; only the header row and the PDF were sealed. Now the seal of an issued statement also
covers the digest of its lines, survey lines and items, so `audit verify` names the statement whose
content differs. The expected statement comes from the tampering's construction, never from the
verifier. Drafts are not sealed (they change until issued).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support import partition as P
from valuation.cli.main import main
from valuation.db import seals
from valuation.db.store import Store
from valuation.partition import statements

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import TAMPER  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]


@pytest.fixture
def issued(small_world: Any) -> tuple[Path, int]:
    """A-1's first statement issued on the small world (tests/support/partition.py); the file closed."""
    P.prepare(small_world)
    doc = P.issued_a1(small_world)
    small_world.store.close()
    return Path(small_world.path), int(doc.id)


def raw(path: Path, *statements: str) -> None:
    con = duckdb.connect(str(path))
    try:
        for sql in statements:
            con.execute(sql)
    finally:
        con.close()


def first(path: Path, sql: str) -> Any:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchall()[0][0]
    finally:
        con.close()


def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    rc = main(["audit", "verify", "--db", str(path)])
    return rc, json.loads(capsys.readouterr().out)


# name → the tampering of the issued statement i (the id `audit verify` must name)
TAMPERINGS: dict[str, Callable[[int], str]] = {
    "a line +R$ 1 000 000": lambda i: f"UPDATE statement_lines SET amount = amount + 1000000 "
                                      f"WHERE statement_id = {i} AND line_no = (SELECT min(line_no) FROM "
                                      f"statement_lines WHERE statement_id = {i} AND amount IS NOT NULL)",
    "a line's label": lambda i: f"UPDATE statement_lines SET label = 'Outro' WHERE statement_id = {i} AND line_no = 1",
    "a line removed": lambda i: f"DELETE FROM statement_lines WHERE statement_id = {i} AND line_no = 1",
    "a line added": lambda i: f"INSERT INTO statement_lines SELECT statement_id, 999, section, key, label, amount, "
                              f"detail, basis FROM statement_lines WHERE statement_id = {i} AND line_no = 1",
    "an item's value +R$ 1 000 000": lambda i: f"UPDATE statement_items SET value_brl = value_brl + 1000000 "
                                               f"WHERE statement_id = {i} AND item_id = (SELECT min(item_id) FROM "
                                               f"statement_items WHERE statement_id = {i})",
    "an item removed": lambda i: f"DELETE FROM statement_items WHERE statement_id = {i} AND item_id = (SELECT "
                                 f"max(item_id) FROM statement_items WHERE statement_id = {i})",
    "an item moved to the other group": lambda i: f"UPDATE statement_items SET grp = CASE grp WHEN 'historical' THEN "
                                                  f"'other' ELSE 'historical' END WHERE statement_id = {i}",
    "a survey line's accepted cost": lambda i: f"UPDATE statement_survey_lines SET accepted = accepted + 1000000 "
                                               f"WHERE statement_id = {i}",
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_the_content_of_an_issued_statement_is_sealed(issued: tuple[Path, int], capsys, name: str) -> None:
    path, sid = issued
    for table in ("statement_lines", "statement_items", "statement_survey_lines"):   # it has all three
        assert first(path, f"SELECT count(*) FROM {table} WHERE statement_id = {sid}") > 0, table
    assert verify(path, capsys)[0] == 0
    raw(path, TAMPERINGS[name](sid))
    rc, doc = verify(path, capsys)
    TAMPER.count("seals:statement-content", outcome="detected" if rc == 1 else "missed")
    assert rc == 1, doc
    assert f"Demonstrativo emitido nº {sid}" in doc["message"], doc["message"]
    with Store(path) as s:                                   # a later write by the application launders nothing
        s.write("ana", lambda tx: tx.audit("touch", "test", 1, None, {"v": 1}))
    rc, doc = verify(path, capsys)
    assert rc == 1 and f"nº {sid}" in doc["message"]


def test_a_drafts_lines_are_not_sealed(small_world: Any, capsys) -> None:
    P.prepare(small_world)
    P.ready_a1(small_world)
    draft = statements.create_draft(small_world.store, small_world.principal("dpc"), "A-1", as_of=P.AS_OF, now=P.T1)
    small_world.store.close()
    raw(small_world.path, f"UPDATE statement_lines SET amount = amount + 1 WHERE statement_id = {draft} "
                          "AND amount IS NOT NULL")
    assert verify(small_world.path, capsys)[0] == 0


def test_a_statement_issued_before_the_content_seal_gets_it_at_the_next_write(small_world: Any, capsys,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A database written by the version before this seal: headers sealed, their content not. The next
    write seals the content of every issued statement already there; from then on a change is named."""
    old = tuple(s for s in seals.SEALED if s.table != seals.STATEMENT_CONTENT)
    with monkeypatch.context() as m:
        m.setattr(seals, "SEALED", old)
        P.prepare(small_world)
        sid = int(P.issued_a1(small_world).id)
        assert small_world.store.scalar("SELECT count(*) FROM row_seals WHERE tbl = ?", [seals.STATEMENT_CONTENT]) == 0
    small_world.store.close()
    with Store(small_world.path) as s:                      # this version opens it and writes once
        s.write("ana", lambda tx: tx.audit("touch", "test", 1, None, {"v": 1}))
        assert s.scalar("SELECT count(*) FROM row_seals WHERE tbl = ?", [seals.STATEMENT_CONTENT]) == 1
    assert verify(small_world.path, capsys)[0] == 0
    raw(small_world.path, TAMPERINGS["a line +R$ 1 000 000"](sid))
    rc, doc = verify(small_world.path, capsys)
    assert rc == 1 and f"Demonstrativo emitido nº {sid}" in doc["message"], doc


def test_issuing_seals_the_content_in_the_same_write(issued: tuple[Path, int]) -> None:
    path, sid = issued
    with Store(path, read_only=True) as s:
        sealed = s.fetch("SELECT row_id, audit_id FROM row_seals WHERE tbl = ?", [seals.STATEMENT_CONTENT])
        row = s.fetch_one("SELECT id FROM audit_log WHERE action = 'statement_issued'")
    assert sealed == [{"row_id": sid, "audit_id": row["id"]}]
