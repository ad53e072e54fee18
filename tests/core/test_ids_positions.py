"""CPF/CNPJ check digits and formatting; wreck positions (NORMAM-10 0403 a) parsing, formatting, validation."""
from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from valuation.core.errors import InputError
from valuation.core.ids import (
    cnpj_check_digits,
    cnpj_is_valid,
    cpf_is_valid,
    format_cnpj,
    format_cpf,
    normalise_cnpj,
    normalise_digits,
)
from valuation.core.positions import (
    Coordinate,
    Position,
    coordinate,
    coordinate_problems,
    format_coordinate,
    format_position,
    from_decimal_degrees,
    normalise_datum,
    parse_latitude,
    parse_longitude,
    parse_position,
)


# -- CPF / CNPJ ---------------------------------------------------------------------
@pytest.mark.parametrize("text, valid", [
    ("529.982.247-25", True),         # published example
    ("52998224725", True),
    (" 529 982 247 25 ", True),
    ("529.982.247-24", False),        # second check digit wrong
    ("529.982.247-15", False),        # first check digit wrong
    ("111.111.111-11", False),        # repeated digits pass the arithmetic but are not issued
    ("00000000000", False),
    ("5299822472", False),            # 10 digits
    ("529982247255", False),          # 12 digits
    ("529.982.247-2a", False),
    ("", False),
    (None, False),
])
def test_cpf_is_valid(text, valid):
    assert cpf_is_valid(text) is valid


@pytest.mark.parametrize("text, valid", [
    ("11.222.333/0001-81", True),
    ("11222333000181", True),
    ("11.444.777/0001-61", True),
    ("11.222.333/0001-82", False),
    ("11.222.333/0001-71", False),
    ("00.000.000/0000-00", False),
    ("11.111.111/1111-11", False),
    ("1122233300018", False),         # 13 characters
    ("12.ABC.345/01DE-35", True),     # alphanumeric CNPJ (IN RFB 2.229/2024), Receita's example
    ("12.abc.345/01de-35", True),     # lower case normalised
    ("12.ABC.345/01DE-36", False),
    ("12.ABC.345/01DE-3X", False),    # check digits stay numeric
    (None, False),
])
def test_cnpj_is_valid(text, valid):
    assert cnpj_is_valid(text) is valid


def _cpf_digits(body: str) -> str:
    nums = [int(c) for c in body]
    def dv(values, start):
        rest = sum(v * w for v, w in zip(values, range(start, 1, -1))) % 11
        return 0 if rest < 2 else 11 - rest
    d1 = dv(nums, 10)
    d2 = dv(nums + [d1], 11)
    return f"{body}{d1}{d2}"


@given(st.text(alphabet="0123456789", min_size=9, max_size=9).filter(lambda s: len(set(s)) > 1),
       st.integers(min_value=9, max_value=10), st.integers(min_value=1, max_value=9))
def test_cpf_any_single_digit_change_is_caught(body, pos, delta):
    good = _cpf_digits(body)
    assert cpf_is_valid(good)
    bad = good[:pos] + str((int(good[pos]) + delta) % 10) + good[pos + 1:]
    assert not cpf_is_valid(bad)


@given(st.text(alphabet="0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=12, max_size=12)
       .filter(lambda s: len(set(s)) > 1))
def test_cnpj_with_its_check_digits_is_valid_and_formats_back(body):
    cnpj = body + cnpj_check_digits(body)
    assert cnpj_is_valid(cnpj)
    formatted = format_cnpj(cnpj)
    assert formatted[2] == "." and formatted[6] == "." and formatted[10] == "/" and formatted[15] == "-"
    assert normalise_cnpj(formatted) == cnpj
    assert cnpj_is_valid(formatted)


@pytest.mark.parametrize("fn, text, expected", [
    (normalise_digits, "529.982.247-25", "52998224725"),
    (normalise_digits, None, ""),
    (format_cpf, "52998224725", "529.982.247-25"),
    (format_cpf, "529.982.247-25", "529.982.247-25"),
    (format_cpf, "123", "123"),                     # not a CPF: unchanged
    (format_cnpj, "11222333000181", "11.222.333/0001-81"),
    (format_cnpj, "12abc34501de35", "12.ABC.345/01DE-35"),
    (format_cnpj, "12", "12"),
])
def test_normalise_and_format(fn, text, expected):
    assert fn(text) == expected


# -- positions ----------------------------------------------------------------------
@pytest.mark.parametrize("text, deg, minutes, hem", [
    ("22°54,35'S", 22, "54.35", "S"),
    ("22 54.35 S", 22, "54.35", "S"),
    ("22º 54,35' s", 22, "54.35", "S"),       # ordinal sign, lower-case hemisphere
    ("22° 4,5′ N", 22, "4.50", "N"),          # prime, one decimal
    ("0 0 N", 0, "0.00", "N"),
    ("90°00,00'S", 90, "0.00", "S"),
    ("7 59.99 S", 7, "59.99", "S"),
])
def test_parse_latitude(text, deg, minutes, hem):
    c = parse_latitude(text)
    assert (c.degrees, c.minutes, c.hemisphere) == (deg, Decimal(minutes), hem)
    assert c.axis == "lat"


@pytest.mark.parametrize("text, deg, minutes, hem", [
    ("43°10,20'W", 43, "10.20", "W"),
    ("43 10 O", 43, "10.00", "W"),             # pt-BR Oeste
    ("32°25,00' L", 32, "25.00", "E"),          # pt-BR Leste
    ("180 0 E", 180, "0.00", "E"),
])
def test_parse_longitude(text, deg, minutes, hem):
    c = parse_longitude(text)
    assert (c.degrees, c.minutes, c.hemisphere) == (deg, Decimal(minutes), hem)


@pytest.mark.parametrize("text, fragment", [
    ("91 00 N", "graus"),
    ("90 0,01 N", "com 90 graus"),
    ("22 60 S", "59,99"),
    ("22 54.355 S", "centésimos"),
    ("22 54 E", "hemisfério deve ser N ou S"),
    ("22,5 S", "formato"),
    ("2254.35 S", "formato"),                  # degrees and minutes must be separated
    ("", "formato"),
])
def test_bad_latitude_names_the_field_in_portuguese(text, fragment):
    with pytest.raises(InputError) as err:
        parse_latitude(text)
    assert err.value.problems[0].path == "latitude"
    assert fragment in err.value.problems[0].message
    assert err.value.problems[0].message.startswith("Latitude")


def test_bad_longitude():
    with pytest.raises(InputError) as err:
        parse_longitude("181 00 W")
    assert err.value.problems[0].path == "longitude"
    assert "0 a 180" in err.value.problems[0].message


@pytest.mark.parametrize("c, text", [
    (Coordinate(22, Decimal("54.35"), "S"), "22°54,35' S"),
    (Coordinate(22, Decimal("4.5"), "S"), "22°04,50' S"),
    (Coordinate(43, Decimal("0"), "W"), "43°00,00' W"),
    (Coordinate(0, Decimal("0.01"), "N"), "0°00,01' N"),
])
def test_format_coordinate(c, text):
    assert format_coordinate(c) == text
    assert str(c) == text


def test_format_position_with_datum_and_approximate_flag():
    p = Position(Coordinate(22, Decimal("54.35"), "S"), Coordinate(43, Decimal("10.20"), "W"), "WGS-84", True)
    assert format_position(p) == "22°54,35' S 43°10,20' W (WGS-84) — posição aproximada"
    assert str(Position(p.latitude, p.longitude, "SAD-69")) == "22°54,35' S 43°10,20' W (SAD-69)"


@pytest.mark.parametrize("c, expected", [
    (Coordinate(22, Decimal("54.35"), "S"), Decimal("-22.905833")),
    (Coordinate(22, Decimal("30.00"), "N"), Decimal("22.500000")),
    (Coordinate(43, Decimal("10.20"), "W"), Decimal("-43.170000")),
    (Coordinate(0, Decimal("0.00"), "E"), Decimal("0.000000")),
])
def test_to_decimal_degrees(c, expected):
    assert c.to_decimal_degrees() == expected


@given(st.integers(min_value=0, max_value=89), st.integers(min_value=0, max_value=5999),
       st.sampled_from(["N", "S"]))
def test_format_parse_round_trip_and_decimal_round_trip(deg, hundredths, hem):
    c = Coordinate(deg, Decimal(hundredths) / 100, hem)
    exact = Coordinate(deg, (Decimal(hundredths) / 100).quantize(Decimal("0.01")), hem)
    assert parse_latitude(format_coordinate(c)) == exact
    back = from_decimal_degrees(c.to_decimal_degrees(), axis="lat")
    # a zero coordinate has no sign: it comes back north
    assert (back.degrees, back.minutes) == (c.degrees, c.minutes)
    assert back.hemisphere == hem or c.to_decimal_degrees() == 0


def test_from_decimal_degrees_carries_sixty_minutes():
    c = from_decimal_degrees(Decimal("-43.999999"), axis="lon")
    assert (c.degrees, c.minutes, c.hemisphere) == (44, Decimal("0.00"), "W")


def test_coordinate_problems_name_each_separate_field():
    problems = coordinate_problems(95, "61", "X", axis="lat")
    assert [p.path for p in problems] == ["lat_deg", "lat_min", "lat_hem"]
    assert coordinate_problems(22, 54.35, "S", axis="lat") == []       # a widget's float is fine
    assert coordinate(22, 54.35, "S", axis="lat").minutes == Decimal("54.35")
    assert [p.path for p in coordinate_problems(10, "5", "S", axis="lon", prefix="x")] == ["x_hem"]


@pytest.mark.parametrize("text, canon", [
    ("WGS84", "WGS-84"), ("wgs-84", "WGS-84"), ("SIRGAS2000", "SIRGAS 2000"), ("sad 69", "SAD-69"),
    ("Corrego Alegre", "Córrego Alegre"), ("NAD27", None), (None, None),
])
def test_normalise_datum(text, canon):
    assert normalise_datum(text) == canon


def test_parse_position_collects_every_problem():
    with pytest.raises(InputError) as err:
        parse_position("95 00 S", "43 10 N", "NAD27")
    assert [p.path for p in err.value.problems] == ["latitude", "longitude", "datum"]
    with pytest.raises(InputError) as err:
        parse_position("22 54 S", "43 10 W", "desconhecido")
    assert "aproximada" in err.value.problems[0].message
    p = parse_position("22 54 S", "43 10 W", "desconhecido", approximate=True)
    assert p.approximate and p.datum == "desconhecido"
