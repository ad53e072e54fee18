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
  turned into text by `cell_text` (numbers with a decimal point, dates in ISO). Read
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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from valuation.core.errors import InputError, Problem
from valuation.importing import limits

Progress = Callable[[float, str], None]
DecimalConvention = Literal["comma", "point"]

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


def _fail(message: str, line: int | None = None) -> InputError:
    return InputError([Problem("", message, line=line)])


# -- file kind and text ---------------------------------------------------------------
def detect_format(data: bytes, file_name: str) -> Literal["csv", "xlsx"]:
    """'xlsx' or 'csv' from the content (then the extension); InputError for anything else."""
    ext = _extension(file_name)
    if not data:
        raise _fail("o arquivo está vazio")
    if data.startswith(_ZIP_MAGIC):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                names = set(z.namelist())
                mimetype = _head_of(z, "mimetype") if "mimetype" in names else b""
        except (zipfile.BadZipFile, OSError, RuntimeError) as exc:
            raise _fail("não foi possível ler o arquivo: ZIP/XLSX corrompido") from exc
        if "xl/workbook.xml" in names:
            return "xlsx"
        if b"opendocument" in mimetype:
            raise _fail("planilhas ODS (LibreOffice) não são aceitas: salve como .xlsx ou .csv")
        raise _fail("o arquivo é um ZIP que não contém uma planilha XLSX: envie um .csv ou .xlsx")
    if data.startswith(_OLE_MAGIC):
        raise _fail("formato .xls (Excel 97-2003) ou planilha protegida por senha não é aceito: "
                    "salve como .xlsx (sem senha) ou .csv")
    if ext in XLSX_EXTENSIONS:
        raise _fail(f"o arquivo {ext} está corrompido ou não é uma planilha XLSX")
    if data.startswith(b"%PDF"):
        raise _fail("arquivos PDF não são aceitos: envie um .csv ou .xlsx")
    if ext in CSV_EXTENSIONS or ext == "":
        return "csv"
    raise _fail(f"formato {ext} não é aceito: envie um arquivo .csv ou .xlsx")


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
            raise _fail("o arquivo não é texto (contém bytes nulos): envie um .csv ou .xlsx")
        return text, encoding
    raise _fail("não foi possível ler o texto do arquivo: use a codificação UTF-8 ou Windows-1252")


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


def read_table(data: bytes, file_name: str, *, progress: Progress | None = None) -> tuple[pd.DataFrame, TableMeta]:
    """The data rows of a CSV or XLSX upload as trimmed strings ('' for empty cells).

    The DataFrame's index (named 'linha') is the line of the file where each record
    starts (XLSX: the sheet row); its columns are `meta.header` (possibly repeated or
    ''). Blank rows are dropped. Raises InputError for an empty, unreadable or
    unsupported file, or one without a header row; a header without data rows gives an
    empty DataFrame; and for a file beyond `valuation.importing.limits` (checked before it is
    parsed: size, XLSX parts inflated and their ratios, rows, columns, line and cell lengths).
    """
    kind = detect_format(data, file_name)
    limits.check_upload(data, kind)          # issue 14: sizes, parts, ratios, rows, columns — before any parser
    df, meta = _read_xlsx(data, progress) if kind == "xlsx" else _read_csv(data, progress)
    limits.check_cells(df)                   # and the length of every cell
    return df, meta


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
    arrays = [pd.arrays.ArrowStringArray(pc.utf8_trim_whitespace(c)) for c in fast.columns]
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
        raise _fail("o arquivo está vazio")
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
        raise _fail("o arquivo está vazio")
    if separator is None:
        separator = sniff_separator(header_text)
    if progress:
        progress(0.1, "lendo o CSV")

    try:
        header_width = len(next(csv.reader([header_text], delimiter=separator), []))
    except csv.Error as exc:  # Python's csv refuses a field over csv.field_size_limit() (131 072 characters)
        raise _fail(f"o cabeçalho tem uma célula com mais de {csv.field_size_limit():,} caracteres"
                    .replace(",", ".")) from exc
    frame = _csv_frame(text, separator, header_width + _EXTRA_FIELDS)
    if frame is None:   # some row has even more fields: count them exactly (broken files only)
        try:
            widest = max((len(r) for r in csv.reader(io.StringIO(text), delimiter=separator)), default=0)
        except csv.Error as exc:  # a quote never closed makes one "field" beyond csv's size limit
            where = _broken_quote_line(text, separator, offset)
            if where is not None:
                raise _fail('aspas (") mal colocadas ou não fechadas a partir desta linha', where) from None
            raise _fail(f"uma célula passa de {csv.field_size_limit():,} caracteres".replace(",", ".")) from exc
        frame = _csv_frame(text, separator, max(widest, header_width))
        if frame is None:
            raise _fail('aspas (") mal colocadas ou não fechadas a partir desta linha',
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
        raise _fail("o arquivo está vazio")
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
        raise _fail("o arquivo está vazio") from exc


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
            raise _fail("a planilha XLSX não tem abas visíveis")
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
            raise _fail("a planilha XLSX não tem abas visíveis")
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
        raise _fail("não foi possível ler a planilha XLSX: arquivo corrompido, protegido ou em formato "
                    "não suportado") from exc

    width = max((len(r) for r in rows), default=0)
    if width == 0:
        raise _fail(f'a primeira aba da planilha ("{sheet}") está vazia')
    if any(len(r) != width for r in rows):
        rows = [list(r) + [None] * (width - len(r)) for r in rows]
    index = pd.RangeIndex(len(rows))
    table = pd.DataFrame({i: _str_series(pa.array(_column_text(col), type=pa.string()), index)
                          for i, col in enumerate(zip(*rows))}, index=index)
    try:
        df, header, header_line, blank = _split_header(table, np.arange(1, len(rows) + 1, dtype=np.int64))
    except InputError:
        raise _fail(f'a primeira aba da planilha ("{sheet}") está vazia') from None
    if progress:
        progress(0.65, f"planilha lida: {len(df)} linhas de dados")
    return df, TableMeta("xlsx", None, None, header, header_line, sheet, blank)


# -- numbers --------------------------------------------------------------------------
# Forms valid with a decimal comma (pt-BR) and with a decimal point, sign removed.
_COMMA_FORM = r"^(?:\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d*,\d+|\d+)$"
_POINT_FORM = r"^(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d*\.\d+|\d+)$"
# The only forms valid both ways with different values: one separator, three digits after.
_AMBIGUOUS_FORM = r"^\d{1,3}[.,]\d{3}$"


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
    return pc.fill_null(pc.utf8_trim_whitespace(arr), "")


def _np(mask: pa.Array) -> np.ndarray:
    return pc.fill_null(mask, False).to_numpy(zero_copy_only=False).astype(bool)


def _body(s: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """(value without a leading '-', whether it had one)."""
    neg = _np(pc.starts_with(s, "-"))
    return pc.if_else(pa.array(neg), pc.utf8_slice_codeunits(s, 1), s), neg


def decimal_convention(columns: Iterable[pd.Series | pa.Array], *,
                       default: DecimalConvention | None) -> DecimalConvention | None:
    """The file's decimal separator, from the values that admit only one reading:
    'comma' or 'point' when they all agree, `default` when none decides, None when the
    file shows both (ambiguous values then become errors)."""
    comma_only = point_only = False
    for values in columns:
        body, _ = _body(_strings(values))
        comma = _np(pc.match_substring_regex(body, _COMMA_FORM))
        point = _np(pc.match_substring_regex(body, _POINT_FORM))
        comma_only |= bool((comma & ~point).any())
        point_only |= bool((point & ~comma).any())
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


def parse_decimal(values: pd.Series | pa.Array | Iterable[str], *, convention: DecimalConvention | None,
                  precision: int, scale: int) -> DecimalColumn:
    """Read pt-BR or international number strings into decimal128(precision, scale), exactly.

    `convention` settles `1.234`/`1,234` (see `decimal_convention`); None leaves them
    ambiguous. Trailing zeros beyond `scale` are fine ('1,500' with scale 2); other
    extra places are reported, never rounded away.
    """
    s = _strings(values)
    blank = _np(pc.equal(s, ""))
    body, neg = _body(s)
    comma_ok = _np(pc.match_substring_regex(body, _COMMA_FORM))
    point_ok = _np(pc.match_substring_regex(body, _POINT_FORM))
    amb = _np(pc.match_substring_regex(body, _AMBIGUOUS_FORM))
    comma_norm = pc.replace_substring(pc.replace_substring(body, ".", ""), ",", ".")
    point_norm = pc.replace_substring(body, ",", "")
    use_comma = (comma_ok & ~point_ok) | (amb & (convention == "comma"))
    norm = pc.if_else(pa.array(use_comma), comma_norm, point_norm)
    invalid = ~blank & ~comma_ok & ~point_ok
    ambiguous = amb & (convention is None)
    # Canonical digits: '.5' → '0.5', '007.50' → '7.5', '3.' never reaches here.
    norm = pc.replace_substring_regex(norm, r"^\.", "0.")
    norm = pc.replace_substring_regex(norm, r"(\.\d*?)0+$", r"\1")
    norm = pc.replace_substring_regex(norm, r"\.$", "")
    norm = pc.replace_substring_regex(norm, r"^0+(\d)", r"\1")
    dot = pc.find_substring(norm, ".").to_numpy(zero_copy_only=False)
    length = pc.utf8_length(norm).to_numpy(zero_copy_only=False)
    int_len = np.where(dot >= 0, dot, length)
    frac_len = np.where(dot >= 0, length - dot - 1, 0)
    bad_form = blank | invalid | ambiguous
    too_precise = ~bad_form & (frac_len > scale)
    too_large = ~bad_form & ~too_precise & (int_len > precision - scale)
    ok = ~(bad_form | too_precise | too_large)
    signed = pc.if_else(pa.array(neg), pc.binary_join_element_wise("-", norm, ""), norm)
    chosen = pc.if_else(pa.array(ok), signed, pa.scalar(None, signed.type))
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


def parse_dates(values: pd.Series | pa.Array | Iterable[str]) -> DateColumn:
    """Read `dd/mm/aaaa` (or `-`/`.`) and ISO `aaaa-mm-dd` strings, optionally with a time
    of day (ignored), into date32; impossible days (31/02/2025) are told apart from bad forms."""
    s = _strings(values)
    blank = _np(pc.equal(s, ""))
    y = np.zeros(len(s), dtype=np.int64)
    m = np.zeros(len(s), dtype=np.int64)
    d = np.zeros(len(s), dtype=np.int64)
    matched = np.zeros(len(s), dtype=bool)
    for pattern in (_BR_DATE, _ISO_DATE):
        parts = pc.extract_regex(s, pattern)
        hit = _np(parts.is_valid()) & ~matched
        if hit.any():
            for name, target in (("y", y), ("m", m), ("d", d)):
                field = pc.fill_null(parts.field(name), "0")
                nums = pc.cast(pc.if_else(pc.equal(field, ""), "0", field), pa.int64()).to_numpy(zero_copy_only=False)
                target[hit] = nums[hit]
            matched |= hit
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
