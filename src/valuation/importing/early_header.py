"""The first look at an upload (issue 24, item 10): what `tabular.read_table(header=…)` needs to learn a
table's header from its first rows alone, so that an import refuses a file without its required
columns before the rest of it is scanned or read.

A CSV: `csv_head` cuts its first `CSV_HEAD_LINES` lines, which `tabular` reads with the same reader as
the whole file. An XLSX: `xlsx_header` streams the first visible sheet to its first non-blank row
(`xlsx_parts.first_sheet_header`, the central directory bounded first). Both say None when the header
cannot be learnt cheaply — the caller then checks the header of the full read, as always.
"""
from __future__ import annotations

from valuation.core.errors import InputError
from valuation.importing import limits, xlsx_parts

CSV_HEAD_LINES = 50                     # lines of a CSV read to learn its header before the whole file


def csv_head(data: bytes) -> bytes | None:
    """The first `CSV_HEAD_LINES` lines of a CSV (its line ends kept), looked for within the bytes a
    header and its first rows may take; None for a short file, which is read whole at once."""
    end, lines = -1, 0
    while lines < CSV_HEAD_LINES:
        nxt = data.find(b"\n", end + 1, limits.MAX_LINE_BYTES * 4)
        if nxt < 0:
            break
        end, lines = nxt, lines + 1
    if lines < 2 or end + 1 >= len(data):
        return None
    return data[:end + 1]


def xlsx_header(data: bytes) -> tuple[str, int, tuple[str, ...]] | None:
    """(sheet, row, column names) of an XLSX's first visible sheet, read up to its first non-blank
    row; InputError when the central directory is beyond the limits; None when the workbook is
    corrupt or unusual (the full read says what is wrong)."""
    limits.check_xlsx_directory(data)
    try:
        return xlsx_parts.first_sheet_header(data)
    except InputError:
        raise
    except Exception:  # noqa: BLE001 - a corrupt or unusual workbook: the full read says what is wrong
        return None
