"""Images: decode with a bounded pixel count, strip every metadata, re-encode (issue 16 §§2–3).

A diver's photograph carries in its EXIF the GPS position where it was taken and the camera
that took it; the position of a located wreck is confidential (NORMAM-10 0105), so no image
is stored as uploaded. `clean_image` decodes it with Pillow (only the plugin of the sniffed
format), refuses it when its declared size exceeds `MAX_IMAGE_PIXELS` (a decompression bomb:
a tiny file that inflates to gigabytes — checked on the header, before any pixel is
decoded), applies the EXIF orientation to the pixels, and writes a new file from the pixels
alone: no EXIF (GPS, camera make and model, serial numbers, dates), no XMP, no IPTC, no ICC
profile, no PNG text chunks. It also makes, once, a display copy (long side ≤ PREVIEW_SIDE)
and a thumbnail (≤ THUMB_SIDE), both JPEG. The sha256 of the bytes as uploaded is kept by
the caller as evidence (visible to DPC only).
"""
from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageOps, UnidentifiedImageError

from valuation.attachments.kinds import (
    MAX_IMAGE_PIXELS,
    MAX_IMAGE_SIDE,
    PREVIEW_SIDE,
    THUMB_SIDE,
)
from valuation.attachments.sniff import FileType
from valuation.core.errors import InputError, Problem

_PIL_FORMAT = {"jpeg": "JPEG", "png": "PNG", "webp": "WEBP"}
JPEG_QUALITY = 90
DERIVED_QUALITY = 82


@dataclass(frozen=True)
class CleanImage:
    data: bytes            # the stored file: same format, pixels only
    width: int
    height: int
    preview: bytes         # JPEG, long side ≤ PREVIEW_SIDE
    thumb: bytes           # JPEG, long side ≤ THUMB_SIDE


def _refuse(name: str, message: str) -> InputError:
    return InputError(Problem(name, f"{name}: {message}"))


def _rgb(im: Image.Image) -> Image.Image:
    """RGB for JPEG; transparency over white."""
    if im.mode in ("RGBA", "LA") or (im.mode == "P" and "transparency" in im.info):
        rgba = im.convert("RGBA")
        back = Image.new("RGB", rgba.size, (255, 255, 255))
        back.paste(rgba, mask=rgba.getchannel("A"))
        return back
    return im.convert("RGB") if im.mode != "RGB" else im


def _encode(im: Image.Image, fmt: str, quality: int) -> bytes:
    out = io.BytesIO()
    if fmt == "JPEG":
        _rgb(im).save(out, format="JPEG", quality=quality)
    elif fmt == "PNG":
        keep = im if im.mode in ("1", "L", "LA", "P", "RGB", "RGBA", "I;16") else im.convert("RGBA")
        keep.save(out, format="PNG", optimize=False)
    else:
        keep = im if im.mode in ("RGB", "RGBA") else im.convert("RGBA" if "A" in im.getbands() else "RGB")
        keep.save(out, format="WEBP", quality=quality, method=4)
    return out.getvalue()


def _scaled(im: Image.Image, side: int) -> bytes:
    copy = _rgb(im).copy()
    copy.thumbnail((side, side), Image.Resampling.BICUBIC, reducing_gap=1.5)   # box-reduce first: fast
    return _encode(copy, "JPEG", DERIVED_QUALITY)


def _open_checked(data: bytes, name: str, ftype: FileType) -> Image.Image:
    """The image opened on its header only (no pixel decoded), its declared size and frames checked."""
    fmt = _PIL_FORMAT[ftype.key]
    im = Image.open(io.BytesIO(data), formats=[fmt])
    width, height = im.size
    if width < 1 or height < 1 or width > MAX_IMAGE_SIDE or height > MAX_IMAGE_SIDE \
            or width * height > MAX_IMAGE_PIXELS:
        raise _refuse(name, f"imagem de {width} × {height} pixels, acima do limite de "
                            f"{MAX_IMAGE_PIXELS // 1_000_000} megapixels (ou de {MAX_IMAGE_SIDE} pixels "
                            "num lado): não foi aceita.")
    if getattr(im, "n_frames", 1) > 1:
        raise _refuse(name, "imagens animadas ou com várias páginas não são aceitas.")
    return im


def _guarded(name: str, ftype: FileType, work: Callable[[], Any]) -> Any:
    """`work()` with Pillow's errors turned into refusals naming the file."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            return work()
    except InputError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:   # Pillow's own bound, first
        raise _refuse(name, f"imagem acima do limite de {MAX_IMAGE_PIXELS // 1_000_000} megapixels (o tamanho "
                            "declarado é grande demais para ser aberto com segurança): não foi aceita.") from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError,
            MemoryError) as exc:
        raise _refuse(name, f"{ftype.label} corrompida ou incompleta: não foi possível ler a imagem.") from exc


def declared_size(data: bytes, name: str, ftype: FileType) -> tuple[int, int]:
    """(width, height) from the image's header, every header check done, no pixel decoded (issue 24,
    item 8: the budget of an upload is counted on these before anything is decoded)."""
    return _guarded(name, ftype, lambda: _open_checked(data, name, ftype).size)


def _decode(data: bytes, name: str, ftype: FileType) -> Image.Image:
    def work() -> Image.Image:
        im = _open_checked(data, name, ftype)
        im.load()
        return im

    return _guarded(name, ftype, work)


def clean_image(data: bytes, name: str, ftype: FileType) -> CleanImage:
    """The stored copy of an uploaded image, without any metadata (module docstring)."""
    im = _decode(data, name, ftype)
    try:
        upright = ImageOps.exif_transpose(im)
    except (OSError, ValueError, TypeError, SyntaxError):
        upright = im                     # an unreadable EXIF block: the pixels as they are
    if upright is None:                  # pragma: no cover - exif_transpose returns the image
        upright = im
    pixels = upright.copy()
    pixels.info = {}                     # nothing of the original's metadata travels on
    stored = _encode(pixels, _PIL_FORMAT[ftype.key], JPEG_QUALITY)
    fits = max(pixels.width, pixels.height) <= PREVIEW_SIDE and ftype.key == "jpeg"
    return CleanImage(data=stored, width=pixels.width, height=pixels.height,   # a small JPEG is its own preview
                      preview=stored if fits else _scaled(pixels, PREVIEW_SIDE), thumb=_scaled(pixels, THUMB_SIDE))
