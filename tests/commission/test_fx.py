"""Exchange-rate lookup: on the price date or the latest earlier date, never a later one."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from valuation.commission.fx import FxError, NoRateError, Rate, RateTable
from valuation.core.errors import InputError

D = Decimal
MAR = lambda day: date(2025, 3, day)  # noqa: E731

TABLE = RateTable([
    Rate("USD", MAR(10), D("5.7810")),
    Rate("USD", MAR(14), D("5.9000")),
    Rate("USD", MAR(3), D("5.5000")),   # out of order on purpose
    Rate("EUR", MAR(11), D("6.2500")),
])


@pytest.mark.parametrize("currency, price_date, want_date, want_brl", [
    ("USD", MAR(10), MAR(10), "5.7810"),   # the rate of that very date
    ("USD", MAR(12), MAR(10), "5.7810"),   # latest earlier date, not the later 03-14
    ("USD", MAR(13), MAR(10), "5.7810"),   # the day before a later rate
    ("USD", MAR(14), MAR(14), "5.9000"),
    ("USD", MAR(31), MAR(14), "5.9000"),
    ("USD", MAR(9), MAR(3), "5.5000"),
    ("EUR", MAR(20), MAR(11), "6.2500"),
])
def test_rate_on_or_before(currency, price_date, want_date, want_brl):
    rate = TABLE.rate_for(currency, price_date)
    assert rate.date == want_date
    assert rate.brl == D(want_brl)
    assert rate.date <= price_date


@pytest.mark.parametrize("currency, price_date, known", [
    ("USD", MAR(2), True),    # later USD rates exist, none on or before
    ("EUR", MAR(10), True),   # the only EUR rate is one day later
    ("GBP", MAR(20), False),  # no GBP rate at all
])
def test_no_rate_on_or_before_is_an_error(currency, price_date, known):
    with pytest.raises(NoRateError) as info:
        TABLE.rate_for(currency, price_date)
    assert isinstance(info.value, InputError)      # rooted in the error tree (core/errors.py), not a ValueError
    assert info.value.known_currency is known
    assert str(info.value) == f"no {currency} rate on or before {price_date.isoformat()}"


def test_brl_needs_no_rate():
    amount = D("1234.5678")
    assert RateTable().to_brl(amount, "BRL", MAR(1)) == (amount, None)
    with pytest.raises(FxError):
        TABLE.rate_for("BRL", MAR(12))


def test_conversion_is_exact():
    brl, rate = TABLE.to_brl(D("0.01"), "USD", MAR(12))
    assert rate == Rate("USD", MAR(10), D("5.7810"))
    assert brl == D("0.057810")
    # 30 significant digits: more than the default Decimal context keeps
    big = D("123456789012345678901234.56")
    brl, _ = RateTable([Rate("USD", MAR(1), D("5.123457"))]).to_brl(big, "USD", MAR(1))
    # independent check with integer arithmetic: cents × millionths → 10^-8
    assert brl == D(f"{12345678901234567890123456 * 5123457}e-8")
    assert brl == D("632525549862825554986282.51507392")


@pytest.mark.parametrize("currency, brl", [("usd", "5"), ("US", "5"), ("BRL", "1"), ("USD", "0"), ("USD", "-1")])
def test_bad_rates_are_refused(currency, brl):
    with pytest.raises(FxError):
        Rate(currency, MAR(1), D(brl))


def test_two_different_rates_for_one_day_are_refused_identical_ones_are_not():
    with pytest.raises(FxError):
        RateTable([Rate("USD", MAR(1), D("5.0")), Rate("USD", MAR(1), D("5.1"))])
    t = RateTable([Rate("USD", MAR(1), D("5.0")), Rate("USD", MAR(1), D("5.00"))])
    assert t.rate_for("USD", MAR(1)).brl == 5


def test_currency_code_is_checked_on_conversion():
    with pytest.raises(FxError):
        TABLE.to_brl(D("1"), "usd", MAR(12))


@given(st.sets(st.integers(min_value=0, max_value=60), min_size=1, max_size=15),
       st.integers(min_value=-5, max_value=70))
def test_never_a_later_rate(offsets, query):
    start = date(2024, 1, 1)
    table = RateTable([Rate("USD", start + timedelta(o), D(o + 1)) for o in offsets])
    price_date = start + timedelta(query)
    earlier = [o for o in offsets if o <= query]
    if not earlier:
        with pytest.raises(NoRateError):
            table.rate_for("USD", price_date)
    else:
        assert table.rate_for("USD", price_date).date == start + timedelta(max(earlier))
