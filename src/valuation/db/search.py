"""Accent- and case-insensitive search in SQL (the same folding in Python and in DuckDB)."""
from __future__ import annotations

import unicodedata
from typing import Any


def fold(text: str) -> str:
    """Lower-case without accents, as DuckDB's lower(strip_accents(x)): for searches."""
    decomposed = unicodedata.normalize("NFKD", text.strip().lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def search_clause(columns: tuple[str, ...], term: str) -> tuple[str, list[Any]]:
    """Accent- and case-insensitive 'contains' over `columns` (no LIKE wildcards to escape)."""
    folded = fold(term)
    parts = [f"contains(lower(strip_accents(coalesce({c}, ''))), ?)" for c in columns]
    return "(" + " OR ".join(parts) + ")", [folded] * len(columns)
