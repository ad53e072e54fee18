"""Reading a date or a month typed the Brazilian way, exactly as typed (issue 23, items 3 and 11).

A date field never changes what the person typed: `parse_date_br` reads `dd/mm/aaaa` (one- or
two-digit day and month, four-digit year, ASCII digits) or the ISO `aaaa-mm-dd`, and refuses —
never clamps, never rolls over — an impossible day (31/02/2026) or a day outside the field's
range (01/01/2099 where the field ends today), with a pt-BR message that names the field and the
range allowed. `parse_month` reads a reference month as `MM/AAAA` (the Brazilian form) or
`AAAA-MM`. Pure: no clock (the caller passes the range), no database.
"""
from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import date, datetime

from valuation.core.errors import InputError, Problem
from valuation.core.money import format_date_br

# The widest range any date field takes (the calendars' years, issue 14's bound of the deadlines).
EARLIEST = date(1900, 1, 1)
LATEST = date(2100, 12, 31)
DATE_PLACEHOLDER = "dd/mm/aaaa"
MONTH_PLACEHOLDER = "mm/aaaa"
MONTHS_PT = ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro",
             "outubro", "novembro", "dezembro")

_BR = re.compile(r"([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})")
_ISO = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_MONTH_BR = re.compile(r"([0-9]{1,2})/([0-9]{4})")
_MONTH_ISO = re.compile(r"([0-9]{4})-([0-9]{2})")
_MAX_TYPED = 30


def range_text(minimum: date, maximum: date) -> str:
    """'de 01/01/1900 a 17/03/2026'."""
    return f"de {format_date_br(minimum)} a {format_date_br(maximum)}"


def parse_date_br(text: object, *, label: str, path: str = "data", minimum: date | None = None,
                  maximum: date | None = None, required: bool = False) -> date | None:
    """The day `text` spells ('17/03/2026', '7/3/2026', '2026-03-17'; a `date` as it is); None for a
    blank when not `required`. InputError naming `path`, with a message starting with `label` and
    giving the range allowed, for anything else: an impossible day, a day outside [minimum, maximum]
    (default 01/01/1900 … 31/12/2100), another form."""
    low, high = minimum or EARLIEST, maximum or LATEST
    allowed = range_text(low, high)

    def bad(message: str) -> InputError:
        return InputError(Problem(path, f"{label}: {message}"))

    if isinstance(text, date):
        day = text.date() if isinstance(text, datetime) else text
    elif text is None or (isinstance(text, str) and not text.strip()):
        if required:
            raise bad(f"campo obrigatório (dd/mm/aaaa, {allowed}).")
        return None
    elif not isinstance(text, str) or len(text) > _MAX_TYPED:
        raise bad(f"informe a data como dd/mm/aaaa ({allowed}).")
    else:
        day = _spelled_day(text.strip(), bad, allowed)
    if not low <= day <= high:
        raise bad(f"{format_date_br(day)} está fora do intervalo permitido ({allowed}).")
    return day


def _spelled_day(t: str, bad: Callable[[str], InputError], allowed: str) -> date:
    m = _BR.fullmatch(t)
    if m:
        d, mo, y = int(m[1]), int(m[2]), int(m[3])
    elif (m := _ISO.fullmatch(t)) is not None:
        y, mo, d = int(m[1]), int(m[2]), int(m[3])
    else:
        raise bad(f"“{t}” não é uma data no formato dd/mm/aaaa ({allowed}).")
    if not 1 <= mo <= 12:
        raise bad(f"“{t}” não existe: o mês vai de 1 a 12 (informe uma data {allowed}).")
    last = calendar.monthrange(y, mo)[1]
    if not 1 <= d <= last:
        raise bad(f"“{t}” não existe: {MONTHS_PT[mo - 1]} de {y:04d} tem {last} dias (informe uma data {allowed}).")
    return date(y, mo, d)


def parse_month(text: object) -> date | None:
    """The first day of the month `text` spells: 'MM/AAAA' ('06/2025', '6/2025') or 'AAAA-MM' ('2025-06');
    a `date` gives its month; None for anything else (the caller names what is wrong)."""
    if isinstance(text, date):
        return date(text.year, text.month, 1)
    if not isinstance(text, str) or len(text) > _MAX_TYPED:
        return None
    t = text.strip()
    m = _MONTH_BR.fullmatch(t)
    if m:
        month, year = int(m[1]), int(m[2])
    elif (m := _MONTH_ISO.fullmatch(t)) is not None:
        year, month = int(m[1]), int(m[2])
    else:
        return None
    if not 1 <= month <= 12 or not EARLIEST.year <= year <= LATEST.year:
        return None
    return date(year, month, 1)


def month_br(d: date) -> str:
    """'06/2025': a month as the forms show it."""
    return f"{d.month:02d}/{d.year:04d}"
