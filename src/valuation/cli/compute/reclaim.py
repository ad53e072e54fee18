"""`python -m valuation compute reclaim` (cli.md, reclaim; rules.md §6; Lei 7.542 art. 12 §§1–2).

Input: {"recovered", "office"?: {...}, "invoice_value", "insured_value", "market_value",
"expenses", "expenses_paid"}: `invoice_value` and `insured_value` are required but may be
null; the others are required amounts. The office defaults to no state holidays when
absent (as in `deadline`). Output: due, moved_from, value, value_basis,
expenses_shortfall, price, basis, steps.
"""
from __future__ import annotations

from typing import Any

from valuation.cli.compute.deadline import iso, out_of_range, read_office
from valuation.core.errors import InputError, Problem
from valuation.core.jsonin import Reader, amount, iso_date
from valuation.core.money import amount_str
from valuation.inventory.reclaim import reclaim

ALLOWED = ("recovered", "office", "invoice_value", "insured_value", "market_value", "expenses", "expenses_paid")
_MONEY = amount()


def run(doc: Any) -> dict[str, Any]:
    r = Reader()
    if not isinstance(doc, dict):
        r.fail("", "input must be a JSON object")
        r.done()
    r.obj(doc, "", allowed=ALLOWED)
    recovered = r.field(doc, "recovered", "", iso_date)
    cal = read_office(r, doc)
    invoice = r.field(doc, "invoice_value", "", _MONEY, nullable=True)
    insured = r.field(doc, "insured_value", "", _MONEY, nullable=True)
    market = r.field(doc, "market_value", "", _MONEY)
    expenses = r.field(doc, "expenses", "", _MONEY)
    paid = r.field(doc, "expenses_paid", "", _MONEY)
    r.done()
    try:
        res = reclaim(recovered, cal, invoice, insured, market, expenses, paid)
    except OverflowError as exc:
        raise out_of_range("recovered") from exc
    except ValueError as exc:
        raise InputError(Problem("", str(exc))) from exc
    d, p = res.deadline, res.price
    return {
        "due": iso(d.due),
        "moved_from": iso(d.moved_from),
        "value": amount_str(p.value),
        "value_basis": p.value_basis,
        "expenses_shortfall": amount_str(p.expenses_shortfall),
        "price": amount_str(p.price),
        "basis": "; ".join(res.basis),
        "steps": [*d.steps, *p.steps],
    }
