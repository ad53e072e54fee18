"""Exports: real PDF, XLSX, CSV and iCalendar files, in pt-BR, safe to open.

The public API (everything else in this package is private):

    neutralise_cell(value)                         one spreadsheet cell, formula-injection safe
    to_csv_bytes(df_or_rows, columns=None, *, sep=";", decimal=",")      -> bytes
    to_xlsx_bytes(sheets, *, money_columns=None, date_columns=None)      -> bytes
    PdfReport(title, subtitle=None, *, orientation="P", generated_at=None, organisation=..., stamp=None)
        .heading(text) .paragraph(text) .key_values(rows) .table(columns, rows, ...)
        .totals(rows) .signature_lines(names) .bytes()                   -> bytes
        (stamp: an issued document's verification code, CRC and QR on every page — exports.stamp)
    brasilia_time(stored_utc) / brasilia_text(stored_utc)  a stored timestamp in Brasília time
    CalendarEvent(uid, date, summary, description="", url=None)          (a NamedTuple)
    to_ics(events, *, calendar_name, prodid=..., dtstamp=None)           -> bytes

Safety rules kept by every writer:
- Spreadsheets (CSV, XLSX): a *text* cell that begins with ``= + - @``, TAB, CR or
  NUL is prefixed with ``'`` (OWASP "CSV injection"); NUL is stripped. Numbers,
  dates and booleans stay typed, so a negative amount is a number, not text.
- PDF: user text is drawn literally (no markdown, no HTML): ``**x**`` and
  ``<b>x</b>`` print as typed. Control characters are dropped.
- iCalendar: TEXT values are escaped per RFC 5545 §3.3.11, lines are folded at 75
  octets (§3.1) and end in CRLF; URLs are percent-encoded so they cannot inject lines.

Display follows the UI rules (architecture.md): R$ 1.234,56 and dd/mm/aaaa, through
`valuation.core.money.format_brl` / `format_date_br`.
"""
from __future__ import annotations

from valuation.exports.ical import CalendarEvent, to_ics
from valuation.exports.pdf import (
    TIMEZONE_LABEL,
    PdfReport,
    brasilia_text,
    brasilia_time,
)
from valuation.exports.sheets import (
    DATE_FORMAT,
    DATETIME_FORMAT,
    MONEY_FORMAT,
    neutralise_cell,
    to_csv_bytes,
    to_xlsx_bytes,
)

__all__ = [
    "CalendarEvent",
    "DATETIME_FORMAT",
    "DATE_FORMAT",
    "MONEY_FORMAT",
    "PdfReport",
    "TIMEZONE_LABEL",
    "brasilia_text",
    "brasilia_time",
    "neutralise_cell",
    "to_csv_bytes",
    "to_ics",
    "to_xlsx_bytes",
]
