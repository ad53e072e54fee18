"""What may be attached to what, in which file types, and the size limits (issue 16).

Owners and the kinds of file each takes:

    item            photo                                   JPEG, PNG, WebP
    deadline_event  report (monthly/final report, etc.)     PDF, DOCX, ODT, JPEG, PNG, WebP
    contract        authorisation, co_signature, edital     PDF, DOCX, ODT, JPEG, PNG, WebP
                    cost_sheet                              the same, plus XLSX and ODS
    wreck           document, photo (DPC only)              PDF, DOCX, ODT / JPEG, PNG, WebP

Limits (README "Attachments" states them for users): the reasons are memory on a 2-core
server that also runs the dashboard, and what a photograph or report needs.
"""
from __future__ import annotations

from valuation.db.access import ATTACHMENT_OWNER_TABLES

MIB = 1024 * 1024

MAX_FILE_BYTES = 25 * MIB            # one file (a 45-megapixel JPEG is ~20 MB; a report PDF far less)
MAX_UPLOAD_BYTES = 100 * MIB         # the files of one upload together
MAX_FILES_PER_UPLOAD = 50            # files in one upload (the ZIP of photos has its own limit)
MAX_IMAGE_PIXELS = 50_000_000        # decoded size bound: 50 MP × 4 bytes = 200 MB at most in memory
MAX_IMAGE_SIDE = 20_000              # no image side beyond this (a 1 × 50 000 000 strip is not a photo)
PREVIEW_SIDE = 1_600                 # long side of the display copy shown in the gallery
THUMB_SIDE = 320                     # long side of the thumbnail
# A ZIP of photos (bulk upload): archive size, entries, their total once inflated, and the
# inflation ratio of any entry (photos barely compress: a ratio above this is a zip bomb).
MAX_ARCHIVE_BYTES = 50 * MIB            # = the dashboard's server.maxUploadSize
MAX_ARCHIVE_ENTRIES = 2_000
MAX_ARCHIVE_UNCOMPRESSED = 200 * MIB
MAX_ENTRY_RATIO = 20
# Office documents are ZIPs too: bounds for checking their inner structure.
MAX_DOCUMENT_ENTRIES = 10_000
MAX_DOCUMENT_UNCOMPRESSED = 500 * MIB
MAX_DOCUMENT_RATIO = 200
MAX_MANIFEST_BYTES = 1 * MIB         # [Content_Types].xml / mimetype read to check the structure

OWNER_KINDS: tuple[str, ...] = tuple(ATTACHMENT_OWNER_TABLES)     # item, deadline_event, contract, wreck
OWNER_LABELS: dict[str, str] = {"item": "Bem resgatado", "deadline_event": "Evento de prazo",
                                "contract": "Contrato", "wreck": "Naufrágio"}

KIND_LABELS: dict[str, str] = {
    "photo": "Foto",
    "report": "Relatório",
    "authorisation": "Ato de autorização (autorização, licença, contrato ou portaria)",
    "co_signature": "Termo de coassinatura",
    "edital": "Edital",
    "cost_sheet": "Planilha de custos",
    "document": "Documento",
}
KINDS_BY_OWNER: dict[str, tuple[str, ...]] = {
    "item": ("photo",),
    "deadline_event": ("report",),
    "contract": ("authorisation", "co_signature", "edital", "cost_sheet"),
    "wreck": ("document", "photo"),
}

IMAGE_TYPES: tuple[str, ...] = ("jpeg", "png", "webp")
DOCUMENT_TYPES: tuple[str, ...] = ("pdf", "docx", "odt")
SHEET_TYPES: tuple[str, ...] = ("xlsx", "ods")
TYPES_BY_KIND: dict[str, tuple[str, ...]] = {
    "photo": IMAGE_TYPES,
    "report": DOCUMENT_TYPES + IMAGE_TYPES,
    "authorisation": DOCUMENT_TYPES + IMAGE_TYPES,
    "co_signature": DOCUMENT_TYPES + IMAGE_TYPES,
    "edital": DOCUMENT_TYPES + IMAGE_TYPES,
    "cost_sheet": DOCUMENT_TYPES + SHEET_TYPES + IMAGE_TYPES,
    "document": DOCUMENT_TYPES + IMAGE_TYPES,
}

VARIANTS: tuple[str, ...] = ("file", "preview", "thumb")
VARIANT_LABELS: dict[str, str] = {"file": "arquivo enviado", "preview": "visualização", "thumb": "miniatura"}


def megabytes(n: int) -> str:
    """'25 MB' (binary megabytes, as the limits are set), for messages."""
    value = n / MIB
    return (f"{value:.0f}" if value >= 10 or value == int(value) else f"{value:.1f}".replace(".", ",")) + " MB"


def size_text(n: int) -> str:
    """A file size for people: '812 bytes', '18,4 KB', '2,3 MB'."""
    if n < 1024:
        return f"{n} bytes"
    if n < MIB:
        return f"{n / 1024:.1f}".replace(".", ",") + " KB"
    return f"{n / MIB:.1f}".replace(".", ",") + " MB"
