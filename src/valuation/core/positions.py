"""Wreck positions: degrees, minutes and hundredths of minutes, hemisphere and datum.

NORMAM-10 item 0403 a: latitude and longitude "em graus, minutos e centésimos de
minutos", with the datum of reference, or the position flagged "posição aproximada"
when it cannot be fixed exactly. NORMAM-10 item 0105 keeps a located wreck's
position confidential (rules.md §8): who may see it is decided by
`valuation.db.access.position_cleared`; everyone else sees the jurisdiction only
(`MASKED_POSITION`).

Accepted text ('22°54,35'S', '22 54.35 S', '22º 54,35' S', '43°10,2'W', '43 10 O'):
degrees, a degree sign or a space, minutes with at most two decimals (comma or
dot), an optional minute sign, the hemisphere N/S/E/W (pt-BR L = E, O = W).
Formatted as '22°54,35' S' and '43°10,20' W' (degrees not zero-padded).

Errors are `InputError` with pt-BR messages naming the field.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from valuation.core.errors import InputError, Problem

HUNDREDTH = Decimal("0.01")
MICRODEGREE = Decimal("0.000001")
MAX_MINUTES = Decimal("59.99")
MASKED_POSITION = "posição sigilosa"
APPROXIMATE_LABEL = "posição aproximada"

# Geodetic datums met in Brazilian charts (DHN) and surveys. 'desconhecido' only
# with an approximate position.
DATUMS: tuple[str, ...] = ("WGS-84", "SIRGAS 2000", "SAD-69", "Córrego Alegre", "desconhecido")
_DATUM_KEYS = {re.sub(r"[\s_-]", "", d.lower()): d for d in DATUMS}
_DATUM_KEYS.update({"wgs84": "WGS-84", "sirgas2000": "SIRGAS 2000", "sirgas": "SIRGAS 2000",
                    "sad69": "SAD-69", "corregoalegre": "Córrego Alegre"})

AXES = {"lat": ("N", "S"), "lon": ("E", "W")}
_MAX_DEGREES = {"lat": 90, "lon": 180}
_AXIS_LABEL = {"lat": "Latitude", "lon": "Longitude"}
_PT_HEMISPHERE = {"L": "E", "O": "W"}

_TEXT_RE = re.compile(
    r"^\s*(?P<deg>\d{1,3})(?:\s*[°º˚]\s*|\s+)(?P<min>\d{1,2}(?:[.,]\d+)?)\s*['′’]?\s*(?P<hem>[A-Za-z])\s*$"
)


@dataclass(frozen=True)
class Coordinate:
    """One coordinate: latitude (N/S) or longitude (E/W) in degrees and minutes (hundredths)."""

    degrees: int
    minutes: Decimal
    hemisphere: str

    @property
    def axis(self) -> str:
        return "lat" if self.hemisphere in ("N", "S") else "lon"

    def to_decimal_degrees(self) -> Decimal:
        """Signed decimal degrees (S and W negative), to the millionth of a degree."""
        value = (Decimal(self.degrees) + self.minutes / 60).quantize(MICRODEGREE, rounding=ROUND_HALF_UP)
        return -value if self.hemisphere in ("S", "W") else value

    def __str__(self) -> str:
        return format_coordinate(self)


@dataclass(frozen=True)
class Position:
    """A wreck's position as NORMAM-10 0403 a asks for it."""

    latitude: Coordinate
    longitude: Coordinate
    datum: str
    approximate: bool = False

    def to_decimal_degrees(self) -> tuple[Decimal, Decimal]:
        return self.latitude.to_decimal_degrees(), self.longitude.to_decimal_degrees()

    def __str__(self) -> str:
        return format_position(self)


# -- validation --------------------------------------------------------------------
def coordinate_problems(degrees: object, minutes: object, hemisphere: object, *, axis: str,
                        prefix: str | None = None) -> list[Problem]:
    """Every problem with one coordinate given as separate fields (form input).

    Fields are named `{prefix}_deg`, `{prefix}_min`, `{prefix}_hem` (prefix defaults to the axis).
    """
    prefix = prefix or axis
    label = _AXIS_LABEL[axis]
    problems: list[Problem] = []
    deg = _as_int(degrees)
    max_deg = _MAX_DEGREES[axis]
    if deg is None or not 0 <= deg <= max_deg:
        problems.append(Problem(f"{prefix}_deg", f"{label}: os graus devem ser um número inteiro de 0 a {max_deg}."))
    mins = _as_decimal(minutes)
    if mins is None or mins < 0 or mins > MAX_MINUTES:
        problems.append(Problem(f"{prefix}_min", f"{label}: os minutos devem estar entre 0 e 59,99."))
    elif mins != mins.quantize(HUNDREDTH):
        problems.append(Problem(f"{prefix}_min", f"{label}: os minutos admitem no máximo "
                                                 "centésimos (duas casas decimais)."))
    elif deg == max_deg and mins > 0:
        problems.append(Problem(f"{prefix}_min", f"{label}: com {max_deg} graus os minutos devem ser zero."))
    hem = _hemisphere(hemisphere)
    if hem not in AXES[axis]:
        allowed = " ou ".join(AXES[axis])
        problems.append(Problem(f"{prefix}_hem", f"{label}: o hemisfério deve ser {allowed}."))
    return problems


def coordinate(degrees: object, minutes: object, hemisphere: object, *, axis: str,
               prefix: str | None = None) -> Coordinate:
    """A validated Coordinate from separate fields; raises InputError naming each bad field."""
    problems = coordinate_problems(degrees, minutes, hemisphere, axis=axis, prefix=prefix)
    if problems:
        raise InputError(problems)
    return Coordinate(int(_as_int(degrees) or 0), (_as_decimal(minutes) or Decimal(0)).quantize(HUNDREDTH),
                      _hemisphere(hemisphere) or "")


def normalise_datum(text: object) -> str | None:
    """The canonical datum name ('wgs84' → 'WGS-84'), or None when unknown."""
    if not isinstance(text, str):
        return None
    return _DATUM_KEYS.get(re.sub(r"[\s_-]", "", text.strip().lower()).replace("ó", "o"))


def parse_coordinate(text: str, *, axis: str, field: str | None = None) -> Coordinate:
    """'22°54,35'S' / '22 54.35 S' → Coordinate; raises InputError (pt-BR) naming `field`."""
    field = field or ("latitude" if axis == "lat" else "longitude")
    label = _AXIS_LABEL[axis]
    m = _TEXT_RE.match(text) if isinstance(text, str) else None
    if not m:
        example = "22°54,35' S" if axis == "lat" else "43°10,20' W"
        raise InputError(Problem(field, f"{label}: formato não reconhecido; use graus, minutos e "
                                        f"hemisfério, p. ex. {example}."))
    problems = coordinate_problems(m["deg"], m["min"].replace(",", "."), m["hem"], axis=axis, prefix=axis)
    if problems:
        raise InputError([Problem(field, p.message) for p in problems])
    return Coordinate(int(m["deg"]), Decimal(m["min"].replace(",", ".")).quantize(HUNDREDTH),
                      _hemisphere(m["hem"]) or "")


def parse_latitude(text: str, *, field: str = "latitude") -> Coordinate:
    return parse_coordinate(text, axis="lat", field=field)


def parse_longitude(text: str, *, field: str = "longitude") -> Coordinate:
    return parse_coordinate(text, axis="lon", field=field)


def parse_position(latitude: str, longitude: str, datum: str, *, approximate: bool = False) -> Position:
    """A whole position from text, every problem reported at once."""
    problems: list[Problem] = []
    lat = lon = None
    try:
        lat = parse_latitude(latitude)
    except InputError as exc:
        problems += exc.problems
    try:
        lon = parse_longitude(longitude)
    except InputError as exc:
        problems += exc.problems
    canon = normalise_datum(datum)
    if canon is None:
        problems.append(Problem("datum", "Datum: informe um dos seguintes: " + ", ".join(DATUMS) + "."))
    elif canon == "desconhecido" and not approximate:
        problems.append(Problem("datum", "Datum desconhecido só é admitido com a indicação \"posição aproximada\"."))
    if problems or lat is None or lon is None or canon is None:
        raise InputError(problems)
    return Position(lat, lon, canon, approximate)


def from_decimal_degrees(value: Decimal | float | str, *, axis: str) -> Coordinate:
    """Signed decimal degrees → Coordinate, minutes rounded half-up to the hundredth (with carry)."""
    d = Decimal(str(value))
    neg, hem = AXES[axis]
    hemisphere = hem if d < 0 else neg
    d = abs(d)
    deg = int(d)
    mins = ((d - deg) * 60).quantize(HUNDREDTH, rounding=ROUND_HALF_UP)
    if mins >= 60:
        deg, mins = deg + 1, mins - 60
    return coordinate(deg, mins, hemisphere, axis=axis)


# -- formatting --------------------------------------------------------------------
def format_coordinate(c: Coordinate) -> str:
    """'22°54,35' S' (minutes always with two integer digits and two decimals, comma)."""
    mins = f"{c.minutes.quantize(HUNDREDTH):05.2f}".replace(".", ",")
    return f"{c.degrees}°{mins}' {c.hemisphere}"


def format_position(p: Position) -> str:
    """'22°54,35' S 43°10,20' W (WGS-84)', with ' — posição aproximada' when flagged."""
    text = f"{format_coordinate(p.latitude)} {format_coordinate(p.longitude)} ({p.datum})"
    return text + (f" — {APPROXIMATE_LABEL}" if p.approximate else "")


# -- helpers -----------------------------------------------------------------------
def _as_int(v: object) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, Decimal) and v == v.to_integral_value():
        return int(v)
    if isinstance(v, str) and re.fullmatch(r"\s*\d{1,3}\s*", v):
        return int(v)
    return None


def _as_decimal(v: object) -> Decimal | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, float):
        v = repr(v)  # a widget's float: its shortest repr is what the user typed
    try:
        d = Decimal(str(v).strip().replace(",", "."))
    except InvalidOperation:
        return None
    return d if d.is_finite() else None


def _hemisphere(v: object) -> str | None:
    if not isinstance(v, str) or len(v.strip()) != 1:
        return None
    h = v.strip().upper()
    return _PT_HEMISPHERE.get(h, h)
