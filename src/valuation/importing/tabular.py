"""Reading the tables that Brazilian spreadsheets really produce (CSV or XLSX) into strings,
and vectorised parsers for their numbers and dates.

Pure functions, no database, no clock. Shared by every bulk upload (recovered items,
the commission's bulk values, ...): `read_table` turns the raw bytes of an upload into a
DataFrame of trimmed strings indexed by the line of the file where each record starts;
`parse_decimal` and `parse_dates` turn string columns into exact Arrow columns and
say, cell by cell, what was wrong.

What is accepted (and why):

- Formats: CSV/TXT/TSV text and XLSX (Office Open XML). Recognised by content first
  (an XLSX is a ZIP holding `xl/workbook.xml`; users rename files), then by extension.
  `.xls` (Excel 97-2003), `.ods`, PDF and other binaries are refused with a message
  that says what to do.
- Encodings: UTF-8 with or without BOM, UTF-16 with BOM (Excel's "Texto Unicode"),
  else Windows-1252 (Excel's "CSV (separado por vírgulas)" on a pt-BR Windows). A byte
  sequence valid in none of them is refused.
- Separators: `;` (Excel pt-BR), `,` or TAB, sniffed from the header line (the one
  with most separators outside quotes; ties favour `;`). Excel's `sep=;` hint line is
  honoured and skipped.
- Rows: the header is the first non-blank row; blank rows (or rows of empty cells,
  `;;;;`) are skipped. Line ends CRLF, LF or CR; a line break inside a quoted field is
  kept as LF. Cells are trimmed.
- Line numbers: a record's line is the PHYSICAL line of the file where the record
  STARTS (header = line 1 when it is the first line), so a quoted field holding line
  breaks makes the next record's number jump by as many lines. Blank lines count as
  lines. For XLSX: the sheet row number.
- Numbers: decimal comma or point, with or without thousands separators
  (`1.234,56`, `1,234.56`, `1234,56`, `1234.56`, `,5`). A value whose form admits only
  one reading is read that way; `1.234` or `1,234` (one separator followed by exactly
  three digits) admits two, and is read by the file's convention: the one that the
  other, unambiguous, values of the file show, else the separator's custom (`;`/TAB →
  decimal comma, `,` → decimal point; XLSX → decimal point). When the file shows both
  conventions the ambiguous value is reported, never guessed.
- Dates: `dd/mm/aaaa` (also with `-` or `.`), ISO `aaaa-mm-dd`, either optionally
  followed by a time of day (ignored), and XLSX date cells.
- XLSX: the first visible worksheet; the header is its first non-blank row. Cells are
  turned into text by `cells.cell_text` (numbers with a decimal point, dates in ISO). Read
  with python-calamine when installed (100 000 rows read in ~1 s on this 2-core
  machine), else with openpyxl (~30 s); both give the same strings.
"""
from __future__ import annotations

import csv
import importlib.util
import io
import re
import unicodedata
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from valuation.core.errors import InputError, Problem
from valuation.importing import early_header, limits, xlsx_parts
from valuation.importing.cells import cell_text, trim_cells

Progress = Callable[[float, str], None]

CSV_EXTENSIONS = (".csv", ".txt", ".tsv")
XLSX_EXTENSIONS = (".xlsx", ".xlsm")
SEPARATORS = (";", "\t", ",")          # order = preference on a tie
# A CSV row may carry a few more fields than its header (trailing `;;` from Excel);
# the first read allows this many before falling back to counting them exactly.
_EXTRA_FIELDS = 16
# Bounds on an upload checked before it is parsed (csv_fast.TableLimits; None: no bound).
LIMITS = None
# XLSX rows between two progress reports of the openpyxl reader (~3 000 rows/s here).
_XLSX_PROGRESS_EVERY = 5_000

_ZIP_MAGIC = b"PK\x03\x04"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"   # .xls, .doc, encrypted .xlsx


def file_error(message: str, line: int | None = None) -> InputError:
    """The InputError of a file that cannot be read as a table (the whole file, or one line of it)."""
    return InputError([Problem("", message, line=line)])


# -- file kind and text ---------------------------------------------------------------
def detect_format(data: bytes, file_name: str) -> Literal["csv", "xlsx"]:
    """'xlsx' or 'csv' from the content (then the extension); InputError for anything else."""
    ext = _extension(file_name)
    if not data:
        raise file_error("o arquivo está vazio")
    if data.startswith(_ZIP_MAGIC):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                names = set(z.namelist())
                mimetype = _head_of(z, "mimetype") if "mimetype" in names else b""
        except (zipfile.BadZipFile, OSError, RuntimeError) as exc:
            raise file_error("não foi possível ler o arquivo: ZIP/XLSX corrompido") from exc
        if "xl/workbook.xml" in names:
            return "xlsx"
        if b"opendocument" in mimetype:
            raise file_error("planilhas ODS (LibreOffice) não são aceitas: salve como .xlsx ou .csv")
        raise file_error("o arquivo é um ZIP que não contém uma planilha XLSX: envie um .csv ou .xlsx")
    if data.startswith(_OLE_MAGIC):
        raise file_error("formato .xls (Excel 97-2003) ou planilha protegida por senha não é aceito: "
                    "salve como .xlsx (sem senha) ou .csv")
    if ext in XLSX_EXTENSIONS:
        raise file_error(f"o arquivo {ext} está corrompido ou não é uma planilha XLSX")
    if data.startswith(b"%PDF"):
        raise file_error("arquivos PDF não são aceitos: envie um .csv ou .xlsx")
    if ext in CSV_EXTENSIONS or ext == "":
        return "csv"
    raise file_error(f"formato {ext} não é aceito: envie um arquivo .csv ou .xlsx")


def _head_of(z: zipfile.ZipFile, name: str) -> bytes:
    """The first bytes of a part, never inflating more (the part may be a bomb)."""
    with z.open(name) as fh:
        return fh.read(80)


def _extension(file_name: str) -> str:
    base = file_name.replace("\\", "/").rsplit("/", 1)[-1]
    return "." + base.rsplit(".", 1)[1].lower() if "." in base else ""


def decode_text(data: bytes) -> tuple[str, str]:
    """(text, Python codec name): UTF-8 (BOM or not), UTF-16 with BOM, else Windows-1252."""
    candidates: tuple[str, ...]
    if data.startswith(b"\xef\xbb\xbf"):
        candidates = ("utf-8-sig",)
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        candidates = ("utf-16",)
    else:
        candidates = ("utf-8", "cp1252")
    for encoding in candidates:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if "\x00" in text:
            raise file_error("o arquivo não é texto (contém bytes nulos): envie um .csv ou .xlsx")
        return text, encoding
    raise file_error("não foi possível ler o texto do arquivo: use a codificação UTF-8 ou Windows-1252")


def sniff_separator(line: str) -> str:
    """The separator of a header line: the most frequent of `;`, TAB, `,` outside quotes
    (ties → `;`, then TAB); `;` when there is none (a one-column file)."""
    counts = dict.fromkeys(SEPARATORS, 0)
    quoted = False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in counts:
            counts[ch] += 1
    best = max(SEPARATORS, key=lambda s: counts[s])   # max keeps the first on a tie
    return best if counts[best] else ";"


def normalise_header(name: str) -> str:
    """Case-, accent- and spacing-free key of a column name: 'Código do Item' → 'codigo_do_item',
    'Peso (g)' → 'peso_g'."""
    folded = unicodedata.normalize("NFKD", str(name)).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "_", folded.lower()).strip("_")


# -- the table ------------------------------------------------------------------------
@dataclass(frozen=True)
class TableMeta:
    """How a table was read. `header` holds the column names as written (trimmed), one
    per DataFrame column ('' where the header cell is empty or the row ran past it)."""

    format: Literal["csv", "xlsx"]
    encoding: str | None          # Python codec name (CSV only): utf-8, utf-8-sig, utf-16, cp1252
    separator: str | None         # CSV only
    header: tuple[str, ...]
    header_line: int              # line of the file (CSV) or sheet row (XLSX) holding the header
    sheet: str | None             # XLSX only: the sheet read (the first one)
    blank_rows: int               # blank records skipped


def map_header(meta: TableMeta, aliases: Mapping[str, str]) -> tuple[dict[str, int], list[str], list[Problem]]:
    """Field → column position of a table's header, by `aliases` (a `normalise_header` key → field);
    the named columns that are not ours; a problem (on the header's line) for each field that two
    columns name. Unnamed columns are skipped."""
    positions: dict[str, int] = {}
    ignored: list[str] = []
    problems: list[Problem] = []
    for pos, title in enumerate(meta.header):
        if not title:
            continue
        field = aliases.get(normalise_header(title))
        if field is None:
            ignored.append(title)
        elif field in positions:
            problems.append(Problem("", f'as colunas "{meta.header[positions[field]]}" e "{title}" '
                                        f"indicam o mesmo campo ({field})", line=meta.header_line))
        else:
            positions[field] = pos
    return positions, ignored, problems


HeaderCheck = Callable[["TableMeta"], object]


def read_table(data: bytes, file_name: str, *, progress: Progress | None = None,
               header: HeaderCheck | None = None) -> tuple[pd.DataFrame, TableMeta]:
    """The data rows of a CSV or XLSX upload as trimmed strings ('' for empty cells).

    The DataFrame's index (named 'linha') is the line of the file where each record
    starts (XLSX: the sheet row); its columns are `meta.header` (possibly repeated or
    ''). Blank rows are dropped. Raises InputError for an empty, unreadable or
    unsupported file, or one without a header row; a header without data rows gives an
    empty DataFrame; and for a file beyond `valuation.importing.limits` (checked before it is
    parsed: size, XLSX parts inflated and their ratios, rows, columns, line and cell lengths).

    `header(meta)`, when given, is called with the header learnt from the first rows alone — before
    the body is read or even scanned (issue 24, item 10: a 25-million-cell workbook without a required
    column took 2 GB and 24 s to be refused) — and refuses by raising. When the header cannot be learnt
    early it is not called: the caller checks the returned `meta` as it always does.
    """
    kind = detect_format(data, file_name)
    limits.check_size(data)
    early = None
    if header is not None:
        early = _early_header(data, kind)
        if early is not None:
            header(early)
    limits.check_upload(data, kind)          # issue 14: sizes, parts, ratios, rows, columns — before any parser
    df, meta = _read_xlsx(data, progress) if kind == "xlsx" else _read_csv(data, progress)
    limits.check_cells(df)                   # and the length of every cell
    return df, meta


def _early_header(data: bytes, kind: str) -> TableMeta | None:
    """The header learnt from the first rows alone (`early_header`); None when it cannot be cheaply."""
    if kind == "xlsx":
        found = early_header.xlsx_header(data)
        return None if found is None else TableMeta("xlsx", None, None, found[2], found[1], found[0], 0)
    head = early_header.csv_head(data)
    try:
        return None if head is None else _read_csv(head, None)[1]
    except InputError:
        return None


def _read_csv(data: bytes, progress: Progress | None) -> tuple[pd.DataFrame, TableMeta]:
    """A well-formed CSV through Arrow's parser (`csv_fast`: the same result, a fraction of
    the time and memory), any other through `_read_csv_text`."""
    from valuation.importing.csv_fast import read_csv_arrow

    if progress:
        progress(0.1, "lendo o CSV")
    fast = read_csv_arrow(data, LIMITS)
    if fast is None:
        return _read_csv_text(data, progress)
    n = len(fast.lines)
    index = pd.RangeIndex(n)
    arrays = [pd.arrays.ArrowStringArray(trim_cells(c)) for c in fast.columns]
    table = pd.DataFrame._from_arrays(arrays, columns=list(range(len(arrays))), index=index, verify_integrity=False)
    df, header, header_line, blank = _split_header(table, fast.lines)
    blank += int((fast.empty_lines > header_line).sum())
    if progress:
        progress(0.3, f"CSV lido: {len(df)} linhas de dados")
    return df, TableMeta("csv", fast.encoding, fast.separator, header, header_line, None, blank)


def _read_csv_text(data: bytes, progress: Progress | None) -> tuple[pd.DataFrame, TableMeta]:
    text, encoding = decode_text(data)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise file_error("o arquivo está vazio")
    # Excel's separator hint, `sep=;`, as the first line: honoured, and counted as line 1.
    offset = 0
    separator: str | None = None
    first_line = text.split("\n", 1)[0]
    hint = re.fullmatch(r'"?sep=(.)"?\s*', first_line)
    if hint:
        separator = hint.group(1)
        text = text[len(first_line) + 1:]
        offset = 1
    # The header is the first line with a letter or digit (leading blank or `;;;` lines skipped).
    header_text = next((line for line in text.split("\n", 50) if re.search(r"\w", line)), "")
    if not header_text:
        raise file_error("o arquivo está vazio")
    if separator is None:
        separator = sniff_separator(header_text)
    if progress:
        progress(0.1, "lendo o CSV")

    try:
        header_width = len(next(csv.reader([header_text], delimiter=separator), []))
    except csv.Error as exc:  # Python's csv refuses a field over csv.field_size_limit() (131 072 characters)
        raise file_error(f"o cabeçalho tem uma célula com mais de {csv.field_size_limit():,} caracteres"
                    .replace(",", ".")) from exc
    frame = _csv_frame(text, separator, header_width + _EXTRA_FIELDS)
    if frame is None:   # some row has even more fields: count them exactly (broken files only)
        try:
            widest = max((len(r) for r in csv.reader(io.StringIO(text), delimiter=separator)), default=0)
        except csv.Error as exc:  # a quote never closed makes one "field" beyond csv's size limit
            where = _broken_quote_line(text, separator, offset)
            if where is not None:
                raise file_error('aspas (") mal colocadas ou não fechadas a partir desta linha', where) from None
            raise file_error(f"uma célula passa de {csv.field_size_limit():,} caracteres".replace(",", ".")) from exc
        frame = _csv_frame(text, separator, max(widest, header_width))
        if frame is None:
            raise file_error('aspas (") mal colocadas ou não fechadas a partir desta linha',
                        _broken_quote_line(text, separator, offset))

    # Line where each record starts: 1 + the lines taken by every record before it. A record
    # takes one line plus the line breaks inside its quoted fields (counted before trimming).
    breaks = np.zeros(len(frame), dtype=np.int64)
    if '"' in text:
        for c in frame.columns:
            breaks += pc.count_substring(_arrow(frame[c]), "\n").to_numpy(zero_copy_only=False)
    taken = 1 + breaks
    lines = 1 + offset + np.cumsum(taken) - taken
    table = pd.DataFrame({i: _trim(frame[c]) for i, c in enumerate(frame.columns)})
    df, header, header_line, blank = _split_header(table, lines)
    if progress:
        progress(0.3, f"CSV lido: {len(df)} linhas de dados")
    return df, TableMeta("csv", encoding, separator, header, header_line, None, blank)


def _broken_quote_line(text: str, separator: str, offset: int) -> int | None:
    """The line where the first record that strict CSV rules cannot read starts, or None."""
    reader = csv.reader(io.StringIO(text), delimiter=separator, strict=True)
    last = 0
    try:
        for _ in reader:
            last = reader.line_num
    except csv.Error:
        return last + 1 + offset
    return None


def _split_header(table: pd.DataFrame, lines: np.ndarray) -> tuple[pd.DataFrame, tuple[str, ...], int, int]:
    """(data rows, header, header line, blank rows skipped) of a table of trimmed strings
    with positional columns: the header is the first non-blank row; its width runs to its
    last named cell, and columns further right are kept (named '') only where they hold data."""
    filled = np.zeros((len(table), table.shape[1]), dtype=bool)
    for i, c in enumerate(table.columns):
        filled[:, i] = (table[c] != "").to_numpy(dtype=bool)
    nonblank: np.ndarray = np.asarray(filled.any(axis=1), dtype=bool)
    if not nonblank.any():
        raise file_error("o arquivo está vazio")
    top = int(np.argmax(nonblank))
    header_all = [str(v) for v in table.iloc[top].tolist()]
    width = max(i for i, v in enumerate(header_all) if v) + 1
    body_filled = filled[top + 1:]
    keep = list(range(width)) + [i for i in range(width, table.shape[1]) if body_filled[:, i].any()]
    body = table.iloc[top + 1:, keep].copy()
    header = tuple(header_all[i] if i < width else "" for i in keep)
    blank = ~nonblank[top + 1:]
    body = body.loc[~blank]
    body.index = pd.Index(np.asarray(lines)[top + 1:][~blank], name="linha", dtype=np.int64)
    body.columns = list(header)
    return body, header, int(lines[top]), int(blank.sum())


def _csv_frame(text: str, separator: str, width: int) -> pd.DataFrame | None:
    try:
        return pd.read_csv(io.StringIO(text), sep=separator, header=None, names=range(width),
                           dtype=str, keep_default_na=False, na_filter=False,
                           skip_blank_lines=False, quotechar='"', doublequote=True,
                           engine="c", index_col=False)
    except pd.errors.ParserError:
        return None
    except pd.errors.EmptyDataError as exc:
        raise file_error("o arquivo está vazio") from exc


def _trim(col: pd.Series) -> pd.Series:
    return _str_series(pc.utf8_trim_whitespace(_arrow(col)), col.index)


def _arrow(col: pd.Series) -> pa.Array:
    arr = pa.array(col.array, from_pandas=True)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    return pc.fill_null(arr, "")


def _str_series(arr: pa.Array, index: pd.Index) -> pd.Series:
    return pd.Series(pd.arrays.ArrowStringArray(pc.fill_null(arr, "")), index=index)


# -- XLSX -----------------------------------------------------------------------------
def xlsx_engine() -> Literal["calamine", "openpyxl"]:
    """The XLSX reader in use: python-calamine (Rust, ~1 s per 100 000 rows here) when it is
    installed, else openpyxl (a pinned dependency, ~30 s per 100 000 rows on this 2-core
    machine). `XLSX_ENGINE` forces one (tests run both)."""
    if XLSX_ENGINE is not None:
        return XLSX_ENGINE
    return "calamine" if importlib.util.find_spec("python_calamine") else "openpyxl"


XLSX_ENGINE: Literal["calamine", "openpyxl"] | None = None


def _xlsx_rows_calamine(data: bytes, progress: Progress | None) -> tuple[str, list[list]]:
    """(sheet name, rows from A1) of the first visible worksheet; '' for empty cells."""
    import python_calamine as calamine

    wb = calamine.CalamineWorkbook.from_filelike(io.BytesIO(data))
    try:
        sheets = [m.name for m in wb.sheets_metadata
                  if m.typ == calamine.SheetTypeEnum.WorkSheet and m.visible == calamine.SheetVisibleEnum.Visible]
        if not sheets:
            raise file_error("a planilha XLSX não tem abas visíveis")
        if progress:
            progress(0.05, f'lendo a aba "{sheets[0]}"')
        rows = wb.get_sheet_by_name(sheets[0]).to_python(skip_empty_area=False)
    finally:
        wb.close()
    return sheets[0], rows


def _xlsx_rows_openpyxl(data: bytes, progress: Progress | None) -> tuple[str, list[list]]:
    """(sheet name, rows from row 1) of the first visible worksheet; None for empty cells."""
    import openpyxl  # heavy; only XLSX uploads need it

    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        sheets = [ws for ws in wb.worksheets if ws.sheet_state == "visible"]
        if not sheets:
            raise file_error("a planilha XLSX não tem abas visíveis")
        ws = sheets[0]
        expected = ws.max_row or 0
        ws.reset_dimensions()   # some writers store a wrong dimension; read every row
        rows: list[list] = []
        for n, row in enumerate(ws.iter_rows(values_only=True), start=1):
            rows.append(row)
            if progress and n % _XLSX_PROGRESS_EVERY == 0:
                share = min(n / expected, 1.0) if expected else 0.5
                progress(0.02 + 0.6 * share, f"lendo a planilha: {n} linhas")
        return ws.title, rows
    finally:
        wb.close()


def _column_text(values: tuple) -> list[str]:
    """`cell_text` of a column, with a fast path for the all-text columns that dominate."""
    if all(type(v) is str for v in values):
        return [v.strip() for v in values]
    return [cell_text(v) for v in values]


def _read_xlsx(data: bytes, progress: Progress | None) -> tuple[pd.DataFrame, TableMeta]:
    if progress:
        progress(0.02, "abrindo a planilha XLSX")
    reader = _xlsx_rows_calamine if xlsx_engine() == "calamine" else _xlsx_rows_openpyxl
    # The readers raise many kinds of error on a corrupt workbook (zip, XML, KeyError,
    # ValueError, CalamineError, ...); they all mean the same thing to the user, so they
    # are translated here, at the boundary.
    try:
        sheet, rows = reader(data, progress)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise file_error(xlsx_parts.CORRUPT) from exc

    width = max((len(r) for r in rows), default=0)
    if width == 0:
        raise file_error(f'a primeira aba da planilha ("{sheet}") está vazia')
    if any(len(r) != width for r in rows):
        rows = [list(r) + [None] * (width - len(r)) for r in rows]
    index = pd.RangeIndex(len(rows))
    table = pd.DataFrame({i: _str_series(pa.array(_column_text(col), type=pa.string()), index)
                          for i, col in enumerate(zip(*rows))}, index=index)
    try:
        df, header, header_line, blank = _split_header(table, np.arange(1, len(rows) + 1, dtype=np.int64))
    except InputError:
        raise file_error(f'a primeira aba da planilha ("{sheet}") está vazia') from None
    if progress:
        progress(0.65, f"planilha lida: {len(df)} linhas de dados")
    return df, TableMeta("xlsx", None, None, header, header_line, sheet, blank)


# -- numbers --------------------------------------------------------------------------
