"""Migration 069 rebuilds the registry of issued documents to admit the history of a case ('case_history',
issue 26 §4): the rows issued before it keep their ids, values and row seals (audit verify still passes, and still
names a row changed afterwards), the sequence goes on, a code stays unique and an unknown kind is still refused."""
from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tests.support.seals_at import seals_of_columns, seals_of_schema
from valuation.authenticity import registry
from valuation.core.errors import ValuationError
from valuation.db import seals
from valuation.db.store import Store
from valuation.exports import PdfReport

BEFORE = 68   # the last migration before 069


def _issue(store: Store, kind: str) -> int:
    stamp = registry.new_stamp(nup="60000.000123/2026-45" if kind == "office_deadlines" else None)
    data = PdfReport("Documento de teste", stamp=stamp).paragraph("Corpo.").bytes()
    registry.issue(store, "admin", stamp, data, kind=kind, record=("offices", None, f"CPRJ|{kind}"), office="CPRJ")
    return int(store.scalar("SELECT max(id) FROM issued_documents"))


def test_the_rebuilt_registry_keeps_its_rows_and_seals_and_admits_case_history(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.duckdb"
    seals_of_schema(monkeypatch, BEFORE)
    with Store(path, migrate=False) as store:
        store.migrate(up_to=BEFORE)
        seals_of_columns(monkeypatch, store)
        for kind in ("statement", "office_deadlines", "wreck_map"):
            _issue(store, kind)
        with pytest.raises(ValuationError):   # not yet a kind
            _issue(store, "case_history")
        old = store.fetch("SELECT * FROM issued_documents ORDER BY id")
        assert seals.verify(store)[0]
    monkeypatch.undo()
    with Store(path) as store:   # 069 applied
        assert 69 in {int(v) for v in store.fetch_df("SELECT version FROM schema_migrations")["version"]}
        assert store.fetch("SELECT * FROM issued_documents ORDER BY id") == old
        ok, message = seals.verify(store)
        assert ok, message
        new_id = _issue(store, "case_history")
        assert new_id > max(r["id"] for r in old)
        assert seals.verify(store)[0]
        with pytest.raises(ValueError, match="not a kind"):   # since 083 the one list is the code's (KIND_LABELS)
            _issue(store, "bogus")
        with pytest.raises(ValuationError):   # the code stays unique
            store.write("admin", lambda tx: tx.execute(
                "INSERT INTO issued_documents (code, kind, record_table, office, issued_at, crc, sha256, size, "
                "issued_by) SELECT code, kind, record_table, office, issued_at, crc, sha256, size, issued_by "
                "FROM issued_documents WHERE id = ?", [new_id]))
        row_id = old[1]["id"]
    con = duckdb.connect(str(path))
    con.execute("UPDATE issued_documents SET office = 'CPSP' WHERE id = ?", [row_id])
    con.close()
    with Store(path) as store:
        ok, message = seals.verify(store)
    assert not ok and f"Tabela issued_documents, registro {row_id}" in message, message
