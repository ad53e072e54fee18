"""Shared cell helpers for the writers: missing values, control characters, pt-BR display.

Private to `valuation.exports`; callers use the writers.
"""
from __future__ import annotations

import math
import numbers
import unicodedata
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any, TypeGuard

import numpy as np
import pandas as pd

from valuation.core.money import format_brl, format_date_br, format_datetime_br

# The categories removed from user text: control characters (Cc: C0, DEL, C1) and
# lone surrogates (Cs), which no file format here can carry. Newlines are kept
# where the caller allows them.
_DROPPED_CATEGORIES = frozenset({"Cc", "Cs"})


def is_missing(value: object) -> bool:
    """True for None, pandas NA/NaT and NaN: written as an empty cell."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    kind = type(value)
    if kind is str or kind is int or kind is bool or kind is date:  # the common cells, fast
        return False
    if kind is float:
        return value != value
    if isinstance(value, Decimal):
        return value.is_nan()
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        return math.isnan(float(value))
    return False


def is_bool(value: object) -> bool:
    """Python or numpy booleans."""
    return isinstance(value, (bool, np.bool_))


# The numbers a cell may hold: what `is_number` lets through and `decimal_text` writes.
Number = Decimal | float | int | np.integer[Any] | np.floating[Any]


def is_number(value: object) -> TypeGuard[Number]:
    """int, Decimal, float and numpy numbers — but not booleans."""
    kind = type(value)
    if kind is int or kind is float or kind is Decimal:
        return True
    return isinstance(value, numbers.Number) and not is_bool(value)


def clean_text(text: object, *, multiline: bool = True) -> str:
    """User text without control characters: CRLF/CR become LF, TAB a space.

    With ``multiline=False`` line breaks become spaces too (titles, headers).
    """
    s = str(text).replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    if not multiline:
        s = s.replace("\n", " ")
    return "".join(
        ch for ch in s if ch == "\n" or unicodedata.category(ch) not in _DROPPED_CATEGORIES
    )


def is_midnight(value: datetime) -> bool:
    return value.time() == time(0, 0)


def decimal_text(value: Number, decimal_sep: str) -> str:
    """A plain number with the given decimal separator, no grouping: '-1234,50'.

    Decimals are written in fixed notation with their own digits (exact);
    floats with their shortest round-trip representation.
    """
    if isinstance(value, Decimal):
        s = format(value, "f")
    elif isinstance(value, numbers.Integral):
        s = str(int(value))
    else:
        s = repr(float(value))
        if "e" in s or "E" in s:
            s = format(Decimal(s), "f")
    return s.replace(".", decimal_sep)


def display_text(value: object, *, date_only: bool = False) -> str:
    """How a value reads in a PDF (pt-BR).

    None/NA -> '—'; Decimal -> money 'R$ 1.234,56' (format other decimals, such as
    shares or quantities, yourself and pass a str); date -> 'dd/mm/aaaa';
    datetime -> 'dd/mm/aaaa HH:MM' (or just the date when ``date_only``);
    int -> digits without grouping (ids, years); float -> decimal comma;
    bool -> 'Sim'/'Não'; anything else -> its text, cleaned of control characters.
    """
    if is_missing(value):
        return "—"
    if is_bool(value):
        return "Sim" if value else "Não"
    if isinstance(value, Decimal):
        return format_brl(value)
    if isinstance(value, datetime):
        if date_only or is_midnight(value):
            return format_date_br(value.date())
        return format_datetime_br(value)
    if isinstance(value, date):
        return format_date_br(value)
    if is_number(value):
        return decimal_text(value, ",")
    return clean_text(value)
