"""The one pt-BR money parser (`core.money.parse_brl`) and the one money maximum (issue 12; issue 14 item 8:
'1001.76,41' was read as 100 176,41 — mixed separators are refused, never guessed)."""
from __future__ import annotations

from decimal import Decimal

import pytest

from valuation.core.errors import InputError
from valuation.core.forms import Form
from valuation.core.money import MAX_AMOUNT, parse_brl

READ = [
    ("1.234,56", "1234.56"),
    ("1234,56", "1234.56"),
    ("R$ 1.234", "1234.00"),
    ("  R$ 10,00 ", "10.00"),
    ("1.234.567,8", "1234567.80"),
    ("1234.56", "1234.56"),        # a decimal point no pt-BR grouping explains
    ("1234.5", "1234.50"),
    ("1.234", "1234.00"),          # one dot, three digits: the pt-BR thousands dot
    (",5", "0.50"),
    ("0", "0.00"),
    ("-0,00", "0.00"),             # never -0.00
    ("9.999.999.999.999.999,99", "9999999999999999.99"),
    (7, "7.00"),
    (Decimal("12.5"), "12.50"),
]


@pytest.mark.parametrize(("typed", "expected"), READ)
def test_amounts_typed_the_pt_br_way(typed: object, expected: str) -> None:
    value = parse_brl(typed)
    assert value == Decimal(expected) and str(value) == expected


REFUSED = [
    ("1001.76,41", "vírgula para os centavos"),   # mixed separators: never guessed
    ("1,234.56", "vírgula para os centavos"),
    ("12.34.567", "vírgula para os centavos"),
    ("1.23.456,00", "vírgula para os centavos"),
    ("١٢٣", "vírgula para os centavos"),           # non-ASCII digits
    ("１２３", "vírgula para os centavos"),
    ("abc", "vírgula para os centavos"),
    ("1.", "vírgula para os centavos"),
    ("1e5", "vírgula para os centavos"),
    ("NaN", "vírgula para os centavos"),
    ("0,001", "no máximo 2 casas decimais"),
    ("1.2345", "no máximo 2 casas decimais"),
    ("10.000.000.000.000.000,00", "até 9.999.999.999.999.999,99"),
    ("-5", "de 0,00 até"),
    ("", "informe o valor"),
    (None, "informe o valor"),
    (1.5, "decimal exato"),                        # money is never a float
    (True, "decimal exato"),
    ("9" * 60, "vírgula para os centavos"),
]


@pytest.mark.parametrize(("typed", "reason"), REFUSED)
def test_refused_with_the_field_and_the_reason(typed: object, reason: str) -> None:
    with pytest.raises(InputError) as info:
        parse_brl(typed, path="amount", label="Valor (R$)")
    [problem] = info.value.problems
    assert problem.path == "amount" and problem.message.startswith("Valor (R$): ") and reason in problem.message


def test_bounds_and_places_are_the_callers() -> None:
    assert parse_brl("-5", minimum=None) == Decimal("-5.00")
    assert parse_brl("1,5", places=1) == Decimal("1.5")
    with pytest.raises(InputError):
        parse_brl("101", maximum=Decimal(100))
    assert MAX_AMOUNT == Decimal("9999999999999999.99")   # DECIMAL(18,2)


def test_form_money_records_the_problem_under_its_key() -> None:
    f = Form({"a": "1.234,56", "b": "1001.76,41", "c": ""}, allowed=("a", "b", "c"))
    assert f.money("a", "Valor") == Decimal("1234.56")
    assert f.money("b", "Preço (R$)") is None
    assert f.money("c", "Custo", required=False) is None
    assert [(p.path, p.message.split(":")[0]) for p in f.problems] == [("b", "Preço (R$)")]
