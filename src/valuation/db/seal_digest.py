"""A sealed row's digest computed in Python, byte for byte the SQL of `seals.Sealed.digest_sql`.

`digest_sql` is `sha256(CAST(to_json(struct_pack(col := r.col, …)) AS VARCHAR))`; for a row this process
has just written and holds as stored (`INSERT … RETURNING *`), the same text can be built here instead of
reading the row back (`seals._finish_small`). DuckDB 2.0's `to_json` writes, with no spaces and the keys in
the order given:

- NULL `null`, BOOLEAN `true`/`false`, an integer in decimal digits;
- DECIMAL exactly, with every digit of its scale (`1.50`, `0.00000000`, `-0.50`) — the Python value as DuckDB
  returns it carries that scale as its exponent;
- DATE `"YYYY-MM-DD"`; TIMESTAMP `"YYYY-MM-DD HH:MM:SS"` with `.` and the microseconds, trailing zeros cut,
  when there are any;
- VARCHAR as a JSON string: `"` and `\\` escaped, \\b \\f \\n \\r \\t, the other control characters below
  U+0020 as `\\u00XX` (upper-case hex), every other character as itself (UTF-8).

Anything else — a value of another type, a DECIMAL without a fractional exponent, an aware timestamp, a seal
whose extra part is an expression rather than a column — gives None: the caller then lets DuckDB compute the
digest. tests/db/test_seal_digest.py compares this with DuckDB's own digest over those cases.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

__all__ = ["digest", "sealed_fields"]

_COLUMN = re.compile(r"^\{alias\}\.([a-z_][a-z0-9_]*)$")
_ESCAPES = {i: f"\\u{i:04X}" for i in range(0x20)}
_ESCAPES.update({ord("\b"): "\\b", ord("\f"): "\\f", ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t",
                 ord('"'): '\\"', ord("\\"): "\\\\"})


def sealed_fields(spec: Any) -> tuple[tuple[str, str], ...] | None:
    """(JSON key, column) of what `spec` (a `seals.Sealed`) digests, in its order; None when an extra part is an
    expression and not a plain column of the row."""
    pairs = [(c, c) for c in spec.columns]
    for name, expr in spec.extra:
        found = _COLUMN.match(expr)
        if found is None:
            return None
        pairs.append((name, found[1]))
    return tuple(pairs)


def _string(text: str) -> str:
    return '"' + text.translate(_ESCAPES) + '"'


def _value(value: Any) -> str | None:
    """The JSON text DuckDB's `to_json` writes for `value`, or None when it is not one of the kinds above."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return str(value)
    if type(value) is str:
        return _string(value)
    if type(value) is Decimal:
        exponent = value.as_tuple().exponent
        if not value.is_finite() or not isinstance(exponent, int) or exponent >= 0:
            return None
        return format(value, "f")
    if type(value) is datetime:
        if value.tzinfo is not None:
            return None
        text = (f"{value.year:04d}-{value.month:02d}-{value.day:02d} {value.hour:02d}:{value.minute:02d}:"
                f"{value.second:02d}")
        if value.microsecond:
            text += "." + f"{value.microsecond:06d}".rstrip("0")
        return '"' + text + '"'
    if type(value) is date:
        return f'"{value.year:04d}-{value.month:02d}-{value.day:02d}"'
    return None


def digest(spec: Any, row: Mapping[str, Any]) -> str | None:
    """The digest `spec.digest_sql()` gives for `row` (every column, as stored), or None when it cannot be
    computed here with certainty (module docstring)."""
    pairs = sealed_fields(spec)
    if pairs is None:
        return None
    parts = []
    for key, column in pairs:
        if column not in row:
            return None
        text = _value(row[column])
        if text is None:
            return None
        parts.append(_string(key) + ":" + text)
    return hashlib.sha256(("{" + ",".join(parts) + "}").encode("utf-8")).hexdigest()
