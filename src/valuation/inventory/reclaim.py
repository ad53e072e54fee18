"""The owner's reclaim of things recovered by third parties (rules.md §6; Lei 7.542 art. 12 §§1–2).

Art. 12 §1: a contract or authorisation for a removal on the owner's account may pay
the third party with the things recovered, "ressalvado o direito do responsável de
reaver a posse até 30 (trinta) dias após a recuperação, mediante pagamento do valor da
fatura, do seguro ou de mercado, o que for maior, da mesma coisa ou bem, além do
pagamento do que faltar para reembolso integral das despesas havidas ou contratadas
para a operação executada". §2: without such a clause, or when the Authority recovered
them, the things are sold at once, and the owner keeps the same right, in the same form
and period.

- deadline: 30 days after the recovery, counted by Lei 9.784 art. 66
  (`valuation.deadlines.rules.owner_reclaim`);
- value: the greatest of the invoice, insured and market values of the same thing
  (`value_basis`: invoice, insurance or market; on a tie the first of that order);
- expenses_shortfall = max(0, expenses − expenses_paid − value): what is still missing
  to reimburse the operation's expenses in full once the thing's value is paid;
- price = value + expenses_shortfall.

Every amount is a Decimal rounded once, to the cent, half-up.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from valuation.core import law
from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import InputError, Problem
from valuation.core.money import format_brl, to_cents
from valuation.deadlines.rules import Deadline, owner_reclaim

VALUE_BASES: tuple[str, ...] = ("invoice", "insurance", "market")  # the order that breaks a tie
VALUE_BASIS_LABELS: dict[str, str] = {"invoice": "valor da fatura", "insurance": "valor do seguro",
                                      "market": "valor de mercado"}
BASIS_PRICE = f"{law.L7542} art. 12 §1 (maior entre fatura, seguro e mercado, mais o que faltar das despesas)"
BASIS_SALE = f"{law.L7542} art. 12 §2 (mesmo direito, na forma e no prazo do §1)"


@dataclass(frozen=True)
class ReclaimPrice:
    """What the owner pays to take the thing back (art. 12 §1)."""

    value: Decimal
    value_basis: str              # invoice | insurance | market
    expenses_shortfall: Decimal
    price: Decimal
    steps: tuple[str, ...]


@dataclass(frozen=True)
class Reclaim:
    """The reclaim: until when (`deadline`) and for how much (`price`)."""

    deadline: Deadline
    price: ReclaimPrice
    basis: tuple[str, ...]


def reclaim_price(invoice_value: Decimal | None, insured_value: Decimal | None, market_value: Decimal,
                  expenses: Decimal, expenses_paid: Decimal) -> ReclaimPrice:
    """The reclaim price of Lei 7.542 art. 12 §1: the greatest of the invoice, insured and
    market values (a missing one is left out; on a tie the first of invoice, insurance,
    market), plus max(0, expenses − expenses_paid − value). ValueError for a negative
    amount; InputError naming `expenses_paid` when more was paid than the operation's
    expenses (an inconsistent input: what was paid of the expenses cannot exceed them)."""
    given = {"invoice": invoice_value, "insurance": insured_value, "market": market_value}
    for name, v in (*given.items(), ("expenses", expenses), ("expenses_paid", expenses_paid)):
        if v is not None and v < 0:
            raise ValueError(f"{name} must not be negative")
    if expenses_paid > expenses:
        raise InputError(Problem("expenses_paid", f"must not exceed expenses {to_cents(expenses)} (what was paid "
                                                  f"of the operation's expenses; {law.L7542} art. 12 §1)"))
    candidates = [(k, to_cents(v)) for k, v in given.items() if v is not None]
    best = max(v for _, v in candidates)
    basis = next(k for k, v in candidates if v == best)
    shortfall = to_cents(max(Decimal(0), expenses - expenses_paid - best))
    price = best + shortfall
    steps = (
        "Valores da mesma coisa: " + "; ".join(f"{VALUE_BASIS_LABELS[k]} {format_brl(v)}" for k, v in candidates),
        f"O maior: {VALUE_BASIS_LABELS[basis]}, {format_brl(best)} (art. 12 §1)",
        f"Despesas da operação {format_brl(to_cents(expenses))}, já pagas {format_brl(to_cents(expenses_paid))}: "
        f"faltam {format_brl(shortfall)} para o reembolso integral além do valor da coisa",
        f"Preço para reaver a posse: {format_brl(best)} + {format_brl(shortfall)} = {format_brl(price)}",
    )
    return ReclaimPrice(best, basis, shortfall, price, steps)


def reclaim(recovered: date, cal: BusinessCalendar, invoice_value: Decimal | None, insured_value: Decimal | None,
            market_value: Decimal, expenses: Decimal, expenses_paid: Decimal) -> Reclaim:
    """The owner's reclaim (Lei 7.542 art. 12 §§1–2): the 30-day deadline from the
    recovery (`owner_reclaim`, Lei 9.784 art. 66) and the price (`reclaim_price`)."""
    deadline = owner_reclaim(recovered, cal)
    price = reclaim_price(invoice_value, insured_value, market_value, expenses, expenses_paid)
    return Reclaim(deadline, price, (BASIS_PRICE, BASIS_SALE, deadline.basis))


__all__ = ["Reclaim", "ReclaimPrice", "VALUE_BASES", "reclaim", "reclaim_price"]
