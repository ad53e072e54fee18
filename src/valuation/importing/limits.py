"""Bounds on an upload, checked before any parser sees it (issue 14, item 1).

A 1.5 MB XLSX whose shared-strings part inflated to 1.5 GiB took the importer to 6.5 GB and stored
a 1.6-billion-character description. `check_upload(data, kind)` runs first in
`tabular.read_table`, so whatever parser runs after it (pandas, Arrow's CSV reader, calamine,
openpyxl) is bounded:

- every file: at most `MAX_FILE_BYTES`;
- CSV: at most `MAX_LINES` lines and `MAX_LINE_BYTES` per line (the header included), at most
  `MAX_COLUMNS` fields in the header — counted on the bytes;
- XLSX (a ZIP): at most `MAX_PARTS` parts, stored or deflated only, no encryption; the declared
  uncompressed sizes summed at most `MAX_UNCOMPRESSED`, and each part larger than `RATIO_FROM`
  at most `MAX_RATIO` times its compressed size. Declared sizes are not trusted: every part is
  inflated here, a bounded chunk at a time and discarded, and must inflate to exactly its declared
  size; the worksheets and the shared strings are scanned as they inflate — rows and columns named
  by cell references at most `MAX_LINES` / `MAX_COLUMNS`, at most `MAX_CELLS` cells in all the
  worksheets together and `MAX_CELLS` shared strings, and no text element longer than
  `MAX_CELL_CHARS` characters. Which parts are worksheets and shared strings is what the workbook
  declares (`xlsx_parts.declared`: content types, the workbook's relationships — a sheet outside
  `xl/worksheets/` is scanned too, issue 24 item 10), never the folder alone;

and, after reading, every cell of the table at most `MAX_CELL_CHARS` characters (`check_cells`).
A refusal is an InputError in Portuguese that names the limit. Peak memory of a refused bomb stays
within a few chunks (`CHUNK` bytes) of the file itself.
"""
from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator

import numpy as np

from valuation.core.errors import InputError, Problem

MAX_FILE_BYTES = 200 * 1024 * 1024        # the dashboard's own upload stops at 50 MB (.streamlit/config.toml)
MAX_LINES = 1_100_000                     # a sheet holds 1 048 576 rows; one more header and blank lines
MAX_COLUMNS = 256
MAX_LINE_BYTES = 128 * 1024               # one CSV line (the header included)
MAX_CELL_CHARS = 4_000                    # any cell: descriptions, notes, codes… (codes have their own, shorter limit)
MAX_PARTS = 10_000
MAX_UNCOMPRESSED = 512 * 1024 * 1024      # all the parts of an XLSX, inflated
MAX_RATIO = 100                           # inflated / compressed, for each part over RATIO_FROM
RATIO_FROM = 1024 * 1024
# Cells of all the worksheets together, and strings of the shared-strings table. A reader holds the
# whole first sheet in memory: ~150 bytes a cell measured (calamine + the table), so this bound keeps
# an XLSX read under ~600 MB (issue 24, item 10: 25 million cells took 2.0 GB). More rows: a CSV.
MAX_CELLS = 4_000_000
CHUNK = 1 << 20                           # bytes inflated at a time

_ZIP_LOCAL = b"PK\x03\x04"
# a cell or row reference: <c r="AB12" …> / <row r="12" …> (any prefix, any attribute order)
_REF = re.compile(rb"<(?:\w+:)?(c|row)\b[^>]*?\br=\"([A-Z]{0,4})([0-9]{1,9})\"")
_OPEN = re.compile(rb"<(?:\w+:)?(?:c|si)[\s>/]")
_T_OPEN = re.compile(rb"<(?:\w+:)?t(?:\s[^>]*[^/])?>")
_T_CLOSE = re.compile(rb"</(?:\w+:)?t>")


def _fmt(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def _mib(n: int) -> str:
    return f"{_fmt(n // (1024 * 1024))} MiB"


def refuse(message: str, line: int | None = None, column: str | None = None) -> InputError:
    return InputError([Problem("", message, line=line, column=column)])


def check_size(data: bytes) -> None:
    if len(data) > MAX_FILE_BYTES:
        raise refuse(f"o arquivo tem {_mib(len(data))}; o limite é {_mib(MAX_FILE_BYTES)}")


def check_upload(data: bytes, kind: str) -> None:
    """Refuse (InputError, pt-BR, naming the limit) an upload beyond the module's limits; `kind` is
    'csv' or 'xlsx' (tabular.detect_format)."""
    check_size(data)
    if kind == "xlsx":
        check_xlsx(data)
    else:
        check_csv(data)


# -- CSV ----------------------------------------------------------------------------------
def _ends(raw: np.ndarray, byte: int) -> np.ndarray:
    """Offsets of `byte` in `raw`, a slice at a time (a 130 MB file: a fifth of the time of one pass,
    whose 130 MB mask leaves the cache)."""
    step = 1 << 22
    found = [np.flatnonzero(raw[i:i + step] == byte) + i for i in range(0, len(raw), step)]
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def check_csv(data: bytes) -> None:
    raw = np.frombuffer(data, dtype=np.uint8)
    ends = _ends(raw, 10)
    if not len(ends) and b"\r" in data:               # old Mac files: CR only
        ends = _ends(raw, 13)
    lines = len(ends) + 1
    if lines > MAX_LINES:
        raise refuse(f"o arquivo tem {_fmt(lines)} linhas; o limite é {_fmt(MAX_LINES)}")
    bounds = np.concatenate(([-1], ends, [len(raw)]))
    lengths = np.diff(bounds) - 1
    longest = int(lengths.max()) if len(lengths) else 0
    if longest > MAX_LINE_BYTES:
        line = int(np.argmax(lengths)) + 1
        raise refuse(f"a linha {_fmt(line)} tem {_fmt(longest)} bytes; o limite por linha (cabeçalho incluído) "
                     f"é {_fmt(MAX_LINE_BYTES)} bytes", line)
    first = _first_line(data)
    fields = max(first.count(s) for s in (b";", b",", b"\t", b";\x00", b",\x00", b"\t\x00")) + 1
    if fields > MAX_COLUMNS:
        raise refuse(f"o cabeçalho tem {_fmt(fields)} colunas; o limite é {_fmt(MAX_COLUMNS)}", 1)


def _first_line(data: bytes) -> bytes:
    for line in data[:MAX_LINE_BYTES * 4 + 8].splitlines():
        if line.strip(b" \t\x00\xef\xbb\xbf\xff\xfe;,\"'"):
            return line
    return b""


# -- XLSX ---------------------------------------------------------------------------------
def check_xlsx_directory(data: bytes) -> list[zipfile.ZipInfo]:
    """The checks of the central directory alone (no part inflated): parts, declared sizes, ratios,
    methods, encryption. Returns the parts."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise refuse("não foi possível ler o arquivo: ZIP/XLSX corrompido") from exc
    with archive:
        infos = archive.infolist()
    if len(infos) > MAX_PARTS:
        raise refuse(f"a planilha XLSX tem {_fmt(len(infos))} partes internas; o limite é {_fmt(MAX_PARTS)}")
    declared = sum(i.file_size for i in infos)
    if declared > MAX_UNCOMPRESSED:
        raise refuse(f"a planilha XLSX descompactada teria {_mib(declared)}; o limite é {_mib(MAX_UNCOMPRESSED)} "
                     "(arquivo compactado demais: possível bomba de descompressão)")
    for info in infos:
        _check_declared(info)
    return infos


def check_xlsx(data: bytes) -> None:
    from valuation.importing import xlsx_parts

    infos = check_xlsx_directory(data)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            book = xlsx_parts.declared(archive)
    except (zipfile.BadZipFile, OSError, ValueError, KeyError, RuntimeError, EOFError, zlib.error) as exc:
        raise refuse("não foi possível ler o arquivo: ZIP/XLSX corrompido") from exc
    counts = {"cells": 0, "strings": 0}
    total = 0
    for info in infos:
        kind = "cells" if info.filename in book.cell_parts else \
            "strings" if info.filename in book.string_parts else None
        total = _inflate_and_scan(data, info, total, None if kind is None else _XmlScan(info.filename, counts, kind))


def _check_declared(info: zipfile.ZipInfo) -> None:
    if info.flag_bits & 0x1:
        raise refuse("planilhas XLSX protegidas por senha não são aceitas: salve sem senha")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise refuse(f"a planilha XLSX usa uma compactação não suportada na parte {info.filename[:60]}")
    if info.file_size > RATIO_FROM and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        ratio = info.file_size // max(info.compress_size, 1)
        raise refuse(f"a parte {info.filename[:60]} da planilha XLSX se expande {_fmt(ratio)} vezes ao "
                     f"descompactar; o limite é {MAX_RATIO} vezes (possível bomba de descompressão)")


def _raw_member(data: bytes, info: zipfile.ZipInfo) -> memoryview:
    start = info.header_offset
    head = data[start:start + 30]
    if len(head) < 30 or head[:4] != _ZIP_LOCAL:
        raise refuse("não foi possível ler o arquivo: ZIP/XLSX corrompido")
    name_len, extra_len = struct.unpack("<HH", head[26:30])
    begin = start + 30 + name_len + extra_len
    end = begin + info.compress_size
    if end > len(data):
        raise refuse("não foi possível ler o arquivo: ZIP/XLSX corrompido (parte truncada)")
    return memoryview(data)[begin:end]


def _chunks(raw: memoryview, method: int) -> Iterator[bytes]:
    if method == zipfile.ZIP_STORED:
        for i in range(0, len(raw), CHUNK):
            yield bytes(raw[i:i + CHUNK])
        return
    inflater = zlib.decompressobj(-15)
    pending: bytes | memoryview = raw
    try:
        while pending and not inflater.eof:
            out = inflater.decompress(pending, CHUNK)
            pending = inflater.unconsumed_tail
            if out:
                yield out
        while not inflater.eof:
            out = inflater.decompress(b"", CHUNK)
            if not out:
                break
            yield out
    except zlib.error as exc:
        raise refuse("não foi possível ler o arquivo: ZIP/XLSX corrompido") from exc
    if not inflater.eof:
        raise refuse("não foi possível ler o arquivo: ZIP/XLSX corrompido (parte incompleta)")


def _inflate_and_scan(data: bytes, info: zipfile.ZipInfo, total: int, scanner: _XmlScan | None) -> int:
    """Inflate one part (never trusting its declared size), scanning the XML that feeds the table."""
    size = 0
    for chunk in _chunks(_raw_member(data, info), info.compress_type):
        size += len(chunk)
        if size > info.file_size:
            raise refuse(f"a parte {info.filename[:60]} da planilha XLSX se expande além do tamanho declarado "
                         "(arquivo adulterado: possível bomba de descompressão)")
        if total + size > MAX_UNCOMPRESSED:
            raise refuse(f"a planilha XLSX descompactada passa de {_mib(MAX_UNCOMPRESSED)}, o limite")
        if scanner is not None:
            scanner.feed(chunk)
    if scanner is not None:
        scanner.feed(b"", final=True)
    if size != info.file_size:
        raise refuse("não foi possível ler o arquivo: ZIP/XLSX corrompido (tamanho de parte incorreto)")
    return total + size


def _column_number(letters: bytes) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + (ch - 64)
    return n


class _XmlScan:
    """Streaming bounds on a worksheet or the shared strings: references, cells (counted in `counts`
    under `kind`, across the parts of that kind), text lengths."""

    def __init__(self, name: str, counts: dict[str, int], kind: str) -> None:
        self.name = name
        self.tail = b""
        self.counts = counts
        self.kind = kind
        self.text_open_at: int | None = None   # offset (in this part) where the open <t> element's text began
        self.open_chars = 0                     # characters of the open <t> element seen so far
        self.offset = 0

    def feed(self, chunk: bytes, *, final: bool = False) -> None:
        buf = self.tail + chunk
        base = self.offset - len(self.tail)
        cut = len(buf) if final else buf.rfind(b"<")    # a tag cut by the chunk boundary is seen next time
        if cut < 0:
            cut = len(buf)                               # no tag in sight: all text
        scan = buf[:cut]
        self._references(scan)
        self.counts[self.kind] += len(_OPEN.findall(scan))
        if self.counts[self.kind] > MAX_CELLS:
            what = "células" if self.kind == "cells" else "textos compartilhados"
            raise refuse(f"a planilha XLSX tem mais de {_fmt(MAX_CELLS)} {what} (em todas as abas); o limite é "
                         f"{_fmt(MAX_CELLS)} — para tabelas maiores, envie um CSV")
        self._texts(scan, base)
        self.tail = buf[len(scan):]
        self.offset += len(chunk)

    def _references(self, scan: bytes) -> None:
        for kind, letters, digits in _REF.findall(scan):
            row = int(digits)
            if row > MAX_LINES:
                raise refuse(f"a planilha XLSX tem células na linha {_fmt(row)}; o limite é {_fmt(MAX_LINES)} "
                             "linhas")
            if kind == b"c" and letters and _column_number(letters) > MAX_COLUMNS:
                raise refuse(f"a planilha XLSX tem células na coluna {letters.decode('ascii')} (a "
                             f"{_fmt(_column_number(letters))}ª); o limite é {_fmt(MAX_COLUMNS)} colunas")

    def _texts(self, scan: bytes, base: int) -> None:
        """No text element longer than MAX_CELL_CHARS characters, counted across chunk boundaries."""
        pos = 0
        while True:
            if self.text_open_at is None:
                m = _T_OPEN.search(scan, pos)
                if m is None:
                    return
                self.text_open_at = base + m.end()
                self.open_chars = 0
                pos = m.end()
            close = _T_CLOSE.search(scan, pos)
            self.open_chars += _chars(scan[pos:close.start() if close else len(scan)])
            if self.open_chars > MAX_CELL_CHARS:
                raise refuse(f"a planilha XLSX tem um texto com mais de {_fmt(MAX_CELL_CHARS)} caracteres; o "
                             f"limite por célula é {_fmt(MAX_CELL_CHARS)}")
            if close is None:
                return
            self.text_open_at = None
            pos = close.end()


def _chars(text: bytes) -> int:
    """Characters of a piece of XML text, an entity counted once (a UTF-8 sequence cut at a chunk
    boundary may count one more: the bound errs on the safe side)."""
    return len(re.sub(rb"&[#a-zA-Z0-9]+;", b"x", text).decode("utf-8", "replace"))


# -- after reading --------------------------------------------------------------------------
def check_cells(df: object) -> None:
    """Every cell of a read table (strings, indexed by line) at most MAX_CELL_CHARS characters, and
    at most MAX_COLUMNS columns / MAX_LINES rows. Names the first offending cell."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = list(getattr(df, "columns", []))
    if len(columns) > MAX_COLUMNS:
        raise refuse(f"a tabela tem {_fmt(len(columns))} colunas; o limite é {_fmt(MAX_COLUMNS)}")
    if len(df) > MAX_LINES:  # type: ignore[arg-type]
        raise refuse(f"a tabela tem {_fmt(len(df))} linhas; o limite é {_fmt(MAX_LINES)}")  # type: ignore[arg-type]
    for pos, name in enumerate(columns):
        col = df.iloc[:, pos]  # type: ignore[attr-defined]
        arr = pa.array(col.array, from_pandas=True)       # chunks as read: the lengths need no copy
        if not pa.types.is_string(arr.type) and not pa.types.is_large_string(arr.type):
            continue
        if (pc.max(pc.binary_length(arr)).as_py() or 0) <= MAX_CELL_CHARS:
            continue                                      # bytes >= characters: no cell can be over (offsets alone)
        lengths = pc.fill_null(pc.utf8_length(arr), 0)
        longest = pc.max(lengths).as_py() or 0
        if longest > MAX_CELL_CHARS:
            if isinstance(lengths, pa.ChunkedArray):
                lengths = lengths.combine_chunks()
            row = int(np.argmax(lengths.to_numpy(zero_copy_only=False)))
            line = df.index[row]  # type: ignore[attr-defined]
            label = str(name) or f"{pos + 1}ª"
            raise refuse(f"célula com {_fmt(longest)} caracteres; o limite por célula é {_fmt(MAX_CELL_CHARS)}",
                         int(line), label)
