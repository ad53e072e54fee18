"""Which parts of an XLSX hold cells, by what the workbook declares, and its header row read first
(issue 24, item 10).

A workbook names its sheets in `xl/workbook.xml`, finds their parts through the relationships of
`xl/_rels/workbook.xml.rels` and types every part in `[Content_Types].xml`; the folder a part lies
in means nothing (a reader such as calamine follows the relationships). `declared(zf)` returns
the parts that hold cells or shared strings by any of those declarations (plus the usual names),
so the limit scanner (`limits`) bounds every one of them; `first_sheet_header(data)` streams the
first visible worksheet only as far as its first non-blank row (and the shared strings only as
far as that row needs), so an import can refuse a file without its required columns before
anything loads the whole sheet. Control parts are small (at most `MAX_CONTROL_BYTES`) and may not
declare a DTD or entities.
"""
from __future__ import annotations

import io
import posixpath
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from valuation.core.errors import InputError, Problem
from valuation.importing.cells import cell_text

MAX_CONTROL_BYTES = 1 << 20            # [Content_Types].xml, workbook.xml, its relationships
HEADER_SCAN_BYTES = 8 << 20            # inflated bytes of a sheet read looking for the header row
HEADER_SCAN_ROWS = 1_000
STRINGS_SCAN_BYTES = 16 << 20          # inflated bytes of the shared strings read for the header

_SHEET_TYPES = ("spreadsheetml.worksheet+xml", "spreadsheetml.chartsheet+xml", "spreadsheetml.dialogsheet+xml",
                "ms-excel.macrosheet+xml", "ms-excel.intlmacrosheet+xml")
_STRINGS_TYPE = "spreadsheetml.sharedStrings+xml"
_REL_SHEET = ("/worksheet", "/chartsheet", "/dialogsheet", "/xlMacrosheet", "/xlIntlMacrosheet")
_REL_STRINGS = "/sharedStrings"
_WORKSHEET_REL = "/worksheet"
_DTD = (b"<!DOCTYPE", b"<!ENTITY")
CORRUPT = "não foi possível ler a planilha XLSX: arquivo corrompido, protegido ou em formato não suportado"


def _refuse(message: str) -> InputError:
    return InputError([Problem("", message)])


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


@dataclass(frozen=True)
class Sheet:
    name: str
    part: str | None        # the ZIP entry, None when the relationship points nowhere
    visible: bool
    worksheet: bool


@dataclass
class Book:
    sheets: list[Sheet] = field(default_factory=list)
    shared_strings: str | None = None
    cell_parts: set[str] = field(default_factory=set)      # entries (as in the ZIP) holding cells
    string_parts: set[str] = field(default_factory=set)    # entries holding shared strings


def _control(zf: zipfile.ZipFile, names: dict[str, str], name: str) -> ET.Element | None:
    entry = names.get(name.lower())
    if entry is None:
        return None
    info = zf.getinfo(entry)
    if info.file_size > MAX_CONTROL_BYTES:
        raise _refuse(f"a parte {entry[:60]} da planilha XLSX é grande demais para uma parte de controle "
                      f"(limite {MAX_CONTROL_BYTES // 1024} KiB)")
    with zf.open(info) as fh:
        raw = fh.read(MAX_CONTROL_BYTES + 1)
    if any(marker in raw for marker in _DTD):
        raise _refuse("a planilha XLSX declara DTD ou entidades XML, o que não é aceito")
    try:
        return ET.fromstring(raw)
    except ET.ParseError as exc:
        raise _refuse(CORRUPT) from exc


def _resolve(base: str, target: str) -> str:
    path = target.lstrip("/") if target.startswith("/") else posixpath.join(posixpath.dirname(base), target)
    return posixpath.normpath(path).lstrip("/").lower()


def declared(zf: zipfile.ZipFile) -> Book:
    """The sheets (in workbook order) and every part that holds cells or shared strings, by the
    content types, the workbook's relationships and the usual names."""
    names = {i.filename.lower(): i.filename for i in zf.infolist()}
    book = Book()
    types = _control(zf, names, "[Content_Types].xml")
    by_extension: dict[str, str] = {}
    for node in list(types) if types is not None else []:
        kind, content = _local(node.tag), node.get("ContentType", "")
        if kind == "Default":
            by_extension[node.get("Extension", "").lower()] = content
        elif kind == "Override":
            part = node.get("PartName", "").lstrip("/").lower()
            _classify(book, names.get(part), content)
    for low, entry in names.items():
        ext = low.rsplit(".", 1)[-1] if "." in low.rsplit("/", 1)[-1] else ""
        if ext in by_extension:
            _classify(book, entry, by_extension[ext])
        if low.startswith("xl/worksheets/") and low.endswith(".xml"):
            book.cell_parts.add(entry)
        if low == "xl/sharedstrings.xml":
            book.string_parts.add(entry)
    rels: dict[str, tuple[str, str | None]] = {}
    graph = _control(zf, names, "xl/_rels/workbook.xml.rels")
    for rel in list(graph) if graph is not None else []:
        kind, target = rel.get("Type", ""), rel.get("Target", "")
        if rel.get("TargetMode") == "External" or not target:
            continue
        found = names.get(_resolve("xl/workbook.xml", target))
        rels[rel.get("Id", "")] = (kind, found)
        if kind.endswith(_REL_SHEET) and found is not None:
            book.cell_parts.add(found)
        elif kind.endswith(_REL_STRINGS) and found is not None:
            book.string_parts.add(found)
            book.shared_strings = book.shared_strings or found
    workbook = _control(zf, names, "xl/workbook.xml")
    for node in workbook.iter() if workbook is not None else []:
        if _local(node.tag) == "sheet":
            rid = next((v for k, v in node.attrib.items() if _local(k) == "id"), "")
            rel_kind, sheet_part = rels.get(rid, ("", None))
            book.sheets.append(Sheet(node.get("name", ""), sheet_part, node.get("state", "visible") == "visible",
                                     rel_kind.endswith(_WORKSHEET_REL)))
    return book


def _classify(book: Book, entry: str | None, content: str) -> None:
    if entry is None:
        return
    if any(content.endswith(t) for t in _SHEET_TYPES):
        book.cell_parts.add(entry)
    elif content.endswith(_STRINGS_TYPE):
        book.string_parts.add(entry)


# -- the header row, read first ------------------------------------------------------------------
def _events(zf: zipfile.ZipFile, entry: str, budget: int, tags: tuple[str, ...]) -> Iterator[ET.Element]:
    """'end' elements named `tags` of a part, inflating at most `budget` bytes (then it stops)."""
    parser: ET.XMLPullParser = ET.XMLPullParser(events=("end",))
    seen, tail = 0, b""
    with zf.open(entry) as fh:
        while seen < budget:
            chunk = fh.read(1 << 16)
            if not chunk:
                break
            if any(marker in tail + chunk for marker in _DTD):
                raise _refuse("a planilha XLSX declara DTD ou entidades XML, o que não é aceito")
            seen += len(chunk)
            tail = chunk[-16:]
            parser.feed(chunk)
            events: Iterator[Any] = parser.read_events()
            for _event, elem in events:
                if isinstance(elem, ET.Element) and _local(elem.tag) in tags:
                    yield elem


def _column(ref: str | None, last: int) -> int:
    letters = "".join(ch for ch in (ref or "") if ch.isalpha()).upper()
    if not letters:
        return last + 1
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


def _cells(row: ET.Element) -> dict[int, tuple[str, str]]:
    """column → (type, raw text) of a row's cells."""
    out: dict[int, tuple[str, str]] = {}
    last = -1
    for c in row:
        if _local(c.tag) != "c":
            continue
        last = _column(c.get("r"), last)
        kind = c.get("t", "n")
        if kind == "inlineStr":
            raw = "".join(t.text or "" for t in c.iter() if _local(t.tag) == "t")
        else:
            raw = next((v.text or "" for v in c if _local(v.tag) == "v"), "")
        out[last] = (kind, raw)
    return out


def _text(kind: str, raw: str, strings: list[str]) -> str:
    if kind == "s":
        return strings[int(raw)].strip() if raw.isdigit() and int(raw) < len(strings) else ""
    if kind == "b":
        return cell_text(raw == "1")
    if kind in ("str", "inlineStr", "e", "d"):
        return raw.strip()
    try:
        return cell_text(float(raw)) if raw.strip() else ""
    except ValueError:
        return raw.strip()


def _strings(zf: zipfile.ZipFile, entry: str | None, upto: int) -> list[str] | None:
    out: list[str] = []
    if entry is None:
        return out
    for si in _events(zf, entry, STRINGS_SCAN_BYTES, ("si",)):
        parts = [si] + [r for r in si if _local(r.tag) == "r"]
        out.append("".join(t.text or "" for p in parts for t in p if _local(t.tag) == "t"))
        si.clear()
        if len(out) > upto:
            return out
    return out if len(out) > upto else None


def first_sheet_header(data: bytes) -> tuple[str, int, tuple[str, ...]] | None:
    """(sheet name, row, header texts up to the last named one) of the first visible worksheet's
    first non-blank row — what the full read will take as the header — or None when it cannot be
    told cheaply (no such row within HEADER_SCAN_BYTES / HEADER_SCAN_ROWS, an unusual layout): the
    caller then reads the file as usual."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        book = declared(zf)
        sheet = next((s for s in book.sheets if s.visible and s.worksheet), None)
        if sheet is None or sheet.part is None:
            return None
        number, row_no = 0, 0
        for row in _events(zf, sheet.part, HEADER_SCAN_BYTES, ("row",)):
            number += 1
            row_no = int(row.get("r") or row_no + 1)
            cells = _cells(row)
            row.clear()
            if any(raw.strip() for _kind, raw in cells.values()):
                need = max((int(raw) for kind, raw in cells.values() if kind == "s" and raw.isdigit()), default=-1)
                strings = _strings(zf, book.shared_strings, need) if need >= 0 else []
                if strings is None:
                    return None
                texts = {col: _text(kind, raw, strings) for col, (kind, raw) in cells.items()}
                named = [col for col, text in texts.items() if text]
                if not named:
                    continue
                return sheet.name, row_no, tuple(texts.get(col, "") for col in range(max(named) + 1))
            if number >= HEADER_SCAN_ROWS:
                return None
    return None
