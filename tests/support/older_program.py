"""A database written at an older schema version, as the older program wrote it: the program of that version
sealed only the tables (and columns) its schema had, so a migration test that writes at an older version with
today's code hides the seals of the tables a later migration adds (`as_of`)."""
from __future__ import annotations

import re
from typing import Any

from valuation.db import seals


def seals_as_of(monkeypatch: Any, store: Any) -> None:
    """Keep only the seals whose table and sealed columns the open `store`'s database has (undone with
    `monkeypatch`)."""
    have = {(str(r["table_name"]), str(r["column_name"])) for r in store.fetch(
        "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main' "
        "AND database_name = current_database()")}

    def present(s: seals.Sealed) -> bool:
        used = [*s.columns, *(c for _n, e in s.extra for c in re.findall(r"\{alias\}\.(\w+)", e))]
        return all((s.rows_from, c) in have for c in used)

    kept = tuple(s for s in seals.SEALED if present(s))
    monkeypatch.setattr(seals, "SEALED", kept)
    monkeypatch.setattr(seals, "BY_TABLE", {s.table: s for s in kept})
