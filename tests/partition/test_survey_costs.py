"""Survey-cost deduction (rules.md §5; NORMAM-10 0303 c 2 I, 0301 a 6 and c)."""
from __future__ import annotations

from decimal import Decimal as D

import pytest

from valuation.partition.survey_costs import CostLine, accepted_cost, survey_deduction

# (name, planned, actual, approved_overrun, expected accepted, expected variance)
LINES = [
    ("overrun approved in part", "10000.00", "12000.00", "500.00", "10500.00", "2000.00"),
    ("overrun approved beyond what was spent", "100.00", "120.00", "50.00", "120.00", "20.00"),
    ("overrun not approved", "100.00", "120.00", "0", "100.00", "20.00"),
    ("actual below plan", "3000.00", "2500.00", "0", "2500.00", "-500.00"),
    ("actual below plan despite approval", "3000.00", "2500.00", "900.00", "2500.00", "-500.00"),
    ("nothing spent", "3000.00", "0.00", "0", "0.00", "-3000.00"),
]


@pytest.mark.parametrize("name,planned,actual,overrun,accepted,variance", LINES, ids=[x[0] for x in LINES])
def test_line_rule(name, planned, actual, overrun, accepted, variance):
    line = CostLine(name, D(planned), D(actual), D(overrun))
    assert accepted_cost(line) == D(accepted)
    res = survey_deduction([line], D("1000000.00"), winner_is_surveyor=False)
    (stated,) = res.lines
    assert (stated.planned, stated.actual, stated.accepted, stated.variance) == \
        (D(planned), D(actual), D(accepted), D(variance))
    assert res.deduction == D(accepted) and res.uncovered == 0


def sheet():
    return [CostLine("vessel", D("10000.00"), D("12000.00"), D("500.00")),
            CostLine("sonar", D("3000.00"), D("2500.00"), D("0"))]


@pytest.mark.parametrize("gross,deduction,uncovered", [
    ("45500.30", "13000.00", "0.00"),   # enough to cover everything
    ("13000.00", "13000.00", "0.00"),   # exactly enough
    ("5000.00", "5000.00", "8000.00"),  # small gross: remainder reported, never negative
    ("0.00", "0.00", "13000.00"),
])
def test_deduction_capped_by_gross(gross, deduction, uncovered):
    res = survey_deduction(sheet(), D(gross), winner_is_surveyor=False)
    assert res.applies
    assert res.accepted_total == D("13000.00")
    assert res.deduction == D(deduction) and res.uncovered == D(uncovered)
    assert res.deduction + res.uncovered == res.accepted_total
    assert res.basis and "0303" in res.basis[0]


def test_nothing_when_winner_is_the_surveyor():
    res = survey_deduction(sheet(), D("45500.30"), winner_is_surveyor=True)
    assert not res.applies
    assert res.deduction == 0 and res.uncovered == 0 and res.accepted_total == 0
    assert [ln.accepted for ln in res.lines] == [D("10500.00"), D("2500.00")]  # still stated


def test_empty_sheet():
    res = survey_deduction([], D("100.00"), winner_is_surveyor=False)
    assert res.lines == () and res.deduction == 0 and res.uncovered == 0


@pytest.mark.parametrize("line,gross", [
    (CostLine("x", D("-1"), D("1"), D("0")), D("10")),
    (CostLine("x", D("1"), D("-1"), D("0")), D("10")),
    (CostLine("x", D("1"), D("1"), D("-1")), D("10")),
    (CostLine("x", D("1"), D("1"), D("0")), D("-10")),
])
def test_negative_amounts_rejected(line, gross):
    with pytest.raises(ValueError):
        survey_deduction([line], gross, winner_is_surveyor=False)
