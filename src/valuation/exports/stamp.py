"""The authenticity footer of an issued PDF (issue 27, section 1), drawn once for every report.

`PdfReport(..., stamp=Stamp(code, base_url, nup))` draws on every page, above the usual footer:

    Código de verificação ABCDE-12345 · CRC 1A2B3C4D          [QR → <base>/verificar?codigo=ABCDE-12345]
    Verifique a autenticidade em <base>/verificar
    NUP 00000.000000/2026-00                                  (only when the record has one)

Everything but the CRC is known before rendering. The CRC is `codes.crc_of` the finished bytes with
its slot still empty; `stamp_crc` then writes it into that slot of every page as one small content
stream of its own (Helvetica, a standard font: nothing embedded), and the report hands back those
final bytes — the ones whose sha256 the registry keeps. `Stamp.crc` is filled by the report.
"""
from __future__ import annotations

import functools
import io
from typing import Any

from valuation.authenticity.codes import Stamp, crc_of

__all__ = ["Stamp", "draw", "finish", "qr_png", "stamp_crc"]

QR_MM = 17.0                 # the QR's side on the page (a phone reads it at 10 cm)
BAND_MM = 20.0               # the height of the band above the usual footer
TEXT_PT = 7.5
_GREY = 0.35                 # the footer's grey (90/255)


@functools.lru_cache(maxsize=8)
def qr_png(payload: str) -> bytes:
    """The QR of `payload` as a PNG (segno; error correction M, 4-module quiet zone); drawn once per document."""
    import segno

    out = io.BytesIO()
    segno.make_qr(payload, error="m").save(out, kind="png", scale=4, border=4)
    return out.getvalue()


def draw(pdf: Any, stamp: Stamp, font: str, fit: Any) -> tuple[float, float]:
    """Draw the band on the current page of the fpdf2 document `pdf`; returns the CRC slot's
    (x, baseline y) in mm from the top left."""
    top = pdf.h - 14 - BAND_MM
    qr_x = pdf.w - pdf.r_margin - QR_MM
    pdf.image(io.BytesIO(qr_png(stamp.qr_payload)), x=qr_x, y=top + 1, w=QR_MM, h=QR_MM)
    width = qr_x - pdf.l_margin - 2
    pdf.set_text_color(90)
    pdf.set_xy(pdf.l_margin, top + 3)
    pdf.set_font(font, "B", TEXT_PT)
    first = f"Código de verificação {stamp.printed_code} · CRC "
    # the cell's text starts a cell margin in: the CRC goes where that text (its last space included) ends,
    # not where the cell does — there it covered the space ('CRC12E6B229', issue 43 item 12)
    pdf.cell(pdf.get_string_width(first), 4, first)
    slot_x = pdf.l_margin + pdf.c_margin + pdf.get_string_width(first)
    baseline = top + 3 + 2 + 0.3 * TEXT_PT * 25.4 / 72
    pdf.set_font(font, "", TEXT_PT)
    pdf.set_xy(pdf.l_margin, top + 7.5)
    pdf.cell(width, 4, fit(pdf, f"Verifique a autenticidade em {stamp.verify_url} (ou pelo QR ao lado)", width))
    if stamp.nup:
        pdf.set_xy(pdf.l_margin, top + 12)
        pdf.cell(width, 4, fit(pdf, f"NUP {stamp.nup}", width))
    pdf.set_text_color(0)
    return slot_x, baseline


def stamp_crc(data: bytes, crc: str, slots: dict[int, tuple[float, float]], page_h_mm: float) -> bytes:
    """`data` with `crc` written at each page's slot (page number from 1 → (x, baseline) in mm)."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, NameObject

    k = 72 / 25.4
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    font = writer._add_object(DictionaryObject({   # noqa: SLF001 - pypdf's way to add an indirect object
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica-Bold"), NameObject("/Encoding"):
        NameObject("/WinAnsiEncoding")}))
    for number, page in enumerate(writer.pages, start=1):
        if number not in slots:
            continue
        x, y = slots[number]
        opening, closing = DecodedStreamObject(), DecodedStreamObject()
        opening.set_data(b"q\n")
        closing.set_data(f"Q\nq {_GREY} g BT /VCRC {TEXT_PT} Tf {x * k:.2f} {(page_h_mm - y) * k:.2f} Td "
                         f"({crc}) Tj ET Q\n".encode("ascii"))
        contents: Any = page.get("/Contents")
        parts = list(contents.get_object()) if isinstance(contents.get_object(), ArrayObject) else [contents]
        page[NameObject("/Contents")] = ArrayObject([writer._add_object(opening), *parts,   # noqa: SLF001
                                                    writer._add_object(closing)])   # noqa: SLF001
        resources: Any = page["/Resources"].get_object()
        fonts: Any = resources.get("/Font")
        if fonts is None:
            resources[NameObject("/Font")] = fonts = DictionaryObject()
        fonts.get_object()[NameObject("/VCRC")] = font
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def finish(data: bytes, stamp: Stamp, slots: dict[int, tuple[float, float]], page_h_mm: float) -> bytes:
    """The final bytes of a stamped report: `stamp.crc` is the CRC of `data` (its slots empty), then stamped."""
    stamp.crc = crc_of(data)
    return stamp_crc(data, stamp.crc, slots, page_h_mm)
