"""Spreadsheet exports: CSV for Brazilian Excel and XLSX workbooks, formula-injection safe.

Formula injection (OWASP "CSV injection"): a spreadsheet may run a text cell
that begins with ``=``, ``+``, ``-`` or ``@`` (or TAB/CR, which some programs
strip first) as a formula. `neutralise_cell` prefixes such text with ``'`` so it
shows literally; numbers, dates and booleans are written as typed values and
never need it — a negative amount stays a number.

Column kinds, shared by both writers:
- a column whose datetimes are all at 00:00:00 (dates read through ``.df()``
  arrive that way) is a date column and shows ``dd/mm/aaaa``;
- ``Decimal`` values are written exactly (see `to_xlsx_bytes` for Excel's doubles).
"""
from __future__ import annotations

import csv
import io
import math
import numbers
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pandas as pd
import xlsxwriter

from valuation.core.money import format_brl, format_date_br, format_datetime_br, to_cents
from valuation.exports._values import (
    Number,
    clean_text,
    decimal_text,
    display_text,
    is_bool,
    is_midnight,
    is_missing,
    is_number,
)

# Excel number formats are stored locale-neutral ("," groups, "." decimals) and
# shown with the reader's separators: in pt-BR Excel/LibreOffice this one reads
# "R$ 1.234,56". 416 is the pt-BR locale id.
MONEY_FORMAT = "[$R$-416] #,##0.00;-[$R$-416] #,##0.00"
DATE_FORMAT = "dd/mm/yyyy"
DATETIME_FORMAT = "dd/mm/yyyy hh:mm"

# First characters that make a text cell a formula (OWASP), plus NUL.
_FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\x00")

# Excel's limits: 1,048,576 rows (one is the header) and 31-character sheet names
# without []:*?/\ ; a text cell holds at most 32,767 characters.
_XLSX_MAX_DATA_ROWS = 1_048_575
_SHEET_NAME_MAX = 31
_SHEET_NAME_FORBIDDEN = str.maketrans({c: "-" for c in "[]:*?/\\"})
_CELL_TEXT_MAX = 32_767
# Column widths come from the first rows only: enough to size, cheap on big sheets.
_WIDTH_SAMPLE_ROWS = 2_000
_WIDTH_MIN, _WIDTH_MAX = 8, 60


def neutralise_cell(value: object) -> object:
    """The value to put in a spreadsheet cell, with formula injection defused.

    Text that begins with ``=``, ``+``, ``-``, ``@``, TAB, CR or NUL — also after
    leading spaces — gets a ``'`` prefix; NUL characters are removed from all text.
    Anything that is not text (int, Decimal, float, date, bool, None) is returned
    unchanged: a negative number is a number, not a formula.

    >>> neutralise_cell("=1+1"), neutralise_cell(Decimal("-5.00")), neutralise_cell("Âncora")
    ("'=1+1", Decimal('-5.00'), 'Âncora')
    """
    if not isinstance(value, str):
        return value
    dangerous = value.lstrip(" ").startswith(_FORMULA_TRIGGERS)
    text = value.replace("\x00", "")
    if dangerous or text.lstrip(" ").startswith(_FORMULA_TRIGGERS):
        return "'" + text
    return text


@dataclass(frozen=True)
class _Table:
    """Rows normalised from a DataFrame or an iterable of rows."""

    header: list[str] | None
    rows: list[tuple[object, ...]]

    def column(self, index: int) -> Iterable[object]:
        return (row[index] for row in self.rows)


def _as_table(df_or_rows: pd.DataFrame | Iterable[Any], columns: Sequence[str] | None) -> _Table:
    """A DataFrame (index dropped; `columns` selects and orders), rows of mappings
    (`columns` = keys, default: the first row's keys) or rows of sequences
    (`columns` = header labels, default: no header)."""
    if isinstance(df_or_rows, pd.DataFrame):
        frame = df_or_rows if columns is None else df_or_rows.loc[:, list(columns)]
        return _Table([str(c) for c in frame.columns], list(frame.itertuples(index=False, name=None)))
    rows = list(df_or_rows)
    if rows and isinstance(rows[0], Mapping):
        keys = list(columns) if columns is not None else [str(k) for k in rows[0]]
        return _Table(keys, [tuple(r.get(k) for k in keys) for r in rows])
    header = None if columns is None else [str(c) for c in columns]
    table = _Table(header, [tuple(r) for r in rows])
    width = len(header) if header is not None else (len(table.rows[0]) if table.rows else 0)
    for n, row in enumerate(table.rows):
        if len(row) != width:
            raise ValueError(f"row {n} has {len(row)} cells, expected {width}")
    return table


def _width(table: _Table) -> int:
    if table.header is not None:
        return len(table.header)
    return len(table.rows[0]) if table.rows else 0


def _date_only_columns(table: _Table) -> list[bool]:
    """Per column: every non-missing datetime in it is at midnight (and there is one)."""
    result = []
    for i in range(_width(table)):
        stamps = [v for v in table.column(i) if isinstance(v, datetime) and not is_missing(v)]
        result.append(bool(stamps) and all(is_midnight(v) for v in stamps))
    return result


# --------------------------------------------------------------------------- CSV


def to_csv_bytes(
    df_or_rows: pd.DataFrame | Iterable[Sequence[object]] | Iterable[Mapping[str, object]],
    columns: Sequence[str] | None = None,
    *,
    sep: str = ";",
    decimal: str = ",",
) -> bytes:
    """CSV for Brazilian Excel: UTF-8 with BOM, ``;`` between fields, decimal comma, CRLF.

    Numbers are written without grouping ('-1234,50', exact for Decimal) so Excel
    reads them as numbers; dates as 'dd/mm/aaaa', datetimes as 'dd/mm/aaaa HH:MM:SS';
    booleans 'Sim'/'Não'; missing values empty. Text (and the header) goes through
    `neutralise_cell`. See `_as_table` for the accepted inputs.
    """
    if len(sep) != 1 or len(decimal) != 1 or sep == decimal:
        raise ValueError("sep and decimal must be two different single characters")
    table = _as_table(df_or_rows, columns)
    date_only = _date_only_columns(table)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=sep, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    if table.header is not None:
        writer.writerow([neutralise_cell(h) for h in table.header])
    for row in table.rows:
        writer.writerow([_csv_field(v, decimal, date_only[i]) for i, v in enumerate(row)])
    return buffer.getvalue().encode("utf-8-sig")


def _csv_field(value: object, decimal: str, date_only: bool) -> object:
    if is_missing(value):
        return ""
    if is_bool(value):
        return "Sim" if value else "Não"
    if isinstance(value, datetime):
        return format_date_br(value.date()) if date_only else format_datetime_br(value, seconds=True)
    if isinstance(value, date):
        return format_date_br(value)
    if is_number(value):
        return decimal_text(value, decimal)
    return neutralise_cell(str(value))


# -------------------------------------------------------------------------- XLSX

ColumnSelection = Collection[str] | Mapping[str, Collection[str]] | None


def to_xlsx_bytes(
    sheets: Mapping[str, pd.DataFrame],
    *,
    money_columns: ColumnSelection = None,
    date_columns: ColumnSelection = None,
    properties: Mapping[str, str] | None = None,
) -> bytes:
    """An .xlsx workbook, one worksheet per DataFrame (the index is not written).

    - ``money_columns``: columns shown as money (``MONEY_FORMAT``, 'R$ 1.234,56' in
      pt-BR). A collection applies to every sheet; a mapping gives them per sheet
      name (a sheet it does not name is detected). ``None``: every column
      holding ``Decimal`` values.
    - ``date_columns``: columns shown as ``dd/mm/yyyy`` even if they hold datetimes.
      ``None``: columns of dates, or of datetimes all at midnight. Other
      datetimes show ``dd/mm/yyyy hh:mm``. Dates are real date cells. Same
      collection/mapping forms as ``money_columns``.
    - Text is neutralised (`neutralise_cell`) and always written as a string, never
      as a formula; the header row is bold, frozen and filtered; widths fit the data.
    - ``properties``: the file's document properties (xlsxwriter's names: title, subject, keywords,
      comments…), e.g. an issued statement's verification code (issue 27).

    Excel stores every number as an IEEE double. A money ``Decimal`` is rounded
    to the cent (half-up) and written as the double nearest to it, which reads
    back as exactly the same two-decimal amount for up to 15 significant digits
    (R$ 9.999.999.999.999,99). A larger amount — or any Decimal that would not
    survive the round trip — is written as exact text instead of a wrong number.

    XLSX is several times slower than CSV (`to_csv_bytes`): offer CSV for big listings (the
    measured cost is in bench/README.md, "Exports and demo").
    """
    if not sheets:
        raise ValueError("a workbook needs at least one sheet")
    buffer = io.BytesIO()
    workbook = xlsxwriter.Workbook(
        buffer,
        {
            "in_memory": True,
            "remove_timezone": True,
            "strings_to_formulas": False,
            "strings_to_numbers": False,
            "strings_to_urls": False,
        },
    )
    if properties:
        workbook.set_properties({str(k): str(v) for k, v in properties.items()})
    formats = _formats(workbook)
    used: set[str] = set()
    for name, frame in sheets.items():
        if len(frame) > _XLSX_MAX_DATA_ROWS:
            raise ValueError(
                f"A planilha {name!r} tem {len(frame):,} linhas; o Excel aceita no máximo "
                f"{_XLSX_MAX_DATA_ROWS:,} linhas de dados.".replace(",", ".")
            )
        sheet_name = _sheet_name(name, used)
        _write_sheet(
            workbook.add_worksheet(sheet_name),
            frame,
            formats,
            _selection_for(money_columns, name),
            _selection_for(date_columns, name),
        )
    workbook.close()
    return buffer.getvalue()


def _formats(workbook: xlsxwriter.Workbook) -> dict[str, Any]:
    """The cell formats of a workbook: header, money, date, datetime, right-aligned text."""
    return {
        "header": workbook.add_format({"bold": True, "bottom": 1, "bg_color": "#DCE3EE", "text_wrap": True,
                                       "valign": "top"}),
        "money": workbook.add_format({"num_format": MONEY_FORMAT}),
        "date": workbook.add_format({"num_format": DATE_FORMAT}),
        "datetime": workbook.add_format({"num_format": DATETIME_FORMAT}),
        "text_right": workbook.add_format({"align": "right"}),
    }


def _selection_for(selection: ColumnSelection, sheet: str) -> set[str] | None:
    if selection is None:
        return None
    if isinstance(selection, Mapping):
        chosen = selection.get(sheet)
        return None if chosen is None else {str(c) for c in chosen}
    return {str(c) for c in selection}


def _sheet_name(name: str, used: set[str]) -> str:
    """Excel-valid, unique (case-insensitively) sheet name."""
    base = clean_text(name, multiline=False).translate(_SHEET_NAME_FORBIDDEN).strip().strip("'")
    base = base[:_SHEET_NAME_MAX] or "Planilha"
    candidate, n = base, 1
    while candidate.casefold() in used:
        n += 1
        suffix = f" ({n})"
        candidate = base[: _SHEET_NAME_MAX - len(suffix)] + suffix
    used.add(candidate.casefold())
    return candidate


def _column_kind(
    name: str, values: list[object], money: set[str] | None, dates: set[str] | None
) -> str:
    """'money', 'date', 'datetime' or 'plain' for one column."""
    present = [v for v in values if not is_missing(v)]
    if (money is not None and name in money) or (
        money is None and present and all(isinstance(v, Decimal) for v in present)
    ):
        return "money"
    stamps = [v for v in present if isinstance(v, datetime)]
    if dates is not None and name in dates:
        return "date"
    if stamps:
        return "date" if dates is None and all(is_midnight(v) for v in stamps) else "datetime"
    return "date" if any(isinstance(v, date) for v in present) else "plain"


def _write_sheet(
    sheet: xlsxwriter.worksheet.Worksheet,
    frame: pd.DataFrame,
    formats: dict[str, Any],
    money: set[str] | None,
    dates: set[str] | None,
) -> None:
    header = [str(c) for c in frame.columns]
    columns = [list(frame.iloc[:, i]) for i in range(len(header))]
    kinds = [_column_kind(h, col, money, dates) for h, col in zip(header, columns)]
    for c, title in enumerate(header):
        sheet.write_string(0, c, str(neutralise_cell(clean_text(title, multiline=False))), formats["header"])
    for c, (kind, values) in enumerate(zip(kinds, columns)):
        for r, value in enumerate(values, start=1):
            _write_cell(sheet, r, c, value, kind, formats)
    for c, (title, kind, values) in enumerate(zip(header, kinds, columns)):
        sample = values[:_WIDTH_SAMPLE_ROWS]
        longest = max([len(title) + 2] + [len(_shown(v, kind)) for v in sample])
        sheet.set_column(c, c, min(_WIDTH_MAX, max(_WIDTH_MIN, longest + 2)))
    sheet.freeze_panes(1, 0)
    if header:
        sheet.autofilter(0, 0, max(len(frame), 1), len(header) - 1)


def _write_cell(sheet: Any, row: int, col: int, value: object, kind: str, formats: dict[str, Any]) -> None:
    if type(value) is str:  # the common case first
        sheet.write_string(row, col, str(neutralise_cell(value))[:_CELL_TEXT_MAX])
    elif is_missing(value):
        sheet.write_blank(row, col, None)
    elif is_bool(value):
        sheet.write_boolean(row, col, bool(value))
    elif isinstance(value, (date, datetime)):
        if isinstance(value, datetime):
            fmt = formats["date" if kind == "date" else "datetime"]
        else:
            fmt = formats["date"]
        sheet.write_datetime(row, col, value, fmt)
    elif is_number(value):
        number = to_cents(value) if kind == "money" and isinstance(value, Decimal) else value
        exact = _as_exact_float(number)
        # a count in a money column (a summary's 'Bens adjudicados') stays a plain whole number
        fmt = formats["money"] if kind == "money" and not isinstance(number, numbers.Integral) else None
        if exact is None:
            shown = format_brl(number) if kind == "money" and isinstance(number, Decimal) \
                else decimal_text(number, ",")
            sheet.write_string(row, col, shown, formats["text_right"])
        else:
            sheet.write_number(row, col, exact, fmt)
    else:
        text = str(neutralise_cell(str(value)))
        sheet.write_string(row, col, text[:_CELL_TEXT_MAX])


def _as_exact_float(value: Number) -> float | None:
    """The double for a cell, or None when it cannot hold the value exactly (or is ±inf).

    A double holds 15 significant decimal digits exactly: a Decimal or an integer
    beyond that would change on its way into Excel.
    """
    number = float(value)
    if not math.isfinite(number):
        return None
    if isinstance(value, Decimal) and Decimal(repr(number)) != value:
        return None
    if isinstance(value, numbers.Integral) and int(number) != int(value):
        return None
    return number


def _shown(value: object, kind: str) -> str:
    """Roughly what Excel shows, for column widths."""
    if kind == "money" and is_number(value) and not is_missing(value):
        return format_brl(Decimal(str(value)))
    return display_text(value, date_only=kind == "date")
