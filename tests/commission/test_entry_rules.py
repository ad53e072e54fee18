"""One entry of a form and a sheet row are checked by the same rules (`sheet._rules`): the form reads them
on plain values, the sheet on Arrow columns. For the same typed entry both give the same problems, in the
same words and order, and the same defaulted values."""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from valuation.commission.sheet import (
    FIELD_TYPES,
    FIELDS,
    Entries,
    Problems,
    check_entries,
    form_values,
    single_entry,
    typed_frame,
)
from valuation.core.errors import InputError

TODAY = date(2026, 3, 10)
GOOD: dict[str, Any] = {"historical": True, "amount": Decimal("1500.00"), "currency": "USD",
                        "price_date": date(2026, 1, 5), "significance": 3, "must_keep": None,
                        "source": "catalogo", "source_note": None}
CASES: list[dict[str, Any]] = [
    GOOD,
    {**GOOD, "historical": False, "significance": None},
    {**GOOD, "historical": None, "significance": None},
    {**GOOD, "must_keep": True},
    {**GOOD, "historical": False},                                      # significance without a historical vote
    {**GOOD, "historical": False, "significance": None, "must_keep": True},
    {**GOOD, "significance": None},                                     # required with a historical vote
    {**GOOD, "significance": 0},
    {**GOOD, "significance": 1},                                        # the bounds are allowed
    {**GOOD, "significance": 5},
    {**GOOD, "significance": 6},
    {**GOOD, "significance": "x"},                                      # unreadable
    {**GOOD, "significance": True},
    {**GOOD, "historical": "sim"},                                      # unreadable vote
    {**GOOD, "must_keep": "talvez"},
    {**GOOD, "amount": Decimal("-1.00")},
    {**GOOD, "amount": "abc"},
    {**GOOD, "amount": None},                                           # currency, date, source without a value
    {**GOOD, "amount": None, "currency": None, "price_date": None, "source": None, "historical": None,
     "significance": None},                                             # neither vote nor value
    {**GOOD, "amount": None, "currency": None, "price_date": None, "source": None},
    {**GOOD, "currency": None, "price_date": None, "source": None},     # a value without its companions
    {**GOOD, "currency": "US"},
    {**GOOD, "currency": "USDX"},                                       # the whole code, not a prefix
    {**GOOD, "currency": "XUSD"},
    {**GOOD, "currency": "usd"},
    {**GOOD, "amount": Decimal("0.00")},
    {**GOOD, "price_date": TODAY},
    {**GOOD, "currency": "us1"},
    {**GOOD, "currency": 840},
    {**GOOD, "currency": "   "},
    {**GOOD, "price_date": date(2026, 3, 11)},                          # in the future
    {**GOOD, "price_date": "31/02/2026"},
    {**GOOD, "price_date": "05/01/2026"},
    {**GOOD, "source": "laudo"},                                        # an alias: external appraisal, no note
    {**GOOD, "source": "laudo", "source_note": "Casa X"},
    {**GOOD, "source": "jornal"},
    {**GOOD, "source_note": 5},
    {**GOOD, "source_note": "  "},
    {"historical": "x", "amount": Decimal("-5.00"), "currency": "u", "price_date": date(2027, 1, 1),
     "significance": 9, "must_keep": 1, "source": "?", "source_note": 2},
]


def _sheet_path(kw: dict[str, Any]) -> Entries:
    """The same typed entry checked as a one-row sheet (what `single_entry` did before the scalar reading)."""
    values, bad = form_values(**kw)
    p = Problems(1)
    for name, message in bad.items():
        p.add(np.array([True]), name, message)
    frame = typed_frame({name: pa.array([values[name]], type=FIELD_TYPES[name]) for name in FIELDS})
    return check_entries(Entries(frame, p, {name: np.array([True]) for name in bad}), today=TODAY)


def _said(entries: Entries) -> list[tuple[str, str]]:
    return [(x.path, x.message) for x in entries.problems.problems()]


@pytest.mark.parametrize("kw", CASES)
def test_one_entry_and_sheet_give_the_same_problems_and_values(kw: dict[str, Any]) -> None:
    one = single_entry(**kw, today=TODAY)
    sheet = _sheet_path(kw)
    assert _said(one) == _said(sheet)
    assert one.one is not None
    assert {name: _py(sheet, name) for name in FIELDS} == dict(one.one)
    # The one-row frame built on demand is the sheet's frame, column for column and type for type.
    for name in FIELDS:
        assert pa.array(one.frame[name].array).equals(pa.array(sheet.frame[name].array)), name


def _py(entries: Entries, name: str) -> Any:
    return pa.array(entries.frame[name].array)[0].as_py()


def test_bad_entries_name_every_field_in_portuguese() -> None:
    one = single_entry(**CASES[-1], today=TODAY)
    with pytest.raises(InputError) as caught:
        one.problems.raise_if_any()
    fields = [p.path for p in caught.value.problems]
    assert fields == ["historical", "amount", "currency", "price_date", "significance", "must_keep", "source",
                      "source_note"]
    assert "Valor: não pode ser negativo." in [p.message for p in caught.value.problems]


def test_defaults_follow_the_vote() -> None:
    assert single_entry(**GOOD, today=TODAY).one == {**GOOD, "item_code": None, "must_keep": False}
    plain = single_entry(**{**GOOD, "historical": False, "significance": None}, today=TODAY).one
    assert plain is not None and plain["must_keep"] is None and plain["significance"] is None
