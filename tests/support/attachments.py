"""Files for the attachment tests (issue 16), built in memory: real JPEG/PNG/WebP images with a
camera's EXIF (GPS included), minimal but well-formed DOCX/XLSX/ODT/ODS/PDF, and hostile ones
(renamed, bombs, zip bombs, traversal)."""
from __future__ import annotations

import io
import struct
import zipfile
import zlib

from PIL import Image, PngImagePlugin

GPS = (-13.0083, -38.5200)          # a wreck position that must never be stored
MAKE, MODEL, SERIAL = "SeaCam", "SeaCam Diver Pro 6", "SC6-0042-7781"


def exif_bytes(gps: tuple[float, float] | None = GPS) -> bytes:
    exif = Image.Exif()
    exif[0x010F], exif[0x0110], exif[0xA431] = MAKE, MODEL, SERIAL
    exif[0x0132] = "2025:02:10 10:30:00"
    exif[0x0112] = 6   # orientation: rotated 90° (the stored copy must be upright)
    if gps is not None:
        lat, lon = gps
        exif[0x8825] = {1: "S", 2: (13.0, 0.0, 29.88), 3: "W", 4: (38.0, 31.0, 12.0), 5: 1, 6: 18.0}
    return exif.tobytes()


def jpeg(size: tuple[int, int] = (64, 48), *, gps: bool = True, colour: tuple[int, int, int] = (150, 90, 40)) -> bytes:
    out = io.BytesIO()
    img = Image.new("RGB", size, colour)
    img.paste((20, 20, 200), (0, 0, size[0] // 2, size[1] // 3))
    img.save(out, format="JPEG", quality=90, exif=exif_bytes(GPS if gps else None))
    return out.getvalue()


def png_with_metadata(size: tuple[int, int] = (40, 30)) -> bytes:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", f"lat {GPS[0]} lon {GPS[1]}")
    info.add_text("Software", MODEL)
    out = io.BytesIO()
    Image.new("RGBA", size, (10, 120, 200, 180)).save(out, format="PNG", pnginfo=info, exif=exif_bytes())
    return out.getvalue()


def webp_with_metadata(size: tuple[int, int] = (40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (90, 90, 30)).save(out, format="WEBP", exif=exif_bytes(), quality=80)
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_header_only(width: int, height: int) -> bytes:
    """A PNG declaring width × height (a decompression bomb: a few dozen bytes for gigabytes of pixels)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64, 9)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def real_png_bomb(side: int = 7200) -> bytes:
    """A genuine PNG of side × side pixels (≈ 52 MP) that compresses to a few dozen KB."""
    out = io.BytesIO()
    Image.new("1", (side, side), 0).save(out, format="PNG", optimize=False)
    return out.getvalue()


def pdf_of(objects: list[bytes], *, trailer: bytes = b"/Root 1 0 R") -> bytes:
    """A PDF 1.4 of these objects (numbered from 1), with its cross-reference table and startxref."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<</Size %d %s>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, trailer, xref)
    return bytes(out)


PAGE_OBJECTS = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
                b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>"]


def pdf() -> bytes:
    return pdf_of(PAGE_OBJECTS)


def _zip(entries: list[tuple[str, bytes]], *, stored_first: bool = False) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for k, (name, data) in enumerate(entries):
            zf.writestr(zipfile.ZipInfo(name), data,
                        compress_type=zipfile.ZIP_STORED if (stored_first and k == 0) else zipfile.ZIP_DEFLATED)
    return out.getvalue()


_CT = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
       'content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/{part}" '
       'ContentType="{ct}"/></Types>')


def docx(ct: str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml") -> bytes:
    return _zip([("[Content_Types].xml", _CT.format(part="word/document.xml", ct=ct).encode()),
                 ("word/document.xml", b"<w:document/>")])


def docm() -> bytes:
    return docx("application/vnd.ms-word.document.macroEnabled.main+xml")


def xlsx() -> bytes:
    ct = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
    return _zip([("[Content_Types].xml", _CT.format(part="xl/workbook.xml", ct=ct).encode()),
                 ("xl/workbook.xml", b"<workbook/>")])


def odt(mimetype: bytes = b"application/vnd.oasis.opendocument.text") -> bytes:
    return _zip([("mimetype", mimetype), ("content.xml", b"<office:document-content/>")], stored_first=True)


def plain_zip() -> bytes:
    return _zip([("notas.txt", b"nada")])


def zip_of(entries: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        for name, data in entries:
            zf.writestr(zipfile.ZipInfo(name), data)
    return out.getvalue()


def zip_bomb_entry(name: str = "A1-001.jpg", size: int = 30 * 1024 * 1024) -> bytes:
    """A ZIP whose one entry inflates from a few KB to `size` bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(zipfile.ZipInfo(name), b"\xff\xd8\xff" + b"\x00" * size, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def exe() -> bytes:
    return b"MZ\x90\x00" + b"\x00" * 200
