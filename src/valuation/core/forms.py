"""Reading a form (a Mapping from a page or an import) with every problem named by field, in pt-BR.

The store's write functions (`create_wreck`, `create_organisation`, …) read their
`data` through a `Form`: each accessor converts one field or records a Problem
(`path` = the field key, `message` = pt-BR text that starts with the field's
label), and `done()` raises `InputError` with all of them, before anything is
written. Empty strings count as missing. Unknown keys are problems too, so a
misspelt field is never silently dropped.

A single-line field (`Form.text`: one of at most `SINGLE_LINE_MAX` characters, or `multiline=False`)
refuses every control, format and line/paragraph separator character (issue 45, item 12: CR/LF and U+2028
in an owner's name): such a value breaks every line-oriented place it reaches — a CSV row, a log line, an
e-mail header, an iCalendar line. A longer field is a text (a description, notes: a text area) and keeps
its line breaks.

Widgets give floats for numbers: positions and depths accept them (through
their shortest repr); money never does (use `money.as_decimal`).
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from valuation.core.errors import InputError, Problem

# ASCII digits only: a regex \d, int() and Decimal() also take "１２３" and "١٢٣" (issue 14)
_ISO_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_BR_DATE = re.compile(r"^[0-9]{2}/[0-9]{2}/[0-9]{4}$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")

# Brazilian federative units (for addresses and offices).
UFS: tuple[str, ...] = (
    "AC", "AL", "AM", "AP", "BA", "CE", "DF", "ES", "GO", "MA", "MG", "MS", "MT", "PA", "PB",
    "PE", "PI", "PR", "RJ", "RN", "RO", "RR", "RS", "SC", "SE", "SP", "TO",
)


def _fmt_number(d: Decimal | int) -> str:
    return str(d).replace(".", ",")


# No field of this product holds more than 18 digits (DECIMAL(18,2), BIGINT); anything longer is a
# typing error or an attack, refused before Python's int/Decimal machinery sees it (int() of a
# 5 000-digit string raises, Decimal('1E+999999') is costly to convert).
MAX_DIGITS = 24
MAX_QUOTED = 60
# A text field of at most this many characters is one line (names 200, addresses 300, codes, phones, e-mails);
# a longer one is a text that may hold line breaks (descriptions 500–2 000, notes 1 000–4 000).
SINGLE_LINE_MAX = 300
# Unicode categories no single line holds: controls (CR, LF, TAB, NUL, ESC, NEL…), format characters
# (zero-width, direction marks and overrides, soft hyphen, BOM) and the line and paragraph separators.
_NOT_IN_A_LINE = frozenset({"Cc", "Cf", "Zl", "Zp"})


def excerpt(value: object) -> str:
    """The value as quoted in a message: at most MAX_QUOTED characters."""
    text = str(value)
    return text if len(text) <= MAX_QUOTED else text[:MAX_QUOTED] + "…"


def not_in_a_line(text: str) -> tuple[int, str] | None:
    """(position from 1, the character) of the first character a single line may not hold, or None."""
    for at, ch in enumerate(text, 1):
        if unicodedata.category(ch) in _NOT_IN_A_LINE:
            return at, ch
    return None


class Form:
    """One form's fields, converted with pt-BR problems collected per field."""

    def __init__(self, data: Mapping[str, Any], *, allowed: Iterable[str]):
        self.data = dict(data) if isinstance(data, Mapping) else {}
        self.problems: list[Problem] = []
        if not isinstance(data, Mapping):
            self.problems.append(Problem("", "Dados do formulário ausentes."))
        known = set(allowed)
        for key in self.data:
            if key not in known:
                self.problems.append(Problem(str(key), f"Campo desconhecido: {key}."))

    # -- bookkeeping -------------------------------------------------------------
    def fail(self, key: str, message: str) -> None:
        self.problems.append(Problem(key, message))
        return None

    def ok(self, *keys: str) -> bool:
        """True when none of `keys` has a problem recorded so far."""
        bad = {p.path for p in self.problems}
        return not any(k in bad for k in keys)

    def done(self) -> None:
        if self.problems:
            raise InputError(self.problems)

    def has(self, key: str) -> bool:
        v = self.data.get(key)
        return v is not None and not (isinstance(v, str) and not v.strip())

    def _missing(self, key: str, label: str, required: bool) -> None:
        if required:
            self.fail(key, f"{label}: campo obrigatório.")

    # -- converters --------------------------------------------------------------
    def text(self, key: str, label: str, *, required: bool = True, max_len: int = 200,
             pattern: str | None = None, pattern_msg: str = "formato inválido.",
             multiline: bool | None = None) -> str | None:
        """The field's text, stripped; `multiline` None: a text when `max_len` > SINGLE_LINE_MAX, else one line
        (module docstring)."""
        if not self.has(key):
            self._missing(key, label, required)
            return None
        v = self.data[key]
        if not isinstance(v, str):
            self.fail(key, f"{label}: deve ser um texto.")
            return None
        v = v.strip()
        if len(v) > max_len:
            self.fail(key, f"{label}: no máximo {max_len} caracteres.")
            return None
        found = None if (max_len > SINGLE_LINE_MAX if multiline is None else multiline) else not_in_a_line(v)
        if found is not None:
            at, ch = found
            self.fail(key, f"{label}: um campo de uma só linha não aceita quebra de linha, tabulação nem caractere "
                           f"de controle ou invisível (U+{ord(ch):04X} na posição {at}).")
            return None
        if pattern is not None and not re.fullmatch(pattern, v):
            self.fail(key, f"{label}: {pattern_msg}")
            return None
        return v

    def email(self, key: str, label: str = "E-mail", *, required: bool = False) -> str | None:
        v = self.text(key, label, required=required, max_len=254)
        if v is not None and not _EMAIL.match(v):
            self.fail(key, f"{label}: endereço de e-mail inválido.")
            return None
        return v

    def uf(self, key: str, label: str = "UF", *, required: bool = True) -> str | None:
        v = self.text(key, label, required=required, max_len=2)
        if v is not None and v.upper() not in UFS:
            self.fail(key, f"{label}: sigla de estado desconhecida ({v}).")
            return None
        return None if v is None else v.upper()

    def integer(self, key: str, label: str, *, required: bool = True,
                minimum: int | None = None, maximum: int | None = None) -> int | None:
        if not self.has(key):
            self._missing(key, label, required)
            return None
        v = self.data[key]
        n: int | None = None
        if isinstance(v, bool):
            n = None
        elif isinstance(v, int):
            n = v if abs(v) < 10 ** MAX_DIGITS else None
        elif isinstance(v, (float, Decimal)) and v == v and abs(v) < 10 ** MAX_DIGITS and v == int(v):
            n = int(v)
        elif isinstance(v, str) and len(v) <= MAX_DIGITS + 4 and re.fullmatch(r"\s*-?[0-9]+\s*", v):
            n = int(v)
        if n is None:
            self.fail(key, f"{label}: deve ser um número inteiro.")
            return None
        if (minimum is not None and n < minimum) or (maximum is not None and n > maximum):
            lo = "" if minimum is None else f" de {minimum}"
            hi = "" if maximum is None else f" até {maximum}"
            self.fail(key, f"{label}: deve ser um número inteiro{lo}{hi}.")
            return None
        return n

    def decimal(self, key: str, label: str, *, required: bool = True, minimum: Decimal | None = None,
                maximum: Decimal | None = None, places: int = 2) -> Decimal | None:
        if not self.has(key):
            self._missing(key, label, required)
            return None
        v = self.data[key]
        d: Decimal | None
        if isinstance(v, bool):
            d = None
        else:
            raw = repr(v) if isinstance(v, float) else str(v).strip().replace(",", ".")
            try:
                d = Decimal(raw) if len(raw) <= MAX_DIGITS + 8 and raw.isascii() else None
            except InvalidOperation:
                d = None
            if d is not None and d.is_finite() and d.adjusted() >= MAX_DIGITS:
                d = None  # more integer digits than any field holds
        if d is None or not d.is_finite():
            self.fail(key, f"{label}: deve ser um número.")
            return None
        if (minimum is not None and d < minimum) or (maximum is not None and d > maximum):
            lo = "" if minimum is None else f" de {_fmt_number(minimum)}"
            hi = "" if maximum is None else f" até {_fmt_number(maximum)}"
            self.fail(key, f"{label}: deve ser um número{lo}{hi}.")
            return None
        q = Decimal(1).scaleb(-places)
        if d != d.quantize(q):
            self.fail(key, f"{label}: no máximo {places} casas decimais.")
            return None
        return d.quantize(q)

    def money(self, key: str, label: str, *, required: bool = True, minimum: Decimal | None = Decimal(0),
              maximum: Decimal | None = None) -> Decimal | None:
        """An amount in reais typed the pt-BR way (`money.parse_brl`: '1.234,56'; mixed separators
        refused, never guessed), at most 2 places, within [minimum, maximum] (default 0 … MAX_AMOUNT)."""
        from valuation.core.money import MAX_AMOUNT, parse_brl

        if not self.has(key):
            self._missing(key, label, required)
            return None
        try:
            return parse_brl(self.data[key], path=key, label=label, minimum=minimum,
                             maximum=MAX_AMOUNT if maximum is None else maximum)
        except InputError as exc:
            self.problems.extend(exc.problems)
            return None

    def choice(self, key: str, label: str, options: Sequence[str], *, required: bool = True,
               labels: Mapping[str, str] | None = None) -> str | None:
        """One of `options`; a refusal names them by `labels` (their pt-BR labels) when given."""
        if not self.has(key):
            self._missing(key, label, required)
            return None
        v = self.data[key]
        if not isinstance(v, str) or v.strip() not in options:
            named = ", ".join((labels or {}).get(o, o) for o in options)
            self.fail(key, f"{label}: valor não reconhecido ({excerpt(v)}); use um de: {named}.")
            return None
        return v.strip()

    def boolean(self, key: str, label: str, *, default: bool = False) -> bool:
        if key not in self.data or self.data[key] is None:
            return default
        v = self.data[key]
        if isinstance(v, bool):
            return v
        if isinstance(v, str) and v.strip().lower() in ("sim", "s", "true", "1", "não", "nao", "n", "false", "0"):
            return v.strip().lower() in ("sim", "s", "true", "1")
        self.fail(key, f"{label}: deve ser sim ou não.")
        return default

    def date(self, key: str, label: str, *, required: bool = True) -> date | None:
        if not self.has(key):
            self._missing(key, label, required)
            return None
        v = self.data[key]
        if isinstance(v, datetime):
            return v.date()
        if isinstance(v, date):
            return v
        if isinstance(v, str):
            s = v.strip()
            try:
                if _ISO_DATE.match(s):
                    return date.fromisoformat(s)
                if _BR_DATE.match(s):
                    dd, mm, yyyy = s.split("/")
                    return date(int(yyyy), int(mm), int(dd))
            except ValueError:
                self.fail(key, f"{label}: data inexistente ({s}).")
                return None
        self.fail(key, f"{label}: informe a data como dd/mm/aaaa.")
        return None
