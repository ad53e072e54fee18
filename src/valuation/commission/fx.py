"""Exchange rates: converting a member's price in a foreign currency to BRL (rules.md §2).

The Commission attributes values "considering international market prices"
(Lei 7.542/1986 art. 20 §3; art. 21 §2), so a member may enter a price in a
foreign currency together with the date of the price. Conversion uses a stored
rate table (e.g. the Central Bank PTAX rate of that date):

* the rate of the price date, or else the rate of the latest *earlier* date;
* never a rate of a later date (it did not exist when the price was given);
* no rate on or before the price date → `NoRateError`;
* BRL needs no rate (factor 1, no `Rate` used).

The converted amount is exact (`amount × rate`, no rounding); the caller rounds
once, at the end (cli.md: "Converted amounts stay exact").
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal, Inexact, Rounded

from valuation.core.errors import InputError

BRL = "BRL"
CURRENCY_RE = re.compile(r"^[A-Z]{3}$")

# Additions and multiplications in this context are exact (Python's decimal docs:
# "exact arithmetic" with MAX_PREC); Inexact/Rounded are trapped as a safety net.
EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[Inexact, Rounded])


def is_currency_code(code: object) -> bool:
    """Three upper-case letters (ISO 4217 style), e.g. 'USD', 'EUR', 'BRL'."""
    return isinstance(code, str) and bool(CURRENCY_RE.match(code))


class FxError(InputError):
    """A rate table or a conversion that cannot be used (bad input to the conversion: an InputError)."""


class NoRateError(FxError):
    """No rate of `currency` on or before `price_date` (a later rate is never used)."""

    def __init__(self, currency: str, price_date: date, *, known_currency: bool):
        self.currency = currency
        self.price_date = price_date
        self.known_currency = known_currency
        super().__init__(f"no {currency} rate on or before {price_date.isoformat()}")


@dataclass(frozen=True)
class Rate:
    """BRL per one unit of `currency` on `date` (e.g. PTAX USD 2025-03-10 = 5.7810)."""

    currency: str
    date: date
    brl: Decimal

    def __post_init__(self) -> None:
        if not is_currency_code(self.currency):
            raise FxError(f"currency must be three upper-case letters, not {self.currency!r}")
        if self.currency == BRL:
            raise FxError("BRL needs no rate")
        if not isinstance(self.date, date):
            raise FxError("rate date must be a date")
        if not isinstance(self.brl, Decimal) or not self.brl.is_finite() or self.brl <= 0:
            raise FxError(f"rate must be a positive Decimal, not {self.brl!r}")


class RateTable:
    """Rates by currency and date, looked up 'on or before' the price date."""

    def __init__(self, rates: Iterable[Rate] = ()):
        by_currency: dict[str, dict[date, Rate]] = {}
        for r in rates:
            day = by_currency.setdefault(r.currency, {})
            if r.date in day and day[r.date].brl != r.brl:
                raise FxError(f"two different {r.currency} rates for {r.date.isoformat()}")
            day[r.date] = r
        self._dates: dict[str, list[date]] = {c: sorted(d) for c, d in by_currency.items()}
        self._rates: dict[str, dict[date, Rate]] = by_currency

    def currencies(self) -> frozenset[str]:
        return frozenset(self._dates)

    def knows(self, currency: str) -> bool:
        """True for BRL and for any currency with at least one rate."""
        return currency == BRL or currency in self._dates

    def rate_for(self, currency: str, price_date: date) -> Rate:
        """The rate of `price_date`, else of the latest earlier date; never a later one.

        Raises NoRateError when the table holds no rate of `currency` on or before
        `price_date`. BRL has no rate (use `to_brl`, which needs none).
        """
        if currency == BRL:
            raise FxError("BRL needs no rate")
        dates = self._dates.get(currency)
        if not dates:
            raise NoRateError(currency, price_date, known_currency=False)
        i = bisect_right(dates, price_date)  # dates[:i] are all <= price_date
        if i == 0:
            raise NoRateError(currency, price_date, known_currency=True)
        return self._rates[currency][dates[i - 1]]

    def to_brl(self, amount: Decimal, currency: str, price_date: date) -> tuple[Decimal, Rate | None]:
        """`amount` in BRL, exact (no rounding), with the Rate used (None for BRL)."""
        if not isinstance(amount, Decimal) or not amount.is_finite():
            raise FxError(f"amount must be a finite Decimal, not {amount!r}")
        if not is_currency_code(currency):
            raise FxError(f"currency must be three upper-case letters, not {currency!r}")
        if currency == BRL:
            return amount, None
        rate = self.rate_for(currency, price_date)
        return EXACT.multiply(amount, rate.brl), rate
