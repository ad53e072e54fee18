"""Dates and months typed the Brazilian way, read exactly as typed (issue 23, items 3 and 11)."""
from __future__ import annotations

from datetime import date

import pytest

from valuation.core.dates import parse_date_br, parse_month
from valuation.core.errors import InputError

TODAY = date(2026, 3, 17)


@pytest.mark.parametrize(("typed", "expected"), [
    ("17/03/2026", date(2026, 3, 17)), ("7/3/2026", date(2026, 3, 7)), (" 29/02/2024 ", date(2024, 2, 29)),
    ("2026-03-17", date(2026, 3, 17)), (date(2025, 1, 2), date(2025, 1, 2)), ("", None), (None, None),
])
def test_a_day_is_read_as_typed(typed: object, expected: date | None) -> None:
    assert parse_date_br(typed, label="Data do preço", maximum=TODAY) == expected


@pytest.mark.parametrize(("typed", "says"), [
    ("31/02/2026", "fevereiro de 2026 tem 28 dias"),     # never 28/02/2026
    ("30/02/2026", "fevereiro de 2026 tem 28 dias"),
    ("29/02/2025", "fevereiro de 2025 tem 28 dias"),
    ("31/04/2026", "abril de 2026 tem 30 dias"),
    ("00/01/2026", "janeiro de 2026 tem 31 dias"),
    ("12/13/2026", "o mês vai de 1 a 12"),
    ("01/01/2099", "01/01/2099 está fora do intervalo permitido"),   # never the widget's maximum
    ("18/03/2026", "18/03/2026 está fora do intervalo permitido"),
    ("31/12/1899", "fora do intervalo permitido"),
    ("17.03.2026", "não é uma data no formato dd/mm/aaaa"),
    ("17/03/26", "não é uma data no formato dd/mm/aaaa"),
    ("１7/03/2026", "não é uma data no formato dd/mm/aaaa"),       # full-width digit
    ("17/03/2026 10:00", "não é uma data no formato dd/mm/aaaa"),
])
def test_an_impossible_or_out_of_range_day_is_refused_naming_the_field_and_the_range(typed: str, says: str) -> None:
    with pytest.raises(InputError) as err:
        parse_date_br(typed, label="Data do preço", path="price_date", maximum=TODAY)
    problem, = err.value.problems
    assert problem.path == "price_date"
    assert problem.message.startswith("Data do preço: ") and says in problem.message
    assert "de 01/01/1900 a 17/03/2026" in problem.message


def test_a_required_day_left_blank_is_refused() -> None:
    with pytest.raises(InputError, match="Data do evento: campo obrigatório"):
        parse_date_br(" ", label="Data do evento", required=True)


@pytest.mark.parametrize(("typed", "expected"), [
    ("06/2025", date(2025, 6, 1)), ("6/2025", date(2025, 6, 1)), ("2025-06", date(2025, 6, 1)),
    (" 12/2024 ", date(2024, 12, 1)), (date(2025, 6, 30), date(2025, 6, 1)),
    ("13/2025", None), ("2025-13", None), ("00/2025", None), ("06/25", None), ("junho/2025", None), ("", None),
])
def test_a_reference_month_is_mm_aaaa_or_aaaa_mm(typed: object, expected: date | None) -> None:
    assert parse_month(typed) == expected
