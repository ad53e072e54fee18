"""The plain kernels that stand for regular expressions and Unicode trims in `importing.cells` (issue 28:
a million-row import spent most of its number parsing in four regex replacements and its reading in
Unicode trims) give the very cells the slower forms give."""
from __future__ import annotations

from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from valuation.importing.cells import ASCII_WHITESPACE, canonical_digits, parse_decimal, regex_mask, trim_cells

# name, digits with at most one decimal point, canonical form worked out by hand
CANONICAL = [
    ("plain integer", "1234", "1234"),
    ("leading zeros", "007", "7"),
    ("zeros only", "000", "0"),
    ("one zero", "0", "0"),
    ("point first", ".5", "0.5"),
    ("trailing zeros of the decimals", "7.50", "7.5"),
    ("both ends", "007.50", "7.5"),
    ("decimals all zero", "1.000", "1"),
    ("zero point zero", "0.0", "0"),
    ("zeros around the point", "00.00", "0"),
    ("integer zeros kept", "100", "100"),
    ("integer zeros before a point", "100.10", "100.1"),
    ("zero then decimals", "0.05", "0.05"),
    ("empty stays empty", "", ""),
]


@pytest.mark.parametrize("name, given, expected", CANONICAL, ids=[c[0] for c in CANONICAL])
def test_canonical_digits(name: str, given: str, expected: str) -> None:
    assert canonical_digits(pa.array([given])).to_pylist() == [expected]


def test_decimal_values_and_places_through_the_canonical_digits() -> None:
    col = parse_decimal(pa.array(["007,50", ",5", "1.234,500", "0,001", "12345678901", "3"]), convention="comma",
                        precision=12, scale=2)
    assert col.values.to_pylist() == [Decimal("7.50"), Decimal("0.50"), Decimal("1234.50"), None, None,
                                      Decimal("3.00")]
    assert col.too_precise.tolist() == [False, False, False, True, False, False]    # 0,001: three places
    assert col.too_large.tolist() == [False, False, False, False, True, False]      # 11 integer digits > 10


@pytest.mark.parametrize("edge", [chr(i) for i in range(128)])
def test_trim_cells_trims_what_the_unicode_trim_trims(edge: str) -> None:
    cells = pa.array([f"{edge}a{edge}", edge * 3, f"{edge}b", "c"])
    assert trim_cells(cells).to_pylist() == pc.utf8_trim_whitespace(cells).to_pylist()
    assert (edge in ASCII_WHITESPACE) == (pc.utf8_trim_whitespace(pa.array([edge])).to_pylist() == [""])


def test_trim_cells_with_unicode_spaces_takes_the_unicode_trim() -> None:
    cells = pa.array(["\u00a0Moeda\u2003", " réis ", "x"])
    assert trim_cells(cells).to_pylist() == ["Moeda", "réis", "x"]


def test_regex_mask_only_looks_at_the_rows_asked() -> None:
    cells = pa.array(["a1", "b2", "a3", "a4"])
    rows = np.array([True, True, False, True])
    assert regex_mask(cells, "^a", rows).tolist() == [True, False, False, True]
    assert regex_mask(cells, "^a", np.zeros(4, dtype=bool)).tolist() == [False] * 4


def test_trim_cells_hands_back_a_column_with_nothing_to_trim_as_it_is() -> None:
    cells = pa.chunked_array([pa.array(["a", "", "b c", None]), pa.array(["d-1", "xéx"])])
    assert trim_cells(cells) is cells
    large = pa.array(["x", "y z"], type=pa.large_string())
    assert trim_cells(large) is large


@pytest.mark.parametrize("cells", [
    pa.array(["a", "b ", "c"]),                                       # a space at the end of one cell
    pa.array([" a", "b"]),                                            # at the start
    pa.array(["a", "b\u00a0"]),                                       # a Unicode space (a byte >= 0x80 ends it)
    pa.array(["a", "réis é"]),                                        # non-ASCII last byte: the kernels decide
    pa.array([" x", "a", "b "]).slice(1, 1),                          # a slice of a column that has spaces
    pa.array([" x", "a", "b "]).slice(1, 2),
    pa.chunked_array([pa.array(["a"]), pa.array(["\tb"])]),           # the second chunk has a tab
    pa.array(["a ", None, " "], type=pa.large_string()),
], ids=lambda c: repr(c.to_pylist()))
def test_trim_cells_fast_path_gives_the_unicode_trims_cells(cells: pa.Array) -> None:
    assert trim_cells(cells).to_pylist() == pc.utf8_trim_whitespace(cells).to_pylist()


def test_trim_cells_matches_the_unicode_trim_on_random_cells() -> None:
    rng = np.random.default_rng(28)
    alphabet = list("ab9-;é·") + list(ASCII_WHITESPACE) + ["\u00a0", "\u2003", "\u3000", "\u0085"]
    for _ in range(200):
        cells = ["".join(rng.choice(alphabet, size=rng.integers(0, 5))) for _ in range(rng.integers(1, 8))]
        arr = pa.array(cells)
        start = int(rng.integers(0, len(cells)))
        for column in (arr, arr.slice(start), pa.chunked_array([arr, arr.slice(start)])):
            assert trim_cells(column).to_pylist() == pc.utf8_trim_whitespace(column).to_pylist()


def _plain_oracle(cells: list[str | None]) -> list[tuple[int, int, int] | None]:
    import re

    out: list[tuple[int, int, int] | None] = []
    for c in cells:
        hit = re.fullmatch(r"([0-9]{2})/([0-9]{2})/([0-9]{4})", c) if c is not None else None
        out.append((int(hit[3]), int(hit[2]), int(hit[1])) if hit else None)
    return out


def test_plain_dates_read_from_the_bytes_are_the_dd_mm_aaaa_cells() -> None:
    from valuation.importing.cells import _plain_br_dates

    rng = np.random.default_rng(7)
    alphabet = list("0123456789/") * 4 + list("-.é ٣a")          # ٣: a digit, but not an ASCII one
    fixed = ["10/03/2025", "01/01/0001", "31/12/9999", "1/03/2025", "10/03/25", "10-03-2025", "10/03/2025 ",
             "١٠/٠٣/٢٠٢٥", "10/03/202é", "aa/bb/cccc", "", "10/3/20255", "00/00/0000"]
    cells: list[str | None] = fixed + ["".join(rng.choice(alphabet, size=int(rng.integers(8, 12))))
                                       for _ in range(3000)] + [None]
    base = pa.array(cells)
    for arr in (base, base.slice(5), pa.array(cells, type=pa.large_string())):
        n = len(arr)
        y, m, d = (np.zeros(n, dtype=np.int64) for _ in range(3))
        plain = _plain_br_dates(arr, y, m, d)
        expected = _plain_oracle(arr.to_pylist())
        assert plain.tolist() == [e is not None for e in expected]
        assert [(int(a), int(b), int(c)) for a, b, c, p in zip(y, m, d, plain) if p] == [e for e in expected if e]
    assert _plain_br_dates(pa.array(["10/03/2025"]).slice(1), *(np.zeros(0, dtype=np.int64),) * 3).tolist() == []
