"""Demonstrativos on the full demo (issue 23 item 14): the gross table adds up visibly to the gross — each line
with its place in the sum (+, or outside it: a base of calculation, the unpaid residual) and a total line
equal to the gross — and the reward's unpaid residual is explained in one sentence with its article
(Lei 7.542/1986 art. 20 §2 and §4: the reward paid by adjudication of the items the União chooses, in a
contract without a cash balance)."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tests.support.ui import first_user, open_expanders, page_as, texts
from valuation.core.money import format_brl, parse_brl
from valuation.partition import gross_sum


def gross_table(at):  # type: ignore[no-untyped-def]
    tables = [d.value for d in at.dataframe if "Na soma" in d.value.columns]
    assert tables, [list(d.value.columns) for d in at.dataframe]
    return tables[0]


def amount(cell: str) -> Decimal:
    return parse_brl(cell, path="valor", label="Valor")


@pytest.mark.parametrize("role", ["dpc", "explorer"])
def test_the_gross_table_adds_up_and_the_residual_is_explained(full_demo_db: Path, role: str) -> None:
    # the explorer's lines are in an expander (ui/expanders.lazy_expander), opened as the explorer does
    at = open_expanders(page_as(full_demo_db, first_user(full_demo_db, role), "statements", timeout=120))
    assert not at.exception, at.exception
    table = gross_table(at)
    places = table["Na soma"].tolist()
    assert places[-1] == "=" and places.count("=") == 1, places
    plus = [amount(v) for p, v in zip(places, table["Valor"]) if p == "+"]
    total = amount(table["Valor"].iloc[-1])
    assert len(plus) >= 2 and sum(plus) == total, (places, table["Valor"].tolist())
    shown = texts(at).replace("\\", "")   # the Markdown source, its escapes removed: what the reader sees
    assert f"Valor bruto: {format_brl(total)}".replace("R$ ", "R$\u00a0") in shown, shown[:400]
    # the demo's treasure contract pays its historical reward in items only: the residual, in one sentence
    assert gross_sum.OUTSIDE_UNPAID in places, places
    residual = next(amount(v) for p, v in zip(places, table["Valor"]) if p == gross_sum.OUTSIDE_UNPAID)
    sentence = [t for t in shown.split("\n") if "não são pagos" in t]
    assert len(sentence) == 1, shown
    assert "art. 20 §2" in sentence[0] and "§4" in sentence[0] and "Lei 7.542/1986" in sentence[0], sentence
    assert format_brl(residual) in sentence[0], sentence
