"""`seal_digest`: a sealed row's digest computed in Python is DuckDB's `digest_sql`, byte for byte — over every
character a text may hold and the edge values of each column type — and a small write that hands its rows over
(`Tx.appended`) writes exactly the seals and audit rows of the path that reads them back."""
from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import duckdb
import pytest

from tests.support.commission import full_panel, item_ids
from tests.support.db_copies import copy_database
from valuation.commission.entries import record_assessment
from valuation.commission.rounds import open_round
from valuation.db import seal_digest, seals
from valuation.db.audit import verify_chain
from valuation.db.store import Store

_SPEC = seals.Sealed("t", ("id", "s", "a", "v", "r", "d", "ts", "n", "b"), "test",
                     extra=(("e", "{alias}.d"),))
_DDL = ("CREATE TABLE t (id BIGINT, s VARCHAR, a DECIMAL(18,2), v DECIMAL(26,8), r DECIMAL(18,6), d DATE, "
        "ts TIMESTAMP, n INTEGER, b BOOLEAN)")


def _sql_and_python(rows: list[tuple[Any, ...]]) -> list[tuple[str, str | None]]:
    """(DuckDB's digest, seal_digest's) of each row stored in `_DDL`'s table and read back as the store reads."""
    con = duckdb.connect()
    try:
        con.execute(_DDL)
        con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        cur = con.execute(f"SELECT r.*, {_SPEC.digest_sql()} AS sql_digest FROM t r ORDER BY id")
        names = [d[0] for d in cur.description]
        out = []
        for values in cur.fetchall():
            row = dict(zip(names, values))
            out.append((row["sql_digest"], seal_digest.digest(_SPEC, row)))
        return out
    finally:
        con.close()


def test_every_character_of_a_text_gives_duckdbs_digest() -> None:
    points = [i for i in range(0x110000) if not 0xD800 <= i <= 0xDFFF]
    texts = ["".join(map(chr, points[k:k + 512])) for k in range(0, len(points), 512)]
    texts += [chr(i) for i in range(0x80)] + ['a "quoted" \\ back\\slash', "\\u001a literal", "ação — «nota» 🚢", ""]
    rows = [(k, t, None, None, None, None, None, None, None) for k, t in enumerate(texts)]
    found = _sql_and_python(rows)
    assert len(found) == len(texts)
    assert [sql for sql, _py in found] == [py for _sql, py in found]


def test_the_edge_values_of_each_column_type_give_duckdbs_digest() -> None:
    rows = [
        (1, None, Decimal("0"), Decimal("0"), Decimal("0"), None, None, None, None),
        (2, "BRL", Decimal("-0.5"), Decimal("-0.00000001"), Decimal("0.000001"), date(2026, 3, 4),
         datetime(2026, 1, 1, 10, 0, 0), 0, True),
        (3, "x", Decimal("9999999999999999.99"), Decimal("999999999999999999.99999999"), Decimal("1"),
         date(99, 1, 2), datetime(2026, 1, 1, 10, 0, 0, 120000), -7, False),
        (4, "y", Decimal("1234.5"), Decimal("100"), Decimal("5.25"), date(9999, 12, 31),
         datetime(2026, 1, 1, 0, 0, 0, 1), 2147483647, None),
        (5, None, None, None, None, None, datetime(99, 1, 1, 0, 0, 0, 100000), None, None),
        (-(2 ** 63), None, None, None, None, None, datetime(2026, 12, 5, 19, 8, 40, 123456), None, None),
    ]
    found = _sql_and_python(rows)
    assert all(py is not None for _sql, py in found)
    assert [sql for sql, _py in found] == [py for _sql, py in found]


@pytest.mark.parametrize("value", [1.5, datetime(2026, 1, 1, tzinfo=UTC), Decimal("100"), Decimal("NaN"),
                                   b"bytes", object()])
def test_a_value_of_another_kind_is_left_to_duckdb(value: Any) -> None:
    row = {"id": 1, "s": "x", "a": Decimal("1.00"), "v": Decimal("1.00000000"), "r": Decimal("1.000000"),
           "d": date(2026, 1, 1), "ts": datetime(2026, 1, 1), "n": 1, "b": True}
    assert seal_digest.digest(_SPEC, row) is not None
    for column in ("s", "a", "ts"):
        assert seal_digest.digest(_SPEC, {**row, column: value}) is None
    assert seal_digest.digest(_SPEC, {k: v for k, v in row.items() if k != "n"}) is None     # a column missing


def test_a_seal_of_an_expression_is_left_to_duckdb() -> None:
    assert seal_digest.sealed_fields(seals.BY_TABLE[seals.STATEMENT_CONTENT]) is None
    assert seal_digest.sealed_fields(seals.BY_TABLE[seals.ASSESSMENT_CONVERSION]) == (
        ("id", "id"), ("conversion_date", "conversion_date"), ("conversion_rate_date", "conversion_rate_date"))


def _entries_on_a_copy(world: Any, name: str, handed_over: bool, monkeypatch: pytest.MonkeyPatch
                       ) -> tuple[dict[str, Any], int]:
    """Three entries (a first one with a note of awkward characters, a correction, another member's) on a copy of
    the world with a fixed clock; with `handed_over` False the rows handed over are ignored (the seals are read
    back). Returns the seals and audit rows written, and how many small writes sealed from handed-over rows."""
    path = world.path.parent / name
    copy_database(world.path, path)
    used = []
    real = seals._known_seals

    def spy(appended: Any, marks: Any, specs: Any) -> Any:
        found = real(appended, marks, specs) if handed_over else None
        used.append(found is not None)
        return found

    with monkeypatch.context() as m:
        m.setattr(seals, "_known_seals", spy)
        with Store(path, clock=lambda: datetime(2026, 3, 2, 10, 0, 0, 250000)) as s:
            world = type(world)(store=s, path=path, ids=world.ids, principals=world.principals)
            panel, items = full_panel(world), item_ids(world)
            s.write("fixture", lambda tx: tx.audit("touch", "test", 0, None, None))       # the baseline
            rnd = open_round(s, panel["pres"], "A-1")
            before = int(s.scalar("SELECT max(id) FROM audit_log"))
            for user, item, historical, amount, note in (
                    ("navy1", "A1-001", False, "10", 'Catálogo "Leilões" \\ nº 7 — ok'),
                    ("navy1", "A1-001", True, "12.5", None),
                    ("cult1", "A1-002", False, "7.25", "segunda\tlinha")):
                record_assessment(s, panel[user], rnd.id, items[item], historical=historical, amount=Decimal(amount),
                                  currency="BRL", price_date=date(2026, 2, 2), significance=3 if historical else None,
                                  must_keep=False if historical else None, source="catalogo", source_note=note)
            assert verify_chain(s)[0]
            return ({"seals": s.fetch("SELECT * FROM row_seals WHERE audit_id > ? ORDER BY audit_id, tbl, row_id",
                                      [before]),
                     "audit": s.fetch("SELECT id, seals_json, hash FROM audit_log WHERE id > ? ORDER BY id",
                                      [before])},
                    sum(used))


def test_an_entry_seals_its_handed_over_row_as_the_read_back_path_does(small_world: Any,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    small_world.store.checkpoint()
    handed, used = _entries_on_a_copy(small_world, "handed.duckdb", True, monkeypatch)
    read, unused = _entries_on_a_copy(small_world, "read.duckdb", False, monkeypatch)
    # The first entry seals the conversion seal's baseline (`finish`'s counted path); the other two are small.
    assert used == 2 and unused == 0
    assert len(handed["seals"]) == 6 and len(handed["audit"]) == 3
    assert handed == read


def test_a_handed_over_row_not_just_above_the_mark_is_read_back(small_world: Any) -> None:
    """A row of another write between the mark and the handed-over one (here: a sequence value a rolled-back
    write took): the handed-over rows are not every row above the mark, so the seals are read back."""
    s = small_world.store
    s.write("fixture", lambda tx: tx.audit("touch", "test", 0, None, None))       # the baseline
    spec = seals.BY_TABLE["assessment_log"]
    marks = {"assessment_log": 10, "assessment_conversion": 10}
    row = {c: None for c in spec.columns} | {"id": 11, "conversion_date": None, "conversion_rate_date": None}
    specs = (spec, seals.BY_TABLE[seals.ASSESSMENT_CONVERSION])
    assert seals._known_seals({"assessment_log": [row]}, marks, specs) is not None
    assert seals._known_seals({"assessment_log": [row | {"id": 12}]}, marks, specs) is None
    assert seals._known_seals({"assessment_log": [row, row | {"id": 13}]}, marks, specs) is None
    assert seals._known_seals({}, marks, specs) is None
