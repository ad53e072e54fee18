"""Stored status codes that more than one layer reads, each defined once.

A partition statement (Lei 7.542/1986 arts. 20–22) is a draft until it is issued; issued rows are
numbered, immutable and sealed (`valuation.db.seals`), and only they reach an explorer. The schema's
CHECK (migration 006) holds the same two words.
"""
from __future__ import annotations

STATEMENT_DRAFT = "rascunho"
STATEMENT_ISSUED = "emitido"
STATEMENT_STATUSES: tuple[str, ...] = (STATEMENT_DRAFT, STATEMENT_ISSUED)
