"""The type of a file from its bytes, never from its name (issue 16 §2).

`sniff(data, name, allowed)` returns the `FileType` of `data` when it is one of the
`allowed` type keys and its name's extension agrees with the content; otherwise it
raises InputError with a pt-BR message that names the file.

Signatures (magic numbers): PDF `%PDF-` (and `%%EOF` near the end), JPEG `FF D8 FF`, PNG
`89 50 4E 47 0D 0A 1A 0A`, WebP `RIFF….WEBP`. DOCX/XLSX and ODT/ODS are ZIP archives
(`PK 03 04`); their inner structure is checked with bounded reading: the central directory
(entry count, declared sizes and inflation ratio bounded, no encrypted entry), then
- ODF: the first entry is `mimetype`, stored uncompressed, holding the exact media type;
- OOXML: `[Content_Types].xml` (at most 1 MB, read with a bound) declares the main part of a
  Word document / Excel workbook (not the macro-enabled kinds) and that part exists.
Other types are recognised only to name them in the refusal (GIF, TIFF, BMP, HEIC,
executables, plain ZIP, …). A document of an accepted type with active content (PDF JavaScript,
launch actions, embedded files; macros, OLE objects, external templates; entries that climb out of
the archive) or that is also another type (a PDF/ZIP polyglot) is refused: `active.problem`.
"""
from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from valuation.attachments import active
from valuation.attachments.kinds import (
    MAX_DOCUMENT_ENTRIES,
    MAX_DOCUMENT_RATIO,
    MAX_DOCUMENT_UNCOMPRESSED,
    MAX_FILE_BYTES,
    MAX_MANIFEST_BYTES,
    megabytes,
)
from valuation.core.errors import InputError, Problem


@dataclass(frozen=True)
class FileType:
    key: str
    label: str                 # pt-BR, in messages
    media_type: str
    extensions: tuple[str, ...]

    @property
    def is_image(self) -> bool:
        return self.key in ("jpeg", "png", "webp")

    @property
    def extension(self) -> str:
        return self.extensions[0]


TYPES: dict[str, FileType] = {t.key: t for t in (
    FileType("pdf", "PDF", "application/pdf", (".pdf",)),
    FileType("docx", "documento Word (DOCX)",
             "application/vnd.openxmlformats-officedocument.wordprocessingml.document", (".docx",)),
    FileType("odt", "documento ODT", "application/vnd.oasis.opendocument.text", (".odt",)),
    FileType("xlsx", "planilha Excel (XLSX)",
             "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", (".xlsx",)),
    FileType("ods", "planilha ODS", "application/vnd.oasis.opendocument.spreadsheet", (".ods",)),
    FileType("jpeg", "imagem JPEG", "image/jpeg", (".jpg", ".jpeg", ".jpe", ".jfif")),
    FileType("png", "imagem PNG", "image/png", (".png",)),
    FileType("webp", "imagem WebP", "image/webp", (".webp",)),
)}
SHORT_LABELS: dict[str, str] = {"pdf": "PDF", "docx": "DOCX", "odt": "ODT", "xlsx": "XLSX", "ods": "ODS",
                                "jpeg": "JPEG", "png": "PNG", "webp": "WebP"}

_ODF = {"application/vnd.oasis.opendocument.text": "odt",
        "application/vnd.oasis.opendocument.spreadsheet": "ods"}
_OOXML = {  # main part content type → (type key, the part it must name)
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml": "docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml": "xlsx",
}
# Recognised only to say what a refused file is.
_OTHER: tuple[tuple[int, bytes, str], ...] = (
    (0, b"GIF87a", "imagem GIF"), (0, b"GIF89a", "imagem GIF"), (0, b"II*\x00", "imagem TIFF"),
    (0, b"MM\x00*", "imagem TIFF"), (0, b"BM", "imagem BMP"), (4, b"ftypheic", "imagem HEIC"),
    (4, b"ftypheix", "imagem HEIC"), (4, b"ftypmif1", "imagem HEIF"), (4, b"ftypavif", "imagem AVIF"),
    (0, b"MZ", "programa executável"), (0, b"\x7fELF", "programa executável"),
    (0, b"#!", "script"), (0, b"Rar!", "arquivo RAR"), (0, b"7z\xbc\xaf", "arquivo 7-Zip"),
    (0, b"\x1f\x8b", "arquivo gzip"), (0, b"\xd0\xcf\x11\xe0", "documento do Office antigo (DOC/XLS)"),
    (0, b"{\\rtf", "documento RTF"), (0, b"<", "página HTML ou XML"),
)


def accepted_text(allowed: Sequence[str]) -> str:
    """'PDF, DOCX, ODT, JPEG, PNG ou WebP'."""
    names = [SHORT_LABELS[k] for k in allowed]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " ou " + names[-1]


def _refuse(name: str, message: str) -> InputError:
    return InputError(Problem(name, f"{name}: {message}"))


def _zip_structure(data: bytes) -> str | None:
    """'docx' | 'xlsx' | 'odt' | 'ods' | 'zip' (another ZIP) | 'bomb' | 'encrypted' | None (not a ZIP)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
            if len(infos) > MAX_DOCUMENT_ENTRIES:
                return "bomb"
            declared = sum(i.file_size for i in infos)
            if declared > MAX_DOCUMENT_UNCOMPRESSED or any(
                    i.file_size > MAX_DOCUMENT_RATIO * max(i.compress_size, 1) and i.file_size > MAX_MANIFEST_BYTES
                    for i in infos):
                return "bomb"
            if any(i.flag_bits & 0x1 for i in infos):
                return "encrypted"
            first = infos[0] if infos else None
            if first is not None and first.filename == "mimetype":
                if first.compress_type != zipfile.ZIP_STORED or first.file_size > 100:
                    return "zip"
                return _ODF.get(zf.read(first).decode("ascii", "replace").strip(), "zip")
            names = {i.filename: i for i in infos}
            manifest = names.get("[Content_Types].xml")
            if manifest is None or manifest.file_size > MAX_MANIFEST_BYTES:
                return "zip"
            with zf.open(manifest) as fh:
                text = fh.read(MAX_MANIFEST_BYTES + 1).decode("utf-8", "replace")
            if len(text) > MAX_MANIFEST_BYTES:
                return "bomb"
            for content_type, key in _OOXML.items():
                marker = f'ContentType="{content_type}"'
                at = text.find(marker)
                if at < 0:
                    continue
                tag_start = text.rfind("<", 0, at)
                part = _attribute(text[tag_start:at + len(marker) + 200], "PartName")
                if part and part.lstrip("/") in names:
                    return key
            return "zip"
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, NotImplementedError,
            RuntimeError, zlib.error, KeyError, IndexError):
        return None


def _attribute(tag: str, name: str) -> str | None:
    at = tag.find(f'{name}="')
    if at < 0:
        return None
    start = at + len(name) + 2
    end = tag.find('"', start)
    return tag[start:end] if end > start else None


def detect(data: bytes) -> str | None:
    """The type key of `data` (TYPES), 'zip', 'bomb' or 'encrypted' for other archives, else None."""
    if data.startswith(b"%PDF-"):
        return "pdf" if b"%%EOF" in data[-4096:] else "pdf-truncated"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data.startswith(b"PK\x03\x04"):
        return _zip_structure(data) or "zip-broken"
    return None


def _other_label(data: bytes) -> str | None:
    for offset, magic, label in _OTHER:
        if data[offset:offset + len(magic)] == magic:
            return label
    return None


def _extension(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def sniff(data: bytes, name: str, allowed: Sequence[str]) -> FileType:
    """The FileType of `data` if it is one of `allowed` and `name`'s extension agrees; else
    InputError naming the file (pt-BR)."""
    accepted = accepted_text(allowed)
    if not data:
        raise _refuse(name, "arquivo vazio.")
    if len(data) > MAX_FILE_BYTES:
        raise _refuse(name, f"tem {megabytes(len(data))}, acima do limite de {megabytes(MAX_FILE_BYTES)} por arquivo.")
    key = detect(data)
    if key == "pdf-truncated":
        raise _refuse(name, "PDF incompleto ou corrompido (falta o fim do arquivo, %%EOF).")
    if key == "zip-broken":
        raise _refuse(name, "arquivo compactado corrompido.")
    if key == "bomb":
        raise _refuse(name, "arquivo compactado suspeito (conteúdo descompactado grande demais para o tamanho); "
                            "não foi aceito.")
    if key == "encrypted":
        raise _refuse(name, "documento protegido por senha não é aceito.")
    if key == "zip":
        raise _refuse(name, f"o conteúdo é um arquivo ZIP comum, não um documento aceito (aceitos: {accepted}).")
    if key is None:
        other = _other_label(data)
        what = f"o conteúdo é {other}" if other else "o conteúdo não é de um tipo reconhecido"
        raise _refuse(name, f"{what}; aceitos: {accepted}.")
    ftype = TYPES[key]
    if key not in allowed:
        raise _refuse(name, f"o conteúdo é {ftype.label}, que não é aceito aqui (aceitos: {accepted}).")
    ext = _extension(name)
    if ext not in ftype.extensions:
        shown = f"termina em {ext}" if ext else "não tem extensão"
        raise _refuse(name, f"o nome {shown}, mas o conteúdo é {ftype.label} ({ftype.extension}): arquivo "
                            "renomeado? Envie-o com a extensão do seu conteúdo.")
    reason = active.problem(data, key)          # issue 24, item 16: active content, polyglots, climbing entries
    if reason is not None:
        raise _refuse(name, reason + ".")
    return ftype
