"""Photographs of recovered items, drawn with Pillow for the demo (deterministic; nothing binary
is committed to the repository).

`item_photo(code, category, material, description, seed, view)` draws the item on a
conservation-lab table, with a scale bar and a label card carrying the item code, and returns
JPEG bytes *with* the EXIF a diver's camera writes (make, model, serial number, date and the
GPS position passed in) — so that the demo goes through the same path as a real upload, and
the stored copies prove the stripping: they keep none of it.
"""
from __future__ import annotations

import io
import math
import random
from datetime import datetime
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFilter, ImageFont

WIDTH, HEIGHT = 640, 480
_COLOURS: dict[str, tuple[int, int, int]] = {
    "prata": (170, 172, 168), "ouro": (214, 172, 62), "cobre": (150, 92, 58), "bronze": (128, 104, 60),
    "latão": (190, 160, 80), "ferro": (96, 74, 60), "aço": (110, 110, 112), "chumbo": (112, 114, 118),
    "estanho": (160, 162, 160), "cerâmica": (176, 110, 72), "faiança": (232, 230, 220),
    "porcelana": (240, 240, 236), "grés": (150, 120, 90), "vidro": (70, 110, 70), "madeira": (120, 86, 52),
    "pedra": (128, 124, 116), "osso": (222, 210, 180), "caulim": (230, 226, 214),
}
_TAGS = {0x010F: "SeaCam", 0x0110: "SeaCam Diver Pro 6", 0xA431: "SC6-0042-7781", 0x0131: "SeaCam firmware 2.4"}


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        from importlib import resources

        path = resources.files("valuation").joinpath("fonts").joinpath("DejaVuSans.ttf")
        with resources.as_file(path) as p:
            return ImageFont.truetype(str(p), size)
    except OSError:   # pragma: no cover - the font ships with the package
        return ImageFont.load_default()


@lru_cache(maxsize=4)
def _gradient(turn: int) -> Image.Image:
    return Image.linear_gradient("L").rotate(turn).resize((WIDTH, HEIGHT))


@lru_cache(maxsize=1)
def _noise() -> Image.Image:
    """One noise field, cropped at a different place for each photo (effect_noise is slow)."""
    return Image.effect_noise((WIDTH * 2, HEIGHT * 2), 9)


@lru_cache(maxsize=1)
def _shadow() -> Image.Image:
    small = Image.new("L", (WIDTH // 4, HEIGHT // 4), 0)
    ImageDraw.Draw(small).ellipse((WIDTH // 8 - 48, HEIGHT // 8 + 10, WIDTH // 8 + 52, HEIGHT // 8 + 32), fill=70)
    return small.filter(ImageFilter.GaussianBlur(5)).resize((WIDTH, HEIGHT), Image.Resampling.BILINEAR)


def _background(rng: random.Random) -> Image.Image:
    base = rng.randint(196, 222)
    img = _gradient(rng.choice((0, 90, 180, 270))).point(lambda v: base - 28 + v * 28 // 255)
    x, y = rng.randint(0, WIDTH), rng.randint(0, HEIGHT)
    img = Image.blend(img, _noise().crop((x, y, x + WIDTH, y + HEIGHT)), 0.12)
    tint = (rng.randint(0, 8), rng.randint(0, 6), rng.randint(0, 10))
    return Image.merge("RGB", [img.point(lambda v, t=t: min(255, v + t)) for t in tint])


def _shade(c: tuple[int, int, int], k: float) -> tuple[int, int, int]:
    r, g, b = (max(0, min(255, int(v * k))) for v in c)
    return r, g, b


def _blob(draw: ImageDraw.ImageDraw, cx: int, cy: int, r: int, rng: random.Random, colour: tuple[int, int, int],
          points: int = 14, rough: float = 0.28) -> None:
    pts = []
    for k in range(points):
        a = 2 * math.pi * k / points
        rr = r * (1 + rng.uniform(-rough, rough))
        pts.append((cx + rr * math.cos(a), cy + rr * 0.72 * math.sin(a)))
    draw.polygon(pts, fill=colour, outline=_shade(colour, 0.6))


def _coin(draw: ImageDraw.ImageDraw, cx: int, cy: int, rng: random.Random, colour: tuple[int, int, int],
          description: str, view: int) -> None:
    r = rng.randint(95, 130)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour, outline=_shade(colour, 0.55), width=6)
    draw.ellipse((cx - r + 16, cy - r + 16, cx + r - 16, cy + r - 16), outline=_shade(colour, 0.75), width=3)
    if view == 0:
        for k in range(8):   # a cross of the obverse
            a = math.pi / 4 * k
            draw.line((cx, cy, cx + (r - 30) * math.cos(a), cy + (r - 30) * math.sin(a)), fill=_shade(colour, 0.7),
                      width=5)
    digits = "".join(ch for ch in description if ch.isdigit())[:5] or "R"
    draw.text((cx, cy), digits, fill=_shade(colour, 0.5), font=_font(46), anchor="mm")
    for _ in range(rng.randint(3, 9)):   # corrosion spots
        x, y = cx + rng.randint(-r + 20, r - 20), cy + rng.randint(-r + 20, r - 20)
        s = rng.randint(4, 14)
        draw.ellipse((x - s, y - s, x + s, y + s), fill=_shade(colour, rng.uniform(0.45, 0.8)))


def _plate(draw: ImageDraw.ImageDraw, cx: int, cy: int, rng: random.Random, colour: tuple[int, int, int],
           fragment: bool) -> None:
    rx, ry = rng.randint(150, 200), rng.randint(90, 120)
    if fragment:
        _blob(draw, cx, cy, rng.randint(90, 140), rng, colour, points=7, rough=0.4)
        draw.arc((cx - 80, cy - 50, cx + 80, cy + 50), 200, 320, fill=(40, 70, 150), width=5)
        return
    draw.ellipse((cx - rx, cy - ry, cx + rx, cy + ry), fill=colour, outline=_shade(colour, 0.7), width=3)
    draw.ellipse((cx - rx + 40, cy - ry + 26, cx + rx - 40, cy + ry - 26), outline=(40, 70, 150), width=4)
    for k in range(10):
        a = 2 * math.pi * k / 10
        x, y = cx + (rx - 22) * math.cos(a), cy + (ry - 14) * math.sin(a)
        draw.ellipse((x - 7, y - 5, x + 7, y + 5), fill=(50, 80, 160))


def _bottle(draw: ImageDraw.ImageDraw, cx: int, cy: int, rng: random.Random, colour: tuple[int, int, int]) -> None:
    w = rng.randint(70, 95)
    draw.ellipse((cx - w, cy - 40, cx + w, cy + 120), fill=colour, outline=_shade(colour, 0.6), width=3)
    draw.rectangle((cx - 18, cy - 150, cx + 18, cy - 20), fill=colour, outline=_shade(colour, 0.6), width=3)
    draw.rectangle((cx - 24, cy - 165, cx + 24, cy - 145), fill=_shade(colour, 0.8))
    draw.line((cx - w + 25, cy, cx - w + 35, cy + 80), fill=_shade(colour, 1.6), width=6)   # a reflection


def _bar(draw: ImageDraw.ImageDraw, cx: int, cy: int, rng: random.Random, colour: tuple[int, int, int],
         long: bool) -> None:
    w, h = (rng.randint(230, 280), rng.randint(34, 48)) if long else (rng.randint(110, 150), rng.randint(55, 75))
    draw.polygon([(cx - w, cy - h), (cx + w, cy - h + 8), (cx + w + 12, cy + h), (cx - w - 10, cy + h - 4)],
                 fill=colour, outline=_shade(colour, 0.55))
    if long:
        draw.ellipse((cx + w - 10, cy - h - 10, cx + w + 30, cy + h + 10), fill=_shade(colour, 0.85))
    for _ in range(rng.randint(4, 10)):
        x = cx + rng.randint(-w + 10, w - 10)
        draw.line((x, cy - h + 6, x + rng.randint(-8, 8), cy + h - 6), fill=_shade(colour, 0.7), width=2)


def _ring(draw: ImageDraw.ImageDraw, cx: int, cy: int, rng: random.Random, colour: tuple[int, int, int],
          spokes: bool) -> None:
    r = rng.randint(110, 150) if spokes else rng.randint(50, 70)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=colour, width=18 if spokes else 12)
    if spokes:
        draw.line((cx - r, cy, cx + r, cy), fill=colour, width=10)
        draw.line((cx, cy - r, cx, cy + r), fill=colour, width=10)
        draw.ellipse((cx - 14, cy - 14, cx + 14, cy + 14), fill=_shade(colour, 0.7))
        draw.rectangle((cx - 12, cy - r - 40, cx + 12, cy - r), fill=colour)


def _scale_and_label(img: Image.Image, code: str, rng: random.Random) -> None:
    draw = ImageDraw.Draw(img)
    x0, y0 = 40, HEIGHT - 58
    for k in range(5):   # 5 cm scale bar, alternating
        draw.rectangle((x0 + k * 40, y0, x0 + (k + 1) * 40, y0 + 12), fill=(20, 20, 20) if k % 2 == 0
                       else (245, 245, 245), outline=(20, 20, 20))
    draw.text((x0, y0 + 16), "0", fill=(30, 30, 30), font=_font(13))
    draw.text((x0 + 200, y0 + 16), "5 cm", fill=(30, 30, 30), font=_font(13), anchor="ma")
    lx, ly = WIDTH - 250, HEIGHT - 70
    draw.rectangle((lx, ly, lx + 220, ly + 44), fill=(250, 250, 244), outline=(60, 60, 60))
    draw.text((lx + 10, ly + 8), code, fill=(20, 20, 60), font=_font(15))
    draw.text((lx + 10, ly + 26), "Laboratório de conservação", fill=(90, 90, 90), font=_font(10))


def _draw_object(draw: ImageDraw.ImageDraw, category: str, material: str, description: str,
                 rng: random.Random, view: int) -> None:
    colour = _COLOURS.get(material, (120, 110, 100))
    colour = _shade(colour, rng.uniform(0.88, 1.08))
    cx, cy = WIDTH // 2 + rng.randint(-40, 40), HEIGHT // 2 - 20 + rng.randint(-20, 20)
    text = description.lower()
    if category == "moedas" or "moeda" in text:
        _coin(draw, cx, cy, rng, colour, description, view)
    elif category == "cerâmica":
        _plate(draw, cx, cy, rng, colour, fragment="fragment" in text or "botija" in text)
    elif category == "vidro":
        _bottle(draw, cx, cy, rng, colour)
    elif category in ("artilharia", "armamento portátil"):
        _bar(draw, cx, cy, rng, colour, long=True)
    elif category == "lingotes":
        _bar(draw, cx, cy, rng, colour, long=False)
    elif category == "instrumentos de navegação":
        _ring(draw, cx, cy, rng, colour, spokes=True)
    elif category == "objetos pessoais" and ("anel" in text or "fivela" in text):
        _ring(draw, cx, cy, rng, colour, spokes=False)
    else:
        _blob(draw, cx, cy, rng.randint(100, 160), rng, colour)


def _exif(position: tuple[float, float] | None, taken: datetime) -> bytes:
    exif = Image.Exif()
    for tag, value in _TAGS.items():
        exif[tag] = value
    exif[0x0132] = taken.strftime("%Y:%m:%d %H:%M:%S")
    if position is not None:
        lat, lon = position

        def dms(v: float) -> tuple[float, float, float]:
            v = abs(v)
            d = int(v)
            m = int((v - d) * 60)
            return (float(d), float(m), round(((v - d) * 60 - m) * 60, 2))

        exif[0x8825] = {1: "S" if lat < 0 else "N", 2: dms(lat), 3: "W" if lon < 0 else "E", 4: dms(lon),
                        5: 1, 6: 18.0}
    return exif.tobytes()


def item_photo(code: str, category: str, material: str, description: str, *, seed: int, view: int = 0,
               position: tuple[float, float] | None = None, taken: datetime | None = None) -> bytes:
    """A JPEG of the item (module docstring), with a camera's EXIF and the GPS `position`."""
    rng = random.Random(f"{seed}:{code}:{view}")
    img = _background(rng)
    img.paste((60, 60, 60), mask=_shadow())
    _draw_object(ImageDraw.Draw(img), category, material, description, rng, view)
    _scale_and_label(img, code, rng)
    out = io.BytesIO()
    img.save(out, format="JPEG", quality=86, exif=_exif(position, taken or datetime(2024, 1, 1, 10, 0)))
    return out.getvalue()
