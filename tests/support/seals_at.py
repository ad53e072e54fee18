"""A database kept at an older schema in a migration test, written through the Store: the row seals a later
migration's table carries are left out while it is older (the seals read every sealed table at each write, and that
table is not there yet).

    seals_of_schema(monkeypatch, version)     db.seals.SEALED without the seals of tables created after `version`
    seals_of_columns(monkeypatch, store)      … and without those of columns the open store's tables lack yet
"""
from __future__ import annotations

import re

import pytest

from valuation.db import seals
from valuation.db.store import available_migrations

_CREATED = re.compile(r"CREATE TABLE\s+(\w+)", re.IGNORECASE)


def seals_of_schema(monkeypatch: pytest.MonkeyPatch, version: int) -> None:
    later = {name for m in available_migrations() if m.version > version for name in _CREATED.findall(m.sql)}
    monkeypatch.setattr(seals, "SEALED", tuple(s for s in seals.SEALED if s.rows_from not in later))
    monkeypatch.setattr(seals, "BY_TABLE", {s.table: s for s in seals.SEALED})


def seals_of_columns(monkeypatch: pytest.MonkeyPatch, store: object) -> None:
    """Also leave out the seals whose sealed columns the open `store`'s table lacks yet (a column a later migration
    adds to a table that was there: `users.office_code`, 071)."""
    have = {(str(r["table_name"]), str(r["column_name"])) for r in store.fetch(  # type: ignore[attr-defined]
        "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main' "
        "AND database_name = current_database()")}

    def present(s: seals.Sealed) -> bool:
        used = [*s.columns, *(c for _n, e in s.extra for c in re.findall(r"\{alias\}\.(\w+)", e))]
        return all((s.rows_from, c) in have for c in used)

    monkeypatch.setattr(seals, "SEALED", tuple(s for s in seals.SEALED if present(s)))
    monkeypatch.setattr(seals, "BY_TABLE", {s.table: s for s in seals.SEALED})
