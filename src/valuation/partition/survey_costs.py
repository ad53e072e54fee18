"""Deduction of the surveyor's costs from the winner's net value (rules.md §5).

When the exploration or removal of a União wreck goes to a bidder other than the
authorised surveyor who located it, the surveyor's costs of locating it are deducted
from the net value in the winner's favour and paid to the surveyor (NORMAM-10 0303
c 2 I, "Licitação"; the surveyor's preference is Lei 7.542 art. 16 §2 I). The amount
comes from the cost sheet filed with the survey request (planilha de custos,
NORMAM-10 0301 a 6) and the actual cost in the final report (NORMAM-10 0301 c):

- per line: accepted = min(actual, planned + approved_overrun) — spending above the
  cost sheet counts only as far as the Authority approved it, and never beyond what
  was actually spent; variance = actual − planned;
- deduction = min(Σ accepted, gross); uncovered = Σ accepted − deduction (reported,
  never turned into a negative payment).

When the winner *is* the surveyor there is nobody to reimburse: the lines are still
stated, but `applies` is False and accepted_total, deduction and uncovered are 0.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from valuation.core.money import to_cents

BASIS_DEDUCTION = ("NORMAM-10 (ed. 2002) 0303 c 2 I (dedução dos gastos do pesquisador do valor líquido do vencedor "
                   "da licitação "
                   "da Lei 7.542 art. 27)")
BASIS_LINES = "NORMAM-10 (ed. 2002) 0301 a 6 (planilha de custos) e 0301 c (custo real no relatório final)"
BASIS_NOT_APPLICABLE = "NORMAM-10 (ed. 2002) 0303 c 2 I: o vencedor é o próprio pesquisador — nada a deduzir"


@dataclass(frozen=True)
class CostLine:
    """One line of the survey cost sheet, with its actual cost and the overrun the
    Naval Authority approved for it."""

    line: str
    planned: Decimal
    actual: Decimal
    approved_overrun: Decimal = Decimal(0)


@dataclass(frozen=True)
class SurveyLine:
    line: str
    planned: Decimal
    actual: Decimal
    approved_overrun: Decimal
    accepted: Decimal
    variance: Decimal  # actual − planned (negative when under plan)


@dataclass(frozen=True)
class SurveyDeduction:
    lines: tuple[SurveyLine, ...]
    accepted_total: Decimal
    deduction: Decimal
    uncovered: Decimal
    basis: tuple[str, ...]
    applies: bool = True  # False when the winner is the surveyor


def accepted_cost(line: CostLine) -> Decimal:
    """accepted = min(actual, planned + approved_overrun) (NORMAM-10 0303 c 2 I; 0301 a 6, c)."""
    return to_cents(min(line.actual, line.planned + line.approved_overrun))


def survey_deduction(lines: Sequence[CostLine], gross: Decimal, winner_is_surveyor: bool) -> SurveyDeduction:
    """The survey-cost deduction from the winner's gross value (NORMAM-10 0303 c 2 I, in the tender
    of Lei 7.542 art. 27; art. 16 §2 I only gives the surveyor preference). Raises ValueError for
    negative amounts."""
    if gross < 0:
        raise ValueError("gross must not be negative")
    stated: list[SurveyLine] = []
    for ln in lines:
        for name in ("planned", "actual", "approved_overrun"):
            v = getattr(ln, name)
            if not isinstance(v, Decimal) or not v.is_finite() or v < 0:
                raise ValueError(f"cost line {ln.line!r}: {name} must be a non-negative Decimal")
        stated.append(SurveyLine(line=ln.line, planned=to_cents(ln.planned), actual=to_cents(ln.actual),
                                 approved_overrun=to_cents(ln.approved_overrun), accepted=accepted_cost(ln),
                                 variance=to_cents(ln.actual - ln.planned)))
    zero = to_cents(Decimal(0))
    if winner_is_surveyor:
        return SurveyDeduction(lines=tuple(stated), accepted_total=zero, deduction=zero, uncovered=zero,
                               applies=False, basis=(BASIS_NOT_APPLICABLE, BASIS_LINES))
    total = sum((ln.accepted for ln in stated), zero)
    deduction = min(total, to_cents(gross))
    return SurveyDeduction(lines=tuple(stated), accepted_total=total, deduction=deduction,
                           uncovered=total - deduction, applies=True, basis=(BASIS_DEDUCTION, BASIS_LINES))
