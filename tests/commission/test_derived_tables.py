"""Issue 45, item 2 — a derived copy of a sealed fact is re-derived by `audit verify`, and what pays money or
publishes a value reads only what it proves.

Reproduction (failed before the fix): statements are computed from `item_valuation`, a copy of the sealed
`decisions`. `UPDATE item_valuation SET value_brl = value_brl * 10` behind the application: `audit verify`
passed, DPC drafted and issued the next version of the statement with ten times the gross, and verify passed
again — the same for `published_comparables`, `round_consensus`, `consensus_pivot` and `assessment_current`
(0 of 55 column edits detected). Now `commission.derived` derives each again from its sealed sources and
`audit verify` names the table and row of the first difference; a statement's draft and issue, a round's
publication, the adoption of its consensus as decisions and its minutes refuse a copy that differs.

The campaign's angle: every column of every derived table (keys included) edited on one row, a row removed
and a row added — each named by table (and, for a column, by row) [figures printed at the end of the run].
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import duckdb
import pytest

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.commission import run_round  # noqa: E402
from tests.support.fuzz_report import FIGURES, TAMPER  # noqa: E402
from tests.support.partition import AS_OF, T1, T2, issued_a1, prepare  # noqa: E402
from valuation.cli.main import main  # noqa: E402
from valuation.commission import derived, minutes  # noqa: E402
from valuation.commission.decisions import record_decisions  # noqa: E402
from valuation.commission.rounds import publish_round  # noqa: E402
from valuation.core.errors import StoreError  # noqa: E402
from valuation.jobs.maintenance import JobFailed, verify_audit  # noqa: E402
from valuation.partition import statements  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]


def _behind(store: Any, sql: str, params: list[Any] | None = None) -> None:
    """A statement on the file outside the write funnel: no audit row, no seal (what a shell on the server does)."""
    cur = store.cursor()
    try:
        cur.execute(sql, params or [])
    finally:
        cur.close()


def test_a_tenfold_decision_copy_is_named_and_pays_nothing(small_world: Any, capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    w = small_world
    prepare(w)
    first = issued_a1(w)
    s, dpc = w.store, w.principal("dpc")
    item = w.ids["A1-004"]
    _behind(s, "UPDATE item_valuation SET value_brl = value_brl * 10 WHERE item_id = ?", [item])
    found = derived.first_difference(s, "item_valuation")
    assert found is not None and found.key == f"item {item}" and "value_brl" in found.what, found
    issued = s.scalar("SELECT count(*) FROM statements")
    with pytest.raises(StoreError) as refused:              # the next version would have paid ten times
        statements.create_draft(s, dpc, "A-1", as_of=AS_OF, now=T2)
    assert "item_valuation" in str(refused.value) and f"item {item}" in str(refused.value)
    assert s.scalar("SELECT count(*) FROM statements") == issued
    with pytest.raises(JobFailed) as nightly:               # the nightly verification says so too
        verify_audit(s)
    assert "item_valuation" in str(nightly.value)
    s.close()
    capsys.readouterr()
    assert main(["audit", "verify", "--db", str(w.path)]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert not doc["ok"] and not doc["derived"]["ok"] and f"Tabela item_valuation, item {item}" in doc["derived"][
        "message"]
    assert first.net > 0


def _changed(value: Any, data_type: str) -> Any:
    """Another value of the same type, for an edit behind the application."""
    if data_type == "BOOLEAN":
        return True if value is None else not value
    if data_type == "TIMESTAMP":
        return datetime(2020, 1, 1) if value is None else value + timedelta(days=1)
    if data_type == "VARCHAR":
        return "alterado" if value != "alterado" else "outro"
    if data_type == "DOUBLE":
        return 0.25 if value is None else float(value) + 0.5
    if data_type.startswith("DECIMAL"):
        return Decimal("1.00") if value is None else value + 1
    return 7 if value is None else int(value) + 1


def _tables_with_rows(w: Any) -> None:
    """Every derived table with rows: a published round of A-1 (its entries, slots, pivot, consensus, decisions,
    comparables)."""
    run_round(w)


@pytest.fixture
def rounded(small_world: Any) -> Any:
    _tables_with_rows(small_world)
    s = small_world.store
    for spec in derived.DERIVED:
        assert s.scalar(f"SELECT count(*) FROM {spec.table}") > 0, spec.table
        assert derived.first_difference(s, spec.table) is None, spec.table
    return small_world


def test_every_column_of_every_derived_table_edited_behind_the_application_is_named(rounded: Any) -> None:
    s = rounded.store
    edits = named = 0
    for spec in derived.DERIVED:
        types = {r["column_name"]: r["data_type"] for r in s.fetch(
            "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? AND database_name = "
            "current_database()", [spec.table])}
        order = ", ".join(spec.keys)
        row = s.fetch_one(f"SELECT * FROM {spec.table} ORDER BY {order} LIMIT 1 OFFSET 1")
        assert row is not None
        where = " AND ".join(f"{k} = ?" for k in spec.keys)         # by key: an updated key may move the row
        for column in (*spec.keys, *spec.columns):
            new = int(row[column]) + 10_000_000 if column in spec.keys else _changed(row[column], types[column])
            keys = [row[k] for k in spec.keys]
            try:
                _behind(s, f"UPDATE {spec.table} SET {column} = ? WHERE {where}", [new, *keys])
            except duckdb.ConstraintException:          # a unique slot taken: the slot taken away instead
                new = None
                _behind(s, f"UPDATE {spec.table} SET {column} = ? WHERE {where}", [new, *keys])
            found = derived.first_difference(s, spec.table)
            moved = [new if k == column else row[k] for k in spec.keys]
            _behind(s, f"UPDATE {spec.table} SET {column} = ? WHERE {where}", [row[column], *moved])
            edits += 1
            ok = found is not None and found.table == spec.table and (
                column in spec.keys or found.key == spec.name(tuple(row[k] for k in spec.keys)))
            named += ok
            TAMPER.count(f"derived:{spec.table}", outcome="named" if ok else "missed")
            assert ok, (spec.table, column, found)
        assert derived.first_difference(s, spec.table) is None, spec.table        # the edits were undone
        kept = s.fetch_one(f"SELECT * FROM {spec.table} WHERE {where}", [row[k] for k in spec.keys])
        assert kept is not None
        _behind(s, f"DELETE FROM {spec.table} WHERE {where}", [row[k] for k in spec.keys])
        removed = derived.first_difference(s, spec.table)
        assert removed is not None and "ausente" in removed.what, (spec.table, removed)
        _behind(s, f"INSERT INTO {spec.table} ({', '.join(kept)}) VALUES ({', '.join('?' for _ in kept)})",
                list(kept.values()))
        extra = s.fetch_one(f"SELECT * FROM {spec.table} ORDER BY {order} LIMIT 1")
        assert extra is not None
        planted = {**extra, spec.keys[-1]: int(extra[spec.keys[-1]]) + 10_000_000}
        cols = ", ".join(planted)
        try:
            _behind(s, f"INSERT INTO {spec.table} ({cols}) VALUES ({', '.join('?' for _ in planted)})",
                    list(planted.values()))
        except duckdb.ConstraintException:                 # a unique slot taken: the planted row has none
            planted = {k: (v if k in spec.keys else None) for k, v in planted.items()}
            _behind(s, f"INSERT INTO {spec.table} ({cols}) VALUES ({', '.join('?' for _ in planted)})",
                    list(planted.values()))
        added = derived.first_difference(s, spec.table)
        assert added is not None and added.table == spec.table, (spec.table, added)
        _behind(s, f"DELETE FROM {spec.table} WHERE {spec.keys[-1]} = ?", [planted[spec.keys[-1]]])
        assert derived.first_difference(s, spec.table) is None, spec.table
        edits += 2
        named += 2
        TAMPER.count(f"derived:{spec.table}", outcome="named")
        TAMPER.count(f"derived:{spec.table}", outcome="named")
    FIGURES.record("derived tables: column edits, removed and planted rows named / made", f"{named} / {edits}")
    assert derived.verify(s)[0]


def test_a_round_reads_only_a_proven_consensus_and_publishes_only_proven_decisions(small_world: Any) -> None:
    w = small_world
    panel, round_id = run_round(w, until="closed")
    s, pres = w.store, panel["pres"]
    _behind(s, "UPDATE round_consensus SET median_brl = median_brl * 10 WHERE round_id = ? AND item_id = ?",
            [round_id, w.ids["A1-002"]])
    with pytest.raises(StoreError) as refused:                        # its consensus would become decisions
        record_decisions(s, pres, round_id)
    assert "round_consensus" in str(refused.value) and s.scalar("SELECT count(*) FROM decisions") == 0
    with pytest.raises(StoreError):                                    # and be printed in its minutes
        minutes.round_minutes_pdf(s, pres, round_id)
    _behind(s, "UPDATE round_consensus SET median_brl = median_brl / 10 WHERE round_id = ? AND item_id = ?",
            [round_id, w.ids["A1-002"]])
    record_decisions(s, pres, round_id)
    _behind(s, "UPDATE item_valuation SET historical = NOT historical WHERE item_id = ?", [w.ids["A1-001"]])
    with pytest.raises(StoreError) as refused:                        # published to the explorer and comparables
        publish_round(s, pres, round_id)
    assert "item_valuation" in str(refused.value)
    assert s.scalar("SELECT status FROM assessment_rounds WHERE id = ?", [round_id]) == "decidida"
    _behind(s, "UPDATE item_valuation SET historical = NOT historical WHERE item_id = ?", [w.ids["A1-001"]])
    publish_round(s, pres, round_id)
    assert derived.verify(s)[0]
    assert T1 < T2
