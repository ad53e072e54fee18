"""`consensus_pivot.one_entry` stores an item's spread as consensus_sql does, bit for bit: the cases decided on the
exact values (fewer than two values, min = max, v_lo + v_hi = 0) and, otherwise, DuckDB's DOUBLE from the exact
difference max - min — the same double as the whole CASE expression of DECIMAL(26,8) extremes gives."""
from __future__ import annotations

import random
import struct
from decimal import Decimal
from typing import Any

import duckdb

from valuation.commission.consensus_pivot import _spread

# The expression the one entry used before (consensus_sql's, over its parameters): the reference.
_WHOLE = ("CASE WHEN ? < 2 THEN NULL WHEN CAST(? AS DECIMAL(26,8)) = CAST(? AS DECIMAL(26,8)) THEN 0.0::DOUBLE "
          "WHEN CAST(? AS DECIMAL(27,8)) = 0 THEN NULL "
          "ELSE 2.0 * CAST(CAST(? AS DECIMAL(26,8)) - CAST(? AS DECIMAL(26,8)) AS DOUBLE) "
          "/ CAST(CAST(? AS DECIMAL(27,8)) AS DOUBLE) END")
_E8 = Decimal("0.00000001")


def _bits(value: float | None) -> bytes | None:
    return None if value is None else struct.pack("<d", value)


def _cases() -> list[tuple[int, Decimal | None, Decimal | None, Decimal | None]]:
    rng = random.Random(20261205)
    cases: list[tuple[int, Decimal | None, Decimal | None, Decimal | None]] = [
        (0, None, None, None), (1, Decimal("5.00000000"), Decimal("5.00000000"), Decimal("10.00000000")),
        (2, Decimal("7.00000000"), Decimal("7.00000000"), Decimal("14.00000000")),
        (3, Decimal("0E-8"), Decimal("0E-8"), Decimal("0E-8")), (2, Decimal("3.00000000"), Decimal("0E-8"),
                                                                 Decimal("0E-8")),
        (2, Decimal("9999999999999999.99000000"), Decimal("0.01000000"), Decimal("10000000000000000.00000000")),
    ]
    for _ in range(3000):
        scale = rng.choice((10 ** 2, 10 ** 6, 10 ** 10, 10 ** 14, 10 ** 18, 10 ** 24))
        values = sorted(Decimal(rng.randrange(0, scale)) * _E8 for _ in range(rng.randint(2, 6)))
        k = len(values)
        pair = values[(k + 1) // 2 - 1] + values[k // 2]
        cases.append((k, values[-1], values[0], pair))
    return cases


def test_the_spread_of_one_entry_is_the_whole_expressions_bit_for_bit() -> None:
    con = duckdb.connect()
    try:
        differ: list[Any] = []
        computed = 0
        for n, mx, mn, pair in _cases():
            whole = con.execute(f"SELECT {_WHOLE}", [n, mx, mn, pair, mx, mn, pair]).fetchall()[0][0]
            sql, params = _spread(n, mx, mn, pair)
            got = con.execute(f"SELECT {sql}", params).fetchall()[0][0]
            computed += sql != "?"
            if _bits(got) != _bits(whole):
                differ.append((n, mx, mn, pair, whole, got))
        assert differ == []
        assert computed > 2900          # most cases go through DuckDB's DOUBLE, not the exact shortcuts
    finally:
        con.close()
