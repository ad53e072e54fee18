"""Vectorised parsers for the cells of an upload (issue 12: split from `tabular`, which reads the
table): numbers with a decimal comma or point (`parse_decimal`, `decimal_convention`), dates
(`parse_dates`), and the helpers the importers share to name bad cells (`claim_cells`,
`with_value`, `more_problems`), and `cell_text`, the text of an XLSX cell's value (shared by the
full read in `tabular` and the early header of `xlsx_parts`). Pure functions, no database, no clock.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Literal, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from valuation.core.errors import Problem

DecimalConvention = Literal["comma", "point"]


# Forms valid with a decimal comma (pt-BR) and with a decimal point, sign removed.
_COMMA_FORM = r"^(?:\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d*,\d+|\d+)$"
_POINT_FORM = r"^(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d*\.\d+|\d+)$"
# The only forms valid both ways with different values: one separator, three digits after.
_AMBIGUOUS_FORM = r"^\d{1,3}[.,]\d{3}$"


# The whitespace `utf8_trim_whitespace` trims among ASCII characters (tests/importing checks all 128).
ASCII_WHITESPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "


# Bytes a cell may start and end with and have nothing to trim: ASCII but its whitespace (every
# Unicode space beyond ASCII is encoded in UTF-8 from a byte >= 0x80, which is not in this set).
_UNTRIMMED_END = np.ones(256, dtype=bool)
_UNTRIMMED_END[0x80:] = False
_UNTRIMMED_END[[ord(c) for c in ASCII_WHITESPACE]] = False


def _nothing_to_trim(column: pa.Array | pa.ChunkedArray) -> bool:
    """Whether no cell of a string column starts or ends with whitespace: the first and last byte
    of every non-empty cell, read from Arrow's offsets and data buffers, are ASCII and not
    whitespace. False whenever that cannot be told cheaply (then the kernels trim)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    for chunk in chunks:
        if pa.types.is_string(chunk.type):
            width = "<i4"
        elif pa.types.is_large_string(chunk.type):
            width = "<i8"
        else:
            return False
        if len(chunk) == 0:
            continue
        _, offsets_buf, data_buf = chunk.buffers()
        offsets = np.frombuffer(offsets_buf, dtype=width)[chunk.offset:chunk.offset + len(chunk) + 1]
        starts, ends = offsets[:-1], offsets[1:]
        empty = ends == starts
        if empty.all():
            continue
        data = np.frombuffer(data_buf, dtype=np.uint8)
        last = len(data) - 1                              # an empty cell's byte is read in range, then ignored
        if not (_UNTRIMMED_END[data[np.minimum(starts, last)]] | empty).all() or \
                not (_UNTRIMMED_END[data[np.maximum(ends - 1, 0)]] | empty).all():
            return False
    return True


def trim_cells(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Each cell without the whitespace at its ends (Unicode's, as `pc.utf8_trim_whitespace`); the
    column itself when no cell starts or ends with a space (`_nothing_to_trim`: most columns of an
    upload); a column of ASCII text alone by the ASCII kernel, a third of the time, the same cells."""
    if _nothing_to_trim(column):
        return column
    if pc.all(pc.string_is_ascii(column)).as_py() is not False:
        return pc.ascii_trim(column, ASCII_WHITESPACE)
    return pc.utf8_trim_whitespace(column)


def _strings(values: pd.Series | pa.Array | pa.ChunkedArray | Iterable[str]) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, pa.Array):
        arr = values
    elif isinstance(values, pd.Series):
        arr = pa.array(values.array, from_pandas=True)
    else:
        arr = pa.array(list(values), type=pa.string())
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.type != pa.string():
        arr = pc.cast(arr, pa.string())
    return pc.fill_null(trim_cells(arr), "")


def _np(mask: pa.Array) -> np.ndarray:
    return pc.fill_null(mask, False).to_numpy(zero_copy_only=False).astype(bool)


def regex_mask(arr: pa.Array, pattern: str, rows: np.ndarray) -> np.ndarray:
    """`match_substring_regex(arr, pattern)` as a mask, evaluated on `rows` only (False elsewhere): the
    caller rules the other rows out by a cheaper test (a regular expression over a million cells
    costs ten plain kernels)."""
    out = np.zeros(len(arr), dtype=bool)
    idx = np.flatnonzero(rows)
    if len(idx) == len(arr):
        return _np(pc.match_substring_regex(arr, pattern))
    if len(idx):
        out[idx] = _np(pc.match_substring_regex(pc.take(arr, pa.array(idx)), pattern))
    return out


def _body(s: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """(value without a leading '-', whether it had one)."""
    neg = _np(pc.starts_with(s, "-"))
    return pc.if_else(pa.array(neg), pc.utf8_slice_codeunits(s, 1), s), neg


@dataclass(frozen=True)
class NumberForms:
    """One column's cells read as numbers so far: trimmed, the sign apart, and which of the two
    conventions' forms each matches. `decimal_convention` and `parse_decimal` both need them: made
    once per column (`number_forms`) and passed to both, the regular expressions run once."""

    text: pa.Array            # trimmed, '' for an empty cell
    body: pa.Array            # without a leading '-'
    negative: np.ndarray
    comma_ok: np.ndarray      # a form valid with a decimal comma
    point_ok: np.ndarray      # a form valid with a decimal point
    digits: np.ndarray        # ASCII digits alone (valid both ways, never ambiguous)


Numbers: TypeAlias = "pd.Series | pa.Array | pa.ChunkedArray | Iterable[str] | NumberForms"


def number_forms(values: Numbers) -> NumberForms:
    """The forms of a column's cells (see NumberForms)."""
    if isinstance(values, NumberForms):
        return values
    s = _strings(values)
    body, neg = _body(s)
    digits = _np(pc.ascii_is_decimal(body))           # both forms' `\d+`: the regular expressions for the rest
    return NumberForms(s, body, neg, digits | regex_mask(body, _COMMA_FORM, ~digits),
                       digits | regex_mask(body, _POINT_FORM, ~digits), digits)


def decimal_convention(columns: Iterable[Numbers], *,
                       default: DecimalConvention | None) -> DecimalConvention | None:
    """The file's decimal separator, from the values that admit only one reading:
    'comma' or 'point' when they all agree, `default` when none decides, None when the
    file shows both (ambiguous values then become errors)."""
    comma_only = point_only = False
    for values in columns:
        forms = number_forms(values)
        comma_only |= bool((forms.comma_ok & ~forms.point_ok).any())
        point_only |= bool((forms.point_ok & ~forms.comma_ok).any())
    if comma_only and point_only:
        return None
    if comma_only:
        return "comma"
    if point_only:
        return "point"
    return default


def default_convention(separator: str | None) -> DecimalConvention:
    """The custom of the source: `;` or TAB CSV → decimal comma (Excel pt-BR); `,` CSV
    and XLSX cells (rendered by `cell_text`) → decimal point."""
    return "comma" if separator in (";", "\t") else "point"


@dataclass(frozen=True)
class DecimalColumn:
    """An exact decimal column (Arrow decimal128, null where blank or bad) and, per cell,
    what was wrong. Exactly one of the masks is true for a bad cell."""

    values: pa.Array
    blank: np.ndarray
    invalid: np.ndarray        # not a number in any accepted form
    ambiguous: np.ndarray      # '1.234' / '1,234' in a file that shows both conventions
    too_precise: np.ndarray    # more (non-zero) decimal places than `scale`
    too_large: np.ndarray      # more integer digits than precision − scale

    @property
    def ok(self) -> np.ndarray:
        return ~(self.blank | self.invalid | self.ambiguous | self.too_precise | self.too_large)

    @property
    def negative(self) -> np.ndarray:
        return _np(pc.less(self.values, pa.scalar(0, self.values.type)))


def _apply(arr: pa.Array, rows: np.ndarray, fn: Callable[[pa.Array], pa.Array]) -> pa.Array:
    """`arr` with `fn` applied to the `rows` (a mask) and the others as they are; `fn` runs on those rows
    alone when they are few (most of these masks are all-false or nearly so on a real file)."""
    if not rows.any():
        return arr
    if rows.all():
        return fn(arr)
    if rows.sum() * 4 < len(rows):
        mask = pa.array(rows)
        return pc.replace_with_mask(arr, mask, fn(pc.filter(arr, mask)))
    return pc.if_else(pa.array(rows), fn(arr), arr)


def _prefix(text: str) -> Callable[[pa.Array], pa.Array]:
    return lambda arr: pc.binary_join_element_wise(text, arr, "")


def canonical_digits(norm: pa.Array) -> pa.Array:
    """The digits of a number with at most one '.' (its decimal point) written canonically:
    '.5' → '0.5', '007.50' → '7.5', '1.000' → '1', '000' → '0' — no leading zero but the one
    before the point, no trailing zero after it, no point without decimals. By plain trims (the
    four regular-expression replacements this stands for took most of a million-row import's
    number parsing)."""
    out = _apply(norm, _np(pc.match_substring(norm, ".")), lambda a: pc.utf8_rtrim(a, "0"))   # decimals' zeros
    out = _apply(out, _np(pc.ends_with(out, ".")), lambda a: pc.utf8_slice_codeunits(a, 0, -1))  # a bare point
    out = pc.utf8_ltrim(out, "0")                                                 # leading zeros …
    lost = (_np(pc.equal(out, "")) & ~_np(pc.equal(norm, ""))) | _np(pc.starts_with(out, "."))
    return _apply(out, lost, _prefix("0"))                                        # … but one digit before the point


def _norm(body: pa.Array, use_comma: np.ndarray) -> pa.Array:
    """The number strings with '.' as the decimal point and no thousands separator: a decimal
    comma's cells (`use_comma`) lose their '.' and have ',' made '.'; the others lose their ','."""
    def comma(arr: pa.Array) -> pa.Array:
        if pc.any(pc.match_substring(arr, ".")).as_py():
            arr = pc.replace_substring(arr, ".", "")
        return pc.replace_substring(arr, ",", ".")

    def point(arr: pa.Array) -> pa.Array:
        return pc.replace_substring(arr, ",", "") if pc.any(pc.match_substring(arr, ",")).as_py() else arr

    if use_comma.all():
        return comma(body)
    if not use_comma.any():
        return point(body)
    return pc.if_else(pa.array(use_comma), comma(body), point(body))


def parse_decimal(values: Numbers, *, convention: DecimalConvention | None,
                  precision: int, scale: int) -> DecimalColumn:
    """Read pt-BR or international number strings into decimal128(precision, scale), exactly.

    `convention` settles `1.234`/`1,234` (see `decimal_convention`); None leaves them
    ambiguous. Trailing zeros beyond `scale` are fine ('1,500' with scale 2); other
    extra places are reported, never rounded away. `values` may be the column's
    `number_forms`, already made for `decimal_convention`.
    """
    forms = number_forms(values)
    s, body, neg, comma_ok, point_ok = forms.text, forms.body, forms.negative, forms.comma_ok, forms.point_ok
    blank = _np(pc.equal(s, ""))
    size = pc.binary_length(body).to_numpy(zero_copy_only=False)
    amb = regex_mask(body, _AMBIGUOUS_FORM, ~forms.digits & (size >= 5) & (size <= 7))   # its 5 to 7 ASCII bytes
    use_comma = (comma_ok & ~point_ok) | (amb & (convention == "comma"))
    invalid = ~blank & ~comma_ok & ~point_ok
    ambiguous = amb & (convention is None)
    bad_form = blank | invalid | ambiguous
    norm = canonical_digits(_norm(body, use_comma))
    dot = pc.find_substring(norm, ".").to_numpy(zero_copy_only=False)
    length = pc.utf8_length(norm).to_numpy(zero_copy_only=False)
    int_len = np.where(dot >= 0, dot, length)
    frac_len = np.where(dot >= 0, length - dot - 1, 0)
    too_precise = ~bad_form & (frac_len > scale)
    too_large = ~bad_form & ~too_precise & (int_len > precision - scale)
    ok = ~(bad_form | too_precise | too_large)
    signed = _apply(norm, neg, _prefix("-"))
    chosen = signed if ok.all() else pc.if_else(pa.array(ok), signed, pa.scalar(None, signed.type))
    decimals = pc.cast(chosen, pa.decimal128(precision, scale))
    return DecimalColumn(decimals, blank, invalid, ambiguous, too_precise, too_large)


# -- dates ----------------------------------------------------------------------------
_TIME = r"(?:[ T]+\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)?"
_BR_DATE = r"^(?P<d>\d{1,2})[/.-](?P<m>\d{1,2})[/.-](?P<y>\d{4})" + _TIME + "$"
_ISO_DATE = r"^(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})" + _TIME + "$"
_MONTH_DAYS = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])


@dataclass(frozen=True)
class DateColumn:
    """Arrow date32 values (null where blank or bad) and what was wrong per cell."""

    values: pa.Array
    blank: np.ndarray
    invalid: np.ndarray        # not dd/mm/aaaa nor aaaa-mm-dd
    impossible: np.ndarray     # right form, no such day (31/02/2025)

    @property
    def ok(self) -> np.ndarray:
        return ~(self.blank | self.invalid | self.impossible)

    def after(self, day: date) -> np.ndarray:
        """Cells holding a date later than `day`."""
        return _np(pc.greater(self.values, pa.scalar(day, pa.date32())))


def _plain_br_dates(s: pa.Array, y: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The cells written exactly `dd/mm/aaaa` (two, two and four ASCII digits), which `_BR_DATE`
    reads as those digits: their parts into y, m, d straight from the bytes of the column (a
    regular expression over a million cells costs ten plain kernels; the bytes, a few array
    lookups); returns which cells they are."""
    plain = np.zeros(len(s), dtype=bool)
    if len(s) == 0 or not (pa.types.is_string(s.type) or pa.types.is_large_string(s.type)):
        return plain
    _, offsets_buf, data_buf = s.buffers()
    if data_buf is None:
        return plain
    width = "<i4" if pa.types.is_string(s.type) else "<i8"
    offsets = np.frombuffer(offsets_buf, dtype=width)[s.offset:s.offset + len(s) + 1].astype(np.int64)
    rows = np.flatnonzero(np.diff(offsets) == 10)          # ten bytes: ten ASCII characters or fewer
    if s.null_count:
        rows = rows[_np(s.is_valid())[rows]]
    if not len(rows):
        return plain
    data = np.frombuffer(data_buf, dtype=np.uint8)
    starts = offsets[rows]
    form = (data[starts + 2] == 47) & (data[starts + 5] == 47)            # the two '/'
    rows, starts = rows[form], starts[form]
    digits = []
    for at in (0, 1, 3, 4, 6, 7, 8, 9):
        digit = data[starts + at] - np.uint8(48)                          # wraps below '0': then > 9
        digits.append(digit)
        form = digit <= 9
        if not form.all():
            rows, starts = rows[form], starts[form]
            digits = [x[form] for x in digits]
    n = [x.astype(np.int64) for x in digits]
    d[rows] = n[0] * 10 + n[1]
    m[rows] = n[2] * 10 + n[3]
    y[rows] = n[4] * 1000 + n[5] * 100 + n[6] * 10 + n[7]
    plain[rows] = True
    return plain


def parse_dates(values: pd.Series | pa.Array | Iterable[str]) -> DateColumn:
    """Read `dd/mm/aaaa` (or `-`/`.`) and ISO `aaaa-mm-dd` strings, optionally with a time
    of day (ignored), into date32; impossible days (31/02/2025) are told apart from bad forms."""
    s = _strings(values)
    blank = _np(pc.equal(s, ""))
    y = np.zeros(len(s), dtype=np.int64)
    m = np.zeros(len(s), dtype=np.int64)
    d = np.zeros(len(s), dtype=np.int64)
    matched = _plain_br_dates(s, y, m, d)
    for pattern in (_BR_DATE, _ISO_DATE):
        rows = np.flatnonzero(~matched & ~blank)      # the second form is tried on the cells the first missed
        if not len(rows):
            break
        parts = pc.extract_regex(s if len(rows) == len(s) else pc.take(s, pa.array(rows)), pattern)
        hit = _np(parts.is_valid())
        if hit.any():
            for name, target in (("y", y), ("m", m), ("d", d)):
                field = pc.fill_null(parts.field(name), "0")
                nums = pc.cast(pc.if_else(pc.equal(field, ""), "0", field), pa.int64()).to_numpy(zero_copy_only=False)
                target[rows[hit]] = nums[hit]
            matched[rows[hit]] = True
    invalid = ~blank & ~matched
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    month_ok = (m >= 1) & (m <= 12)
    dim = np.where(month_ok, _MONTH_DAYS[np.clip(m, 1, 12) - 1], 0) + ((m == 2) & leap)
    real = month_ok & (d >= 1) & (d <= dim) & (y >= 1)
    impossible = matched & ~real
    ok = matched & real
    yy = np.where(ok, y, 1970)
    mm = np.where(ok, m, 1)
    dd = np.where(ok, d, 1)
    days = ((yy - 1970).astype("datetime64[Y]").astype("datetime64[M]") + (mm - 1)).astype("datetime64[D]") + (dd - 1)
    arr = pa.array(days.astype("datetime64[D]"), type=pa.date32(), mask=~ok)
    return DateColumn(arr, blank, invalid, impossible)


# -- reporting bad cells (shared by the importers) ---------------------------------------
MAX_PROBLEMS = 1_000   # problems listed in full; the rest are counted in one last entry
VALUE_SHOWN = 60       # characters of a bad value quoted in a message


def claim_cells(seen: dict[str, np.ndarray], field: str, mask: np.ndarray,
                message: str | np.ndarray) -> tuple[np.ndarray, str | np.ndarray]:
    """A cell is reported once: the first check that flags it wins. Records `mask` as seen for
    `field` and returns the cells not flagged before (and their messages, when per cell)."""
    mask = np.asarray(mask, dtype=bool)
    before = seen.get(field)
    if before is None:
        seen[field] = mask.copy()
        return mask, message
    if isinstance(message, np.ndarray):
        message = message[~before[mask]]
    mask = mask & ~before
    seen[field] = before | mask
    return mask, message


def with_value(message: str, value: object) -> str:
    """`message (valor: "…")` quoting at most VALUE_SHOWN characters of the bad value."""
    text = "" if value is None or value is pd.NA else str(value)
    if not text:
        return message
    text = text.replace("\n", "\\n")
    if len(text) > VALUE_SHOWN:
        text = text[:VALUE_SHOWN] + "…"
    return f'{message} (valor: "{text}")'


def more_problems(total: int) -> list[Problem]:
    """The closing '… e mais K problemas' entry when more than MAX_PROBLEMS were found."""
    if total <= MAX_PROBLEMS:
        return []
    rest = total - MAX_PROBLEMS
    return [Problem("", f"… e mais {rest:,} problema{'s' if rest > 1 else ''}".replace(",", "."))]


def cell_text(value: object) -> str:
    """An XLSX cell value as the string a person would have typed, unambiguous to
    `parse_decimal` and `parse_dates`: numbers with a decimal point and no thousands
    separator (a float with exactly three decimals gets a trailing zero, so '1.2340'
    cannot be read as one thousand two hundred and thirty-four), dates in ISO."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool):
        return "VERDADEIRO" if value else "FALSO"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        # 15 significant digits drop binary noise (0.1 + 0.2 → 0.3), as Excel shows it.
        s = format(value, ".15g")
        if "e" in s:
            if value != value or value in (float("inf"), float("-inf")):
                return s
            s = format(Decimal(s), "f")
        if "." in s and len(s) - s.index(".") == 4:
            s += "0"
        return s
    if isinstance(value, datetime):
        if value.time() == time(0, 0):
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (time, timedelta)):
        return str(value)
    return str(value).strip()
