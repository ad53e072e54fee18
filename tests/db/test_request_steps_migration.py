"""Migration 068 on an existing, sealed database: request_steps is rebuilt (DuckDB cannot change a CHECK) with
its rows, ids and columns as they were, so their row seals still verify with no new seal; the new kinds of
Lei 9.784/1999 art. 39 are accepted, an unknown kind and an intimation's day before it still refused, and new
rows keep taking ids from the same sequence."""
from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest

from tests.support.seals_at import seals_of_schema
from valuation.core.errors import ConflictError
from valuation.db import seals
from valuation.db import store as dbmod
from valuation.db.store import Store, available_migrations

AT = datetime(2026, 9, 1, 10, 0)
STEPS = [(1, "instruction_opened", date(2026, 9, 3), None, None),
         (1, "hearing_set", date(2026, 9, 10), date(2026, 9, 20), None),
         (1, "decision_extended", date(2026, 10, 5), None, "Aguardando laudo.")]


def _insert(s: Store, kind: str, day: date, ref: date | None = None) -> int:
    return int(s.write("test", lambda tx: tx.scalar(
        "INSERT INTO request_steps (request_id, kind, day, reference_day, recorded_by, recorded_at) "
        "VALUES (1, ?, ?, ?, 'test', ?) RETURNING id", [kind, day, ref, AT])))


def test_068_keeps_the_sealed_rows_and_accepts_the_art39_kinds(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "before.duckdb"
    before = [m for m in available_migrations() if m.version < 68]
    monkeypatch.setattr(dbmod, "available_migrations", lambda: before)
    seals_of_schema(monkeypatch, 67)
    with Store(path) as s:
        assert s.schema_version() < 68

        def seed(tx) -> None:
            tx.execute("INSERT INTO requests (office_code, wreck_id, matter, organisation_id, filed_on, recorded_by, "
                       "recorded_at) VALUES ('CPRJ', 1, 'pesquisa', 1, DATE '2026-09-01', 'test', ?)", [AT])
            tx.cur.executemany("INSERT INTO request_steps (request_id, kind, day, reference_day, reason, recorded_by, "
                               "recorded_at) VALUES (?, ?, ?, ?, ?, 'test', ?)", [[*r, AT] for r in STEPS])
            tx.audit("seed", "test", None, None, {"steps": len(STEPS)})
        s.write("test", seed)
        with pytest.raises(ConflictError, match="CHECK"):   # 060's CHECK: no such kind yet
            _insert(s, "information_requested", date(2026, 9, 11))
        old = s.fetch("SELECT * FROM request_steps ORDER BY id")
        sealed = s.scalar("SELECT count(*) FROM row_seals WHERE tbl = 'request_steps'")
        assert sealed == len(STEPS) and seals.verify(s)[0]
    monkeypatch.undo()
    with Store(path) as s:
        assert 68 in s.applied_now
        assert s.fetch("SELECT * FROM request_steps ORDER BY id") == old
        ok, message = seals.verify(s)
        assert ok, message
        assert s.scalar("SELECT count(*) FROM row_seals WHERE tbl = 'request_steps'") == sealed   # none re-made
        asked = _insert(s, "information_requested", date(2026, 9, 11), date(2026, 9, 25))
        given = _insert(s, "information_provided", date(2026, 9, 24))
        assert asked > max(r["id"] for r in old) and given == asked + 1    # the same sequence goes on
        for kind, day, ref in (("mágica", date(2026, 9, 12), None),
                               ("information_requested", date(2026, 9, 12), date(2026, 9, 12)),
                               ("hearing_set", date(2026, 9, 12), date(2026, 9, 11))):
            with pytest.raises(ConflictError, match="CHECK"):
                _insert(s, kind, day, ref)
        ok, message = seals.verify(s)
        assert ok and s.scalar("SELECT count(*) FROM row_seals WHERE tbl = 'request_steps'") == sealed + 2, message
