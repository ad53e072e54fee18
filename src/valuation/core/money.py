"""Money: Decimal amounts, one rounding to the cent (half-up), pt-BR formatting.

Amounts are never floats. Every computed amount is rounded once, at the end,
with `to_cents`; intermediate products stay exact Decimals.
"""
from __future__ import annotations

from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from valuation.core.errors import InputError, Problem

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


def parse_amount(text: object) -> Decimal | None:
    """An amount as people type it — '1.234,56', '1234,56', 'R$ 1.234', or the plain '1234.56' —
    as an exact Decimal; None for anything else: mixed separators that could be read two ways
    ('1001.76,41'), more than two decimals, a sign, non-ASCII digits. Never guesses: `parse_brl`
    (the one parser) without its message, for amounts that may not be negative."""
    if isinstance(text, Decimal):
        return text
    if not isinstance(text, str):
        return None
    try:
        return parse_brl(text, minimum=ZERO)
    except InputError:
        return None


def format_brl(amount: Decimal | None, *, symbol: bool = True) -> str:
    """'R$ 1.234,56' (pt-BR). Negative amounts as '-R$ 1.234,56'."""
    if amount is None:
        return "—"
    q = to_cents(amount)
    sign = "-" if q < 0 else ""
    whole, frac = f"{abs(q):.2f}".split(".")
    groups: list[str] = []
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


def format_datetime_br(moment: datetime, *, seconds: bool = False) -> str:
    """'dd/mm/aaaa hh:mm' (with ':ss' when `seconds`) of the moment as given: the caller converts
    to Brasília time first where the moment is a stored UTC one (core.clock.brasilia)."""
    return f"{format_date_br(moment.date())} {moment:%H:%M:%S}" if seconds else \
        f"{format_date_br(moment.date())} {moment:%H:%M}"


def format_share(share: Decimal | None) -> str:
    """'40,00 %'."""
    if share is None:
        return "—"
    return f"{(share * 100).quantize(CENT, rounding=ROUND_HALF_UP)}".replace(".", ",") + " %"


def format_count(n: int) -> str:
    """A whole number with pt-BR thousands dots: 5361 → '5.361' (documents; the UI has ui.fmt.count_br)."""
    return f"{int(n):,}".replace(",", ".")


# -- reading an amount typed the pt-BR way ------------------------------------------------------
# The widest amount the store keeps: DECIMAL(18,2). The one money maximum of the package.
MAX_AMOUNT = Decimal("9999999999999999.99")
BRL_EXAMPLE = "1.234,56"
_MAX_TYPED = 40      # characters: '9.999.999.999.999.999,99' is 24; more is a typing error or an attack


def parse_brl(text: object, *, path: str = "valor", label: str = "Valor (R$)", minimum: Decimal | None = ZERO,
              maximum: Decimal = MAX_AMOUNT, places: int = 2) -> Decimal:
    """An amount typed the pt-BR way as an exact Decimal — '1.234,56', '1234,56', 'R$ 1.234', ',5',
    '-10' — or the plain '1234.56'; a Decimal or an int as it is.

    Never guesses: mixed separators ('1001.76,41', '1,234.56'), misplaced thousands dots
    ('12.34.567'), a float, non-ASCII digits, more than `places` decimals, or an amount outside
    [minimum, maximum] raise InputError naming `path`, with a pt-BR message that starts with
    `label`. One point followed by exactly three digits ('1.234') is a thousands dot, as in pt-BR.
    """
    def bad(message: str) -> InputError:
        return InputError(Problem(path, f"{label}: {message}"))

    if text is None or (isinstance(text, str) and not text.strip()):
        raise bad("informe o valor.")
    value: Decimal | None = None
    if isinstance(text, (bool, float)):
        raise bad(f"informe o valor como texto ou número decimal exato (ex.: {BRL_EXAMPLE}).")
    if isinstance(text, int):
        value = Decimal(text) if abs(text) < 10 ** 30 else None
    elif isinstance(text, Decimal):
        value = text if text.is_finite() else None
    elif isinstance(text, str):
        value = _read_brl(text)
    if value is None:
        raise bad(f"deve ser um valor em reais como {BRL_EXAMPLE} (vírgula para os centavos, ponto só "
                  "para separar os milhares).")
    step = Decimal(1).scaleb(-places)
    if value != value.quantize(step, rounding=ROUND_HALF_UP):
        raise bad(f"no máximo {places} casas decimais.")
    if (minimum is not None and value < minimum) or value > maximum:
        low = "" if minimum is None else f"de {format_brl(minimum, symbol=False)} "
        raise bad(f"deve ser um valor {low}até {format_brl(maximum, symbol=False)}.")
    value = value.quantize(step)
    return value.copy_abs() if value == 0 else value   # never -0.00


def _read_brl(text: str) -> Decimal | None:
    """The Decimal a pt-BR amount string spells; None when it spells none."""
    t = text.strip()
    if len(t) > _MAX_TYPED:
        return None
    t = t.removeprefix("R$").strip()
    sign = ""
    if t[:1] in ("-", "\u2212"):
        sign, t = "-", t[1:].strip()
    if not t or not t.isascii() or not any(c.isdigit() for c in t):
        return None
    whole, comma, cents = t.partition(",")
    if comma:
        if not cents.isdigit() or "." in cents:
            return None
    elif whole.count(".") == 1 and len(whole.partition(".")[2]) != 3:
        head, _, tail = whole.partition(".")      # '1234.56': a decimal point, no grouping can explain it
        return Decimal(sign + head + "." + tail) if head.isdigit() and tail.isdigit() else None
    if not _grouped(whole):
        return None
    return Decimal(sign + (whole.replace(".", "") or "0") + ("." + cents if comma else ""))


def _grouped(whole: str) -> bool:
    """Digits ('' too, as in ',5'), or thousands groups: 1 to 3 digits, then '.ddd' groups."""
    if "." not in whole:
        return whole == "" or whole.isdigit()
    head, *groups = whole.split(".")
    return head.isdigit() and len(head) <= 3 and all(len(g) == 3 and g.isdigit() for g in groups)
