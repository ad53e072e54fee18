"""Display formatting (pt-BR): money 'R$ 1.234,56', dates 'dd/mm/aaaa', stored instants 'dd/mm/aaaa hh:mm'
in the office's time zone (`moment_br`, the one display of a time), numbers '1.223.771,71', blanks '—'.

Only for display: stored values and exports keep their types. Every table a page
shows goes through `for_display`, so no cell reads 'None', 'nan', '<NA>' or 'NaT'.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, TypeVar

import pandas as pd

from valuation.core import clock  # not valuation.exports: it loads fpdf (~1 s) on a page's first import
from valuation.core.money import format_brl, format_count, format_date_br

BLANK = "—"
K = TypeVar("K")


def is_blank(v: object) -> bool:
    """None, pd.NA, NaN, NaT and empty/whitespace strings are blanks."""
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    if isinstance(v, str) and (not v.strip() or v.strip() in ("None", "nan", "NaN", "NaT", "<NA>")):
        return True
    try:
        return bool(pd.isna(v)) if not isinstance(v, (list, tuple, dict, set)) else False
    except (TypeError, ValueError):
        return False


def text(v: object) -> str:
    """Any value as display text; blanks become '—'."""
    return BLANK if is_blank(v) else str(v)


def number_br(v: object, places: int = 2) -> str:
    """1223771.71 → '1.223.771,71' (places decimals); blanks → '—'."""
    if is_blank(v):
        return BLANK
    try:
        d = v if isinstance(v, Decimal) else Decimal(str(v))
    except (InvalidOperation, ValueError):
        return str(v)
    q = f"{d:,.{places}f}"
    return q.replace(",", "\x00").replace(".", ",").replace("\x00", ".")


def count_br(n: object) -> str:
    """A whole number with pt-BR thousands dots: 24100 → '24.100'; blanks → '—'."""
    if is_blank(n):
        return BLANK
    # a number once not blank (pandas hands numpy ints and floats): the one count formatter
    return format_count(int(n))  # type: ignore[call-overload]


def brl(v: object) -> str:
    """'R$ 1.234,56'; blanks → '—'."""
    if is_blank(v):
        return BLANK
    return format_brl(v if isinstance(v, Decimal) else Decimal(str(v)))


def brl_nb(v: object) -> str:
    """'R$\u00a01.234,56': for running text, where 'R$' must not part from its amount at a line break."""
    return brl(v).replace("R$ ", "R$\u00a0")


_COMPACT = ((Decimal("1e12"), "tri"), (Decimal("1e9"), "bi"), (Decimal("1e6"), "mi"), (Decimal("1e3"), "mil"))


def brl_compact(v: object) -> str:
    """A headline amount that never gets cut: 1 484 321,10 → 'R$ 1,48 mi' (full amount: `brl`)."""
    if is_blank(v):
        return BLANK
    d = v if isinstance(v, Decimal) else Decimal(str(v))
    sign = "-" if d < 0 else ""
    a = abs(d)
    for scale, word in _COMPACT:
        if a >= scale:
            return f"{sign}R$ {number_br(a / scale, 2)} {word}"
    return format_brl(d)


def money_in(amount: object, currency: object = "BRL") -> str:
    """An amount in its currency, pt-BR: ('1582.4', 'BRL') → 'R$ 1.582,40', ('33716.38', 'USD') →
    'USD 33.716,38'; a blank amount → '—'."""
    if is_blank(amount):
        return BLANK
    code = "BRL" if is_blank(currency) else str(currency).upper()
    return brl(amount) if code == "BRL" else f"{code} {number_br(amount, 2)}"


def rate_br(v: object, places: int = 4) -> str:
    """An exchange rate with at least `places` decimals (more when stored): 5.412 → '5,4120'."""
    if is_blank(v):
        return BLANK
    d = v if isinstance(v, Decimal) else Decimal(str(v))
    exponent = d.normalize().as_tuple().exponent
    stored = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    return number_br(d, max(places, stored))


# How many characters of a headline amount fit on a metric card, by the number of cards in the row
# (wide layout with the sidebar open): 'R$ 1.484.623,16' is 15.
METRIC_CHARS = {3: 15, 4: 13, 5: 10}


def brl_fit(v: object, cards: int = 4) -> str:
    """A headline amount in full when it fits a card of a row of `cards`, else compact ('R$ 1,48 mi');
    give the full amount (`brl`) as the metric's help."""
    full = brl(v)
    return full if len(full) <= METRIC_CHARS.get(cards, 10) else brl_compact(v)


def date_br(v: object) -> str:
    """'dd/mm/aaaa'; a datetime (a stored instant) is `moment_br`'s 'dd/mm/aaaa hh:mm' in the office's
    time zone, unless it is a DATE read as a midnight datetime; blanks → '—'."""
    if is_blank(v):
        return BLANK
    if isinstance(v, pd.Timestamp):
        v = v.to_pydatetime()
    if isinstance(v, datetime):
        if v.tzinfo is None and v.hour == v.minute == v.second == 0 and v.microsecond == 0:
            return format_date_br(v.date())  # a DATE read as a midnight datetime
        return moment_br(v)
    if isinstance(v, date):
        return format_date_br(v)
    return str(v)


def moment_br(v: object, *, zone: bool = False) -> str:
    """THE display of a stored instant on a page: 'dd/mm/aaaa hh:mm' in the office's time zone
    (`VALUATION_TZ`, Brasília by default), with ' (horário de Brasília)' when `zone` — for a time in
    running text, where a reader could doubt it. Pass the stored value as read (naive UTC) or an aware
    instant, never a wall-clock time converted beforehand; blanks → '—'."""
    if is_blank(v):
        return BLANK
    if isinstance(v, pd.Timestamp):
        v = v.to_pydatetime()
    if not isinstance(v, datetime):
        return date_br(v)
    return clock.moment_text(v, zone=zone)


def day_br(v: object) -> str:
    """The office's calendar day of a stored instant, 'dd/mm/aaaa' (a round opened at 01:00 UTC opened the
    evening before in Brasília); blanks → '—'."""
    if is_blank(v):
        return BLANK
    if isinstance(v, pd.Timestamp):
        v = v.to_pydatetime()
    if not isinstance(v, datetime):
        return date_br(v)
    moment = clock.local(v)
    assert moment is not None
    return format_date_br(moment.date())


def zone_note() -> str:
    """'Horários de Brasília.' (or 'Horários no fuso …'): the caption of a table of times."""
    label = clock.zone_label()
    return "Horários de Brasília." if label == "horário de Brasília" else f"Horários no {label}."


def percent_br(v: object, places: int = 1) -> str:
    """A fraction as a percentage: 0.4 → '40,0 %'; blanks → '—'."""
    if is_blank(v):
        return BLANK
    d = v if isinstance(v, Decimal) else Decimal(str(v))
    return f"{number_br(d * 100, places)} %"


def yes_no(v: object) -> str:
    return "sim" if v is True else "não" if v is False else BLANK


def option_label(labels: Mapping[K, str]) -> Callable[[K], str]:
    """A choice widget's `format_func` that shows each option by its label in `labels` ({option: label};
    every option offered is a key)."""
    return labels.__getitem__


def for_display(df: pd.DataFrame, *, money: Iterable[str] = (), dates: Iterable[str] = (),
                moments: Iterable[str] = (), numbers: Mapping[str, int] | None = None, counts: Iterable[str] = (),
                labels: Mapping[str, Mapping[Any, str]] | None = None,
                rename: dict[str, str] | None = None, only: Iterable[str] | None = None) -> pd.DataFrame:
    """A copy for st.dataframe: money/dates/numbers/counts as pt-BR text, stored instants (`moments`) in the
    office's time zone (`moment_br`), codes through `labels`
    ({column: {code: label}}), columns renamed, and every remaining blank shown as '—'.

    `only` keeps just those columns (in that order) before renaming, so internal columns never show."""
    out = df.copy() if only is None else df[[c for c in only if c in df.columns]].copy()
    for col in money:
        if col in out.columns:
            out[col] = [brl(v) for v in out[col].tolist()]
    for col in dates:
        if col in out.columns:
            out[col] = [date_br(v) for v in out[col].tolist()]
    for col in moments:
        if col in out.columns:
            out[col] = [moment_br(v) for v in out[col].tolist()]
    for col, places in (numbers or {}).items():
        if col in out.columns:
            out[col] = [number_br(v, places) for v in out[col].tolist()]
    for col in counts:
        if col in out.columns:
            out[col] = [count_br(v) for v in out[col].tolist()]
    for col, mapping in (labels or {}).items():
        if col in out.columns:
            out[col] = [BLANK if is_blank(v) else mapping.get(v, str(v)) for v in out[col].tolist()]
    for col in out.columns:
        series = out[col]
        if series.dtype == object or str(series.dtype) in ("string", "str") or series.isna().any():
            values = series.tolist()
            if any(is_blank(v) for v in values):
                out[col] = [text(v) if is_blank(v) else v for v in values]
    if rename:
        out = out.rename(columns={k: v for k, v in rename.items() if k in out.columns})
    return out


# Plotly map outlines are served by the app itself (static/topojson, Streamlit static serving),
# so maps draw on a closed network; the relative URL also works under a proxy's base path.
GEO_CONFIG = {"topojsonURL": "./app/static/topojson/"}
