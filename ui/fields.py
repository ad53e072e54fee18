"""Strict input fields (issue 23, items 2, 3 and 11): what the person typed is what is saved, or nothing is.

- `date_field`: a text field for `dd/mm/aaaa` (placeholder 'dd/mm/aaaa'). `st.date_input` changes what
  was typed — 31/02/2026 became 28/02/2026, a day past its maximum silently kept the earlier one — so
  no page uses it: the text is read by `core.dates.parse_date_br`, which refuses an impossible day or
  one outside the field's range, naming the field and the range.
- `choice_field`: a pick list of a write form that starts on no choice (issue 42 item 5), refused unchosen.
- `money_field`: a text field for an amount in reais, read by `core.money.parse_brl` (the one pt-BR
  parser: '1.234,56'; misplaced thousands separators such as '1001.76,41' refused, never guessed).

Each returns a `Typed`: the label, the text, the value read (a `date`, a `Decimal`, or None when blank)
and the problem, if any, which is also shown under the field. Hand the `Typed` itself to
`ui.forms.save` (as an argument, a keyword or a value of a dict argument): `save` refuses the write,
listing every field's problem, when one is bad, and passes the values read otherwise. Outside a
write (a filter), `value_or_stop` stops the page at a bad field.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

import streamlit as st

from ui.safe import md
from valuation.core.dates import DATE_PLACEHOLDER, EARLIEST, LATEST, parse_date_br, range_text
from valuation.core.errors import InputError, Problem
from valuation.core.money import BRL_EXAMPLE, MAX_AMOUNT, format_brl, format_date_br, parse_brl

MONEY_PLACEHOLDER = f"ex.: {BRL_EXAMPLE}"
DATE_CHARS = 10


@dataclass(frozen=True)
class Typed:
    """A strict field's outcome: `value` is what `text` reads as (None: left blank), or `problem` says why
    it reads as nothing."""

    label: str
    text: str
    value: Any
    problem: Problem | None

    @property
    def ok(self) -> bool:
        return self.problem is None


def _where(where: Any) -> Any:
    return st if where is None else where


def _show(where: Any, typed: Typed) -> Typed:
    """Say under the field what is wrong with what was typed (a required field left blank is named only when
    the form is sent: a new, empty form is not an error)."""
    if typed.problem is not None and typed.text.strip():
        where.error(md(typed.problem.message), icon=":material/error:")   # it quotes what was typed
    return typed


def date_field(label: str, *, value: date | None = None, min_value: date | None = None,
               max_value: date | None = None, required: bool = False, key: str | None = None,
               help: str | None = None, where: Any = None, path: str | None = None,
               disabled: bool = False) -> Typed:
    """A `dd/mm/aaaa` text field whose day is read exactly as typed (see the module); `where` is the
    container (a column), `path` the field's key in the store's problems (default: the label)."""
    low, high = min_value or EARLIEST, max_value or LATEST
    where = _where(where)
    note = f"formato dd/mm/aaaa, {range_text(low, high)}"
    text = where.text_input(label, value="" if value is None else format_date_br(value), key=key,
                            placeholder=DATE_PLACEHOLDER, max_chars=DATE_CHARS, disabled=disabled,
                            help=f"{help} ({note})." if help else f"{note.capitalize()}.")
    return _show(where, read_date(label, text or "", min_value=low, max_value=high, required=required, path=path))


def read_date(label: str, text: str, *, min_value: date | None = None, max_value: date | None = None,
              required: bool = False, path: str | None = None) -> Typed:
    """What `date_field` reads from `text`, without a widget (a form's callback reads its fields' texts)."""
    try:
        day = parse_date_br(text, label=label, path=path or label, minimum=min_value or EARLIEST,
                            maximum=max_value or LATEST, required=required)
    except InputError as exc:
        return Typed(label, text, None, exc.problems[0])
    return Typed(label, text, day, None)


def money_field(label: str, *, value: Decimal | None = None, minimum: Decimal | None = Decimal(0),
                maximum: Decimal = MAX_AMOUNT, places: int = 2, required: bool = False,
                placeholder: str = MONEY_PLACEHOLDER, key: str | None = None, help: str | None = None,
                where: Any = None, path: str | None = None) -> Typed:
    """An amount text field read by `core.money.parse_brl` (see the module); blank reads as None unless
    `required`. `places` > 2 for a rate (R$ per unit of a currency)."""
    where = _where(where)
    shown = "" if value is None else format_brl(value, symbol=False) if places == 2 else \
        format(value.normalize(), "f").replace(".", ",")
    text = where.text_input(label, value=shown, key=key, placeholder=placeholder, help=help) or ""
    return _show(where, read_money(label, text, minimum=minimum, maximum=maximum, places=places, required=required,
                                   path=path))


def read_money(label: str, text: str, *, minimum: Decimal | None = Decimal(0), maximum: Decimal = MAX_AMOUNT,
               places: int = 2, required: bool = False, path: str | None = None) -> Typed:
    """What `money_field` reads from `text`, without a widget (a form's callback reads its fields' texts)."""
    if not text.strip() and not required:
        return Typed(label, text, None, None)
    try:
        amount = parse_brl(text, path=path or label, label=label, minimum=minimum, maximum=maximum, places=places)
    except InputError as exc:
        return Typed(label, text, None, exc.problems[0])
    return Typed(label, text, amount, None)


def choice_field(label: str, options: Sequence[Any], *, what: str, format_func: Callable[[Any], str] = str,
                 key: str | None = None, help: str | None = None, where: Any = None, path: str | None = None,
                 disabled: bool = False) -> Typed:
    """A pick list of a write form that starts on no choice (issue 42 item 5: no form pre-selects a request,
    contract, case, appeal, decision or wreck the person did not choose): placeholder 'Escolha `what`'; sent
    without a choice, `ui.forms.save` refuses the write naming the field ('`label`: escolha `what`.')."""
    value = _where(where).selectbox(label, list(options), index=None, placeholder=f"Escolha {what}",
                                    format_func=format_func, key=key, help=help, disabled=disabled)
    problem = Problem(path or label, f"{label}: escolha {what}.") if value is None else None
    return Typed(label, "" if value is None else str(value), value, problem)


def value_or_stop(typed: Typed) -> Any:
    """The value of a field outside a write (a filter): a bad one stops the page (its problem is shown
    under it), so nothing is computed from a day the person did not type."""
    if not typed.ok:
        if not typed.text.strip():        # blank: `_show` left it unsaid
            st.error(md(typed.problem.message if typed.problem else typed.label), icon=":material/error:")
        st.stop()
    return typed.value


# -- what ui.forms.save does with them ------------------------------------------------------
def typed_in(values: Iterable[Any]) -> list[Typed]:
    """The `Typed` among `values` and among the values of the dicts, lists and tuples in them."""
    found: list[Typed] = []
    for v in values:
        if isinstance(v, Typed):
            found.append(v)
        elif isinstance(v, dict):
            found += typed_in(v.values())
        elif isinstance(v, (list, tuple)):
            found += typed_in(v)
    return found


def unwrap(value: Any) -> Any:
    """`value` with every `Typed` in it (see `typed_in`) replaced by the value it reads as."""
    if isinstance(value, Typed):
        return value.value
    if isinstance(value, dict):
        return {k: unwrap(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unwrap(v) for v in value]
    if isinstance(value, tuple):
        return tuple(unwrap(v) for v in value)
    return value


def problems_of(typed: Iterable[Typed]) -> list[Problem]:
    return [t.problem for t in typed if t.problem is not None]


def read(data: Any) -> Any:
    """`data` (a dict of a form's values) with its strict fields replaced by their values, for a page that
    calls the store itself instead of `ui.forms.save`: InputError (every bad field) when one is bad."""
    bad = problems_of(typed_in([data]))
    if bad:
        raise InputError(bad)
    return unwrap(data)
