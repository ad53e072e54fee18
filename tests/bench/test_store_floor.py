"""bench/store_floor.py's DuckDB half at a tiny N (its PostgreSQL half needs a cluster: it runs by hand,
docs/capacity.md). No timing asserts: that the entries it times are the writes it says — one new log row per
entry, pointing at the one it corrects, the current row and the pivot moved — and that its grouped read counts
what it built."""
from __future__ import annotations

from decimal import Decimal

import duckdb

from tests.support.bench_modules import bench_module

ITEMS, ENTRIES = 40, 12


def test_the_duckdb_half_writes_each_entry_and_reads_every_entry_in_force(tmp_path):
    floor = bench_module("store_floor.py", "valuation_bench_store_floor")
    items = list(range(3, 3 + ENTRIES))
    got = floor.run_duckdb(tmp_path, ITEMS, items)

    assert len(got["times"]) == ENTRIES and all(t > 0 for t in got["times"])
    # The read: every member has one entry in force per item; member 2's changed ones carry the entry's value.
    by_member = {int(m): (int(n), Decimal(s)) for m, n, s in got["rows"]}
    assert sorted(by_member) == list(range(1, floor.MEMBERS + 1))
    assert all(n == ITEMS for n, _ in by_member.values())
    with duckdb.connect(str(tmp_path / "floor.duckdb"), read_only=True) as con:
        first_new = ITEMS * floor.MEMBERS + 1
        log = con.execute("SELECT id, item_id, member_id, supersedes FROM assessment_log WHERE id >= ? ORDER BY id",
                          [first_new]).fetchall()
        assert [r[1] for r in log] == items and {r[2] for r in log} == {2}
        assert [r[3] for r in log] == [(i - 1) * floor.MEMBERS + 2 for i in items]   # the corrected rows
        current = dict(con.execute("SELECT item_id, log_id FROM assessment_current WHERE member_id = 2 "
                                   "AND item_id BETWEEN ? AND ?", [items[0], items[-1]]).fetchall())
        assert current == {r[1]: r[0] for r in log}
        assert con.execute("SELECT count(*) FROM consensus_pivot WHERE u1 = 123456").fetchone() == (ENTRIES,)
        assert con.execute("SELECT row_count FROM audit_head").fetchone() == (ENTRIES,)
        assert con.execute("SELECT count(*) FROM audit_log").fetchone() == (ENTRIES,)
        filled = con.execute("SELECT sum(value_brl) FROM assessment_current WHERE member_id = 2 AND item_id NOT "
                             "BETWEEN ? AND ?", [items[0], items[-1]]).fetchone()[0]
    assert by_member[2][1] == filled + Decimal("1234.56") * ENTRIES
