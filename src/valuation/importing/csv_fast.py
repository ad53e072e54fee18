"""Reading a well-formed CSV upload with Arrow's parser: the fast path of `tabular.read_table`.

A million-row inventory (~120 MB) read through Python strings takes minutes and gigabytes;
here the bytes go to Arrow's C++ CSV parser and come back as Arrow string columns, with
every record's line number worked out from the bytes. The result is exactly what the
general reader (`tabular._read_csv_text`) gives — the same cells, trimmed; the same line
numbers; the same header — and it is used only when that can be guaranteed:

- the text is UTF-8 (with or without BOM) or Windows-1252, with no NUL byte;
- every record has the header's number of fields (no ragged rows, no leading `;;;` line);
- no record spans lines (no line break inside a quoted field): records and non-empty lines
  then correspond one to one.

Otherwise `read_csv_arrow` returns None and the general reader takes the file (its
messages name what is wrong). Limits (`TableLimits`) on rows, columns and the length of a
line are checked from the bytes before anything is parsed.
"""
from __future__ import annotations

import codecs
import csv
import io
import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

_CHUNK = 1 << 24              # bytes per step of the encoding check and transcoding
_HEAD = 1 << 16               # bytes read for the separator hint and the header


@dataclass(frozen=True)
class TableLimits:
    """Upper bounds on an upload, checked before it is parsed (None: no bound)."""

    max_rows: int | None = None           # lines of the file (the header and blank lines included)
    max_columns: int | None = None        # fields of the header line
    max_line_chars: int | None = None     # bytes of the longest line (≥ the longest cell)


@dataclass(frozen=True)
class ArrowCsv:
    """A CSV read by Arrow: `columns` (one string array per field, untrimmed), `lines`
    (the line of the file where each row starts, header row included), the empty lines,
    the codec and the separator."""

    columns: list[pa.ChunkedArray]
    lines: np.ndarray
    empty_lines: np.ndarray       # lines with nothing at all (the general reader counts them as blank rows)
    encoding: str
    separator: str


def _is_utf8(body: bytes) -> bool:
    """Whether `body` is valid UTF-8 (a Windows-1252 file fails at its first accented letter)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(body), _CHUNK):
            decoder.decode(body[start:start + _CHUNK])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _cp1252_to_utf8(body: bytes) -> bytes | None:
    """Windows-1252 bytes as UTF-8, a chunk at a time — one pass that also checks the codec
    (None: not valid Windows-1252). Single-byte codec: any cut is safe; CR and LF stay as they
    are (`_line_ends` deals with them)."""
    parts = []
    for start in range(0, len(body), _CHUNK):
        try:
            parts.append(body[start:start + _CHUNK].decode("cp1252").encode("utf-8"))
        except UnicodeDecodeError:
            return None
    return b"".join(parts)


def _lf_lines(body: bytes) -> bytes:
    """Every line end as LF: CRLF (Windows) and a lone CR (old Mac)."""
    return body.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in body else body


def _line_spans(body: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(start offset, length in bytes) of every line of `body` (LF-separated; a last line
    without LF counts, an empty tail after the last LF does not)."""
    raw = np.frombuffer(body, dtype=np.uint8)
    ends = np.concatenate([np.flatnonzero(raw[i:i + _CHUNK] == 10) + i for i in range(0, len(raw), _CHUNK)]
                          or [np.zeros(0, dtype=np.int64)]).astype(np.int64)
    if len(raw) and (len(ends) == 0 or ends[-1] != len(raw) - 1):
        ends = np.append(ends, len(raw))            # the last line has no LF
    starts = np.concatenate(([0], ends[:-1] + 1)) if len(ends) else np.zeros(0, dtype=np.int64)
    return starts, ends - starts


def _line_ends(body: bytes) -> tuple[bytes, np.ndarray, np.ndarray]:
    """(`body`, start offset and length of every line without its line end) as `_line_spans` gives
    them for `_lf_lines(body)`. When every CR of `body` is the CR of a CRLF (the Windows line end),
    `body` is kept as it is — Arrow's parser ends a record at a CRLF as at an LF — and the CR is
    taken off each line's length; a lone CR (old Mac) makes it LF first, as the general reader does."""
    crs = body.count(b"\r")
    if crs:
        starts, lengths = _line_spans(body)
        raw = np.frombuffer(body, dtype=np.uint8)
        ends = starts + lengths                      # the LF (or the end of the text)
        has_lf = ends < len(raw)
        crlf = np.zeros(len(starts), dtype=bool)
        crlf[has_lf] = (lengths[has_lf] > 0) & (raw[np.maximum(ends[has_lf] - 1, 0)] == 13)
        if int(crlf.sum()) == crs:
            return body, starts, lengths - crlf
        body = _lf_lines(body)
    starts, lengths = _line_spans(body)
    return body, starts, lengths


def read_csv_arrow(data: bytes, limits: TableLimits | None = None) -> ArrowCsv | None:
    """The fields of a well-formed CSV (module docstring), or None for the general reader.
    Raises InputError when `limits` are exceeded."""
    from valuation.importing.tabular import file_error, sniff_separator

    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in data:
        return None                                   # UTF-16, or not text: the general reader says so
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    if _is_utf8(body):
        encoding = "utf-8" if data is body else "utf-8-sig"
    elif data is not body:
        return None                                   # a UTF-8 BOM over bytes that are not UTF-8: the general reader
    else:
        encoding = "cp1252"
        transcoded = _cp1252_to_utf8(body)
        if transcoded is None:
            return None                               # neither UTF-8 nor Windows-1252: the general reader says so
        body = transcoded
    body, starts, lengths = _line_ends(body)
    head = _lf_lines(body[:_HEAD]).decode("utf-8", errors="ignore")
    offset = 0
    first_line = head.split("\n", 1)[0]
    hint = re.fullmatch(r'"?sep=(.)"?\s*', first_line)
    separator = None
    if hint:
        separator = hint.group(1)
        cut = body.find(b"\n") + 1 or len(body)     # the hint's line, its line end included
        body = body[cut:]
        starts, lengths = starts[1:] - cut, lengths[1:]
        head = head[len(first_line) + 1:]
        offset = 1
    header_text = next((line for line in head.split("\n", 50) if re.search(r"\w", line)), "")
    if not header_text or separator in ("\n", '"'):
        return None
    if separator is None:
        separator = sniff_separator(header_text)
    width = len(next(csv.reader([header_text], delimiter=separator), []))
    _check_limits(limits, len(starts) + offset, width, int(lengths.max(initial=0)), file_error)
    nonempty = np.flatnonzero(lengths > 0)
    try:
        table = pacsv.read_csv(
            io.BytesIO(body),
            read_options=pacsv.ReadOptions(column_names=[f"c{i}" for i in range(width)], block_size=1 << 22),
            parse_options=pacsv.ParseOptions(delimiter=separator, quote_char='"', double_quote=True,
                                             escape_char=False, newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types={f"c{i}": pa.large_string() for i in range(width)},
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None                                   # ragged rows, a broken quote…: the general reader
    if table.num_rows != len(nonempty):
        return None                                   # a record spans lines: the general reader counts them
    # Empty lines are skipped and a record spanning lines makes fewer rows than non-empty
    # lines: with as many rows, every record is one line — but for a quote left open in the
    # last record, which runs to the end of the file (its line breaks then sit in that row).
    columns = [table.column(i) for i in range(width)]
    if table.num_rows and any("\n" in (c[table.num_rows - 1].as_py() or "") for c in columns):
        return None
    lines = (nonempty + 1 + offset).astype(np.int64)
    return ArrowCsv(columns, lines, (np.flatnonzero(lengths == 0) + 1 + offset).astype(np.int64), encoding,
                    separator)


def _check_limits(limits: TableLimits | None, rows: int, columns: int, line_bytes: int, fail: object) -> None:
    if limits is None:
        return
    if limits.max_rows is not None and rows > limits.max_rows:
        raise fail(f"o arquivo tem {rows} linhas; o limite é {limits.max_rows}")          # type: ignore[operator]
    if limits.max_columns is not None and columns > limits.max_columns:
        raise fail(f"o arquivo tem {columns} colunas; o limite é {limits.max_columns}")   # type: ignore[operator]
    if limits.max_line_chars is not None and line_bytes > limits.max_line_chars:
        raise fail(f"uma linha do arquivo tem {line_bytes} caracteres; o limite é "       # type: ignore[operator]
                   f"{limits.max_line_chars}")
