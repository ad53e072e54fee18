"""Active content and polyglots in documents (issue 24, item 16).

Explorers upload PDFs and Office/ODF documents that DPC opens; the stored bytes are served unchanged,
so a document that runs something when opened is refused, not stored:

- **PDF**: every object the cross-reference table or an object stream names is read (pypdf, which
  undoes `#xx` name escapes and inflates object streams within its own bounds) and refused when any
  holds JavaScript (`/JS`, `/JavaScript`), an action that launches, submits, imports or plays
  (`/S /Launch`, `/SubmitForm`, `/ImportData`, `/GoToE`, `/Rendition`, `/RichMediaExecute`), an
  embedded file (`/EmbeddedFile`, `/EmbeddedFiles`, `/EF`), rich media (`/RichMedia`) or an XFA form
  (`/XFA`). A plain `/OpenAction` (open at a page) and links (`/URI`) are fine. A PDF the reader
  cannot parse is refused too (what cannot be checked is not served);
- **polyglots**: a PDF that is also a readable ZIP (its central directory at the end), a ZIP-based
  document that a PDF reader would open (`%PDF-` in its first 1 024 bytes);
- **DOCX/XLSX/ODT/ODS**: an entry whose name climbs (`..`), is absolute or has a drive letter or a
  backslash, a symbolic link, macros (`vbaProject.bin`, ODF `Basic/`/`Scripts/`), ActiveX controls or
  embedded OLE objects, and relationships that fetch a template, frame or object from elsewhere
  (`TargetMode="External"` on attachedTemplate, frame, subDocument, oleObject, …; hyperlinks are fine).

`problem(data, ftype_key)` returns the reason (pt-BR) or None.
"""
from __future__ import annotations

import io
import re
import stat
import zipfile
from typing import Any

MAX_PDF_OBJECTS = 200_000            # objects read; more is refused as unreadable (a pure-Python reader)
POLYGLOT_WINDOW = 1024               # a PDF reader looks for %PDF- this far into a file
_ACTIONS = {"/Launch", "/SubmitForm", "/ImportData", "/GoToE", "/Rendition", "/RichMediaExecute", "/JavaScript"}
_KEYS = {"/JS": "JavaScript", "/JavaScript": "JavaScript", "/EmbeddedFiles": "arquivo embutido",
         "/EF": "arquivo embutido", "/RichMedia": "mídia ativa (RichMedia)", "/XFA": "formulário XFA"}
_MACRO_PARTS = re.compile(r"(^|/)(vbaProject\.bin|vbaData\.xml|activeX/|embeddings/.*\.bin$|oleObject)",
                          re.IGNORECASE)
_ODF_MACROS = re.compile(r"^(Basic|Scripts)/", re.IGNORECASE)
_EXTERNAL_KINDS = ("attachedTemplate", "frame", "subDocument", "oleObject", "externalLinkPath", "control",
                   "package", "aFChunk")
_DRIVE = re.compile(r"^[A-Za-z]:")


def _pdf_dict_problem(obj: Any, depth: int = 0) -> str | None:
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject

    if depth > 20:
        return None
    if isinstance(obj, DictionaryObject):
        for key, value in obj.items():
            if key in _KEYS:
                return _KEYS[key]
            if key == "/S" and isinstance(value, NameObject) and value in _ACTIONS:
                return f"ação {value[1:]}"
            if key == "/Type" and value == "/EmbeddedFile":
                return "arquivo embutido"
            found = _pdf_dict_problem(value, depth + 1)
            if found:
                return found
    elif isinstance(obj, ArrayObject):
        for value in obj:
            found = _pdf_dict_problem(value, depth + 1)
            if found:
                return found
    return None


def pdf_problem(data: bytes) -> str | None:
    """Why a PDF is refused (active content, polyglot, unreadable), or None."""
    if _is_zip(data):
        return "o arquivo é ao mesmo tempo PDF e ZIP (poliglota): não é aceito"
    try:
        from pypdf import PdfReader
        from pypdf.generic import IndirectObject

        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            return "PDF protegido por senha não é aceito"
        found = _pdf_dict_problem(reader.trailer)
        numbers = sorted({(num, gen) for gen, entries in reader.xref.items() for num in entries}
                         | {(num, 0) for num in reader.xref_objStm})
        if len(numbers) > MAX_PDF_OBJECTS:
            return f"PDF com mais de {MAX_PDF_OBJECTS:,} objetos: não foi possível conferi-lo".replace(",", ".")
        for num, gen in numbers:
            if found:
                break
            found = _pdf_dict_problem(reader.get_object(IndirectObject(num, gen, reader)))
    except Exception:  # noqa: BLE001 - any failure of the reader: the file cannot be checked
        return "PDF com estrutura danificada: não foi possível conferir o seu conteúdo"
    return f"PDF com conteúdo ativo ({found}), que pode executar algo ao ser aberto: não é aceito" if found else None


def _is_zip(data: bytes) -> bool:
    if b"PK\x05\x06" not in data[-(65536 + 22):]:
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return bool(zf.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):
        return False


def _climbs(name: str) -> bool:
    return name.startswith("/") or "\\" in name or _DRIVE.match(name) is not None or ".." in name.split("/")


def archive_problem(data: bytes, key: str) -> str | None:
    """Why a ZIP-based document (docx, xlsx, odt, ods) is refused, or None."""
    if b"%PDF-" in data[:POLYGLOT_WINDOW]:
        return "o documento também se abre como PDF (poliglota): não é aceito"
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
        for info in infos:
            name = info.filename
            if _climbs(name):
                return f"entrada {name[:80]!r} com caminho que sai da pasta do documento: não é aceito"
            if stat.S_ISLNK(info.external_attr >> 16):
                return f"entrada {name[:80]!r} é um link simbólico: não é aceito"
            if key in ("docx", "xlsx") and _MACRO_PARTS.search(name):
                return "documento com macros, controles ActiveX ou objetos OLE embutidos: não é aceito"
            if key in ("odt", "ods") and _ODF_MACROS.search(name):
                return "documento com macros: não é aceito"
        if key in ("docx", "xlsx"):
            for info in infos:
                if not info.filename.endswith(".rels") or info.file_size > 1 << 20:
                    continue
                text = zf.read(info).decode("utf-8", "replace")
                for rel in re.findall(r"<Relationship\b[^>]*>", text):
                    external = re.search(r'TargetMode\s*=\s*"External"', rel)
                    kind = re.search(r'Type\s*=\s*"[^"]*/([A-Za-z]+)"', rel)
                    if external and kind and kind.group(1) in _EXTERNAL_KINDS:
                        return (f"documento que busca conteúdo fora dele ({kind.group(1)} externo), o que pode "
                                "executar algo ao ser aberto: não é aceito")
    return None


def problem(data: bytes, key: str) -> str | None:
    """The reason (pt-BR) a document of type `key` is refused for active content, or None."""
    if key == "pdf":
        return pdf_problem(data)
    if key in ("docx", "xlsx", "odt", "ods"):
        return archive_problem(data, key)
    return None
