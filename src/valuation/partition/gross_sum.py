"""How a statement's gross value adds up, as a reader checks it (issue 23 item 14): each line of the gross
section with its place in the sum — `+` for what the concessionaire receives (the historical items
adjudicated, the reward's cash balance, the payment for the other items: rules.py, gross = adjudicated
value + cash balance + other payment), outside the sum for the bases the parts are computed on and for the
reward's unpaid residual — and a total line `=` equal to the gross.

`residual_sentence` explains the unpaid residual in one sentence with its article: the reward of art. 20
§2 "poderá se constituir na adjudicação" of the items the União chooses (§4); a contract that pays it in
items only, without a cash balance, leaves unpaid what the chosen items fall short of the reward.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from valuation.core.money import format_brl

if TYPE_CHECKING:
    from valuation.partition.documents import StatementLine

SUMMED_KEYS = ("adjudicated", "cash_balance", "other_payment")
UNPAID_KEYS = ("unpaid_residual",)
PLUS, EQUALS = "+", "="
OUTSIDE_BASE = "base"        # a base of calculation, outside the sum
OUTSIDE_UNPAID = "não pago"   # outside the sum
TOTAL_LABEL = "Valor bruto devido ao concessionário"
TOTAL_BASIS = "Lei 7.542/1986 arts. 20 §2 e 21 (soma das parcelas marcadas com +)"


@dataclass(frozen=True)
class GrossRow:
    """One row of the gross table: its place in the sum (`+`, `=` or outside), what it is, how much."""

    place: str
    label: str
    detail: str | None
    amount: Decimal | None
    basis: str


def gross_rows(lines: Sequence[StatementLine], gross: Decimal) -> tuple[GrossRow, ...]:
    """The gross section's `lines` (StatementLine: key, label, detail, amount, basis), each with its place in
    the sum, then the total line; the `+` rows add up to `gross` (statements are computed so)."""
    out = []
    for ln in lines:
        place = PLUS if ln.key in SUMMED_KEYS else OUTSIDE_UNPAID if ln.key in UNPAID_KEYS else OUTSIDE_BASE
        out.append(GrossRow(place, ln.label, ln.detail, ln.amount, ln.basis))
    out.append(GrossRow(EQUALS, TOTAL_LABEL, None, gross, TOTAL_BASIS))
    return tuple(out)


def summed(rows: tuple[GrossRow, ...]) -> Decimal:
    """The sum of the `+` rows (equal to the total line's amount)."""
    return sum((r.amount or Decimal("0.00") for r in rows if r.place == PLUS), Decimal("0.00"))


def residual_sentence(lines: Sequence[StatementLine]) -> str | None:
    """The unpaid residual of the historical reward in one sentence with its article; None when there is none."""
    by_key = {ln.key: ln.amount for ln in lines}
    residual = by_key.get("unpaid_residual")
    if not residual:
        return None
    reward, items = by_key.get("historical_reward"), by_key.get("adjudicated")
    return (f"Da recompensa de {format_brl(reward)} pelos bens históricos, {format_brl(residual)} não são pagos: "
            f"o contrato a paga só com os bens que a União escolhe, sem saldo em dinheiro, e os bens escolhidos "
            f"valem {format_brl(items)} (Lei 7.542/1986, art. 20 §2: a recompensa pode se constituir na "
            f"adjudicação de até 40 % do valor dos bens históricos; §4: a escolha dos bens é da União).")
