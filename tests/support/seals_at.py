"""A database kept at an older schema in a migration test, written through the Store: the row seals a later
migration's table carries are left out while it is older (the seals read every sealed table at each write, and that
table is not there yet).

    seals_of_schema(monkeypatch, version)     db.seals.SEALED without the seals of tables created after `version`
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
