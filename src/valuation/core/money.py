"""Money: Decimal amounts, one rounding to the cent (half-up), pt-BR formatting.

Amounts are never floats. Every computed amount is rounded once, at the end,
with `to_cents`; intermediate products stay exact Decimals.
"""
from __future__ import annotations

import re
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


def to_cents(amount: Decimal) -> Decimal:
    """Round once to the cent, half-up (cli.md: 'rounded once, to the cent, half-up')."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def as_decimal(value: object) -> Decimal:
    """Exact Decimal from a str/int/Decimal (never from a float: floats are refused)."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, bool) or isinstance(value, float):
        raise TypeError(f"money must not be {type(value).__name__}")
    try:
        return Decimal(str(value))
    except InvalidOperation as exc:
        raise ValueError(f"not a decimal: {value!r}") from exc


def amount_str(amount: Decimal | None) -> str | None:
    """A JSON money string with exactly two decimals ('1234.50'), or None; zero is
    always '0.00', never '-0.00'."""
    if amount is None:
        return None
    q = to_cents(amount)
    return str(q.copy_abs() if q == 0 else q)  # never '-0.00'


_PT_BR_AMOUNT = re.compile(r"(?:[0-9]{1,3}(?:\.[0-9]{3})+|[0-9]+)(?:,[0-9]{1,2})?")
_PLAIN_AMOUNT = re.compile(r"[0-9]+(?:\.[0-9]{1,2})?")


def parse_amount(text: object) -> Decimal | None:
    """An amount as people type it — '1.234,56', '1234,56', 'R$ 1.234', or the plain '1234.56' —
    as an exact Decimal; None for anything else: mixed separators that could be read two ways
    ('1001.76,41'), more than two decimals, a sign, non-ASCII digits. Never guesses."""
    if isinstance(text, Decimal):
        return text
    if not isinstance(text, str):
        return None
    t = text.strip().removeprefix("R$").strip()
    if _PLAIN_AMOUNT.fullmatch(t) and "," not in t and t.count(".") <= 1 and not _PT_BR_AMOUNT.fullmatch(t):
        return Decimal(t)
    if _PT_BR_AMOUNT.fullmatch(t):
        return Decimal(t.replace(".", "").replace(",", "."))
    return None


def format_brl(amount: Decimal | None, *, symbol: bool = True) -> str:
    """'R$ 1.234,56' (pt-BR). Negative amounts as '-R$ 1.234,56'."""
    if amount is None:
        return "—"
    q = to_cents(amount)
    sign = "-" if q < 0 else ""
    whole, frac = f"{abs(q):.2f}".split(".")
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    body = ".".join(groups) + "," + frac
    return f"{sign}R$ {body}" if symbol else f"{sign}{body}"


def format_date_br(d: date | None) -> str:
    """'dd/mm/aaaa', zero-padded for any year (strftime leaves year 1 as '1'); '—' for None.
    The one date formatter of the package (pages: ui.fmt.date_br)."""
    return "—" if d is None else f"{d.day:02d}/{d.month:02d}/{d.year:04d}"


def format_share(share: Decimal | None) -> str:
    """'40,00 %'."""
    if share is None:
        return "—"
    return f"{(share * 100).quantize(CENT, rounding=ROUND_HALF_UP)}".replace(".", ",") + " %"


def format_count(n: int) -> str:
    """A whole number with pt-BR thousands dots: 5361 → '5.361' (documents; the UI has ui.fmt.count_br)."""
    return f"{int(n):,}".replace(",", ".")
