"""The contract's valuation date and the day whose exchange rates convert the Commission's prices
(Lei 7.542/1986 art. 21 §3). Pure: no database, no clock (`today` is a parameter).

- Art. 21 §3 (unchanged by Lei 10.166/2000): "O valor das coisas ou dos bens que vierem a ser removidos
  poderá ser fixado no contrato ou no ato de concessão antes do início ou depois do término das operações
  de remoção." The contract says when (`contracts.value_fixed`: antes | depois) and may name the day the
  value refers to (`contracts.valuation_date`).
- When it names that day, every foreign price the Commission enters (art. 20 §3; art. 21 §2, "mercados
  nacional e internacional") is converted at the rate of that day — the latest rate on or before it, never
  a later one — not at the rate of each price's own date. Without it, each price at its own date (the
  product's rule since issue 3).

The reading the product takes (docs/decisions/101-valuation-date-reference-day.md): §3 times the *fixing* of the
value — before the start or after the end of the operations —, and the day the value refers to is one whose
rates exist when it is fixed: up to the day before `starts_on` (antes), or from the day the operations ended,
`work_ended_on`, which must be recorded (depois); it is never in the future, since a rate of a day to come does
not exist yet. Below the partition's terms (which validate it) and the Commission's entries (which
convert with it); neither imports the other (README "Architecture").
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from valuation.core.errors import Problem
from valuation.core.money import format_date_br as fmt

ART_21_3 = "Lei 7.542/1986, art. 21 §3"
MOMENTS = ("antes", "depois")
MOMENT_LABELS = {"antes": "antes do início das operações", "depois": "depois do término das operações"}
LABEL = "Data de avaliação (art. 21 §3)"


@dataclass(frozen=True)
class Conversion:
    """Which day's rates convert the Commission's foreign prices for a contract: `day` (None: each
    price's own date) and `text`, the pt-BR sentence the entry form prints (with the article)."""

    day: date | None
    text: str

    def day_for(self, price_date: date) -> date:
        """The day whose rate converts a price dated `price_date` (the rate of that day or the latest
        earlier one is then used, never a later one)."""
        return self.day if self.day is not None else price_date


def conversion_rule(valuation_date: date | None, value_fixed: str | None) -> Conversion:
    """The conversion rule of a contract (art. 21 §3): at the contract's valuation date when it fixes
    one, otherwise at each price's own date."""
    if valuation_date is None:
        return Conversion(None, "Preços em moeda estrangeira convertidos pela cotação da data de cada preço (ou a "
                                "anterior mais próxima, nunca posterior): o contrato não fixa data de avaliação "
                                f"({ART_21_3}).")
    moment = MOMENT_LABELS.get(value_fixed or "", "")
    when = f" (valor fixado {moment})" if moment else ""
    return Conversion(valuation_date,
                      f"Preços em moeda estrangeira convertidos pela cotação de {fmt(valuation_date)} (ou a anterior "
                      f"mais próxima, nunca posterior), a data de avaliação do contrato{when}, {ART_21_3}: "
                      "não pela data de cada preço.")


def valuation_date_problems(valuation_date: date | None, value_fixed: str | None, starts_on: date | None,
                            work_ended_on: date | None, *, today: date) -> list[Problem]:
    """Why a contract may not fix `valuation_date` (empty when it may; None clears it). Art. 21 §3: the
    value is fixed before the start or after the end of the operations, so the day it refers to lies before
    `starts_on` (antes) or on or after `work_ended_on` (depois: the day the works ended included); never a day
    after `today`."""
    if valuation_date is None:
        return []
    problems: list[Problem] = []
    if valuation_date > today:
        problems.append(Problem("valuation_date", f"{LABEL}: não pode ser futura (hoje é {fmt(today)}): a cotação "
                                                  "de um dia que ainda não chegou não existe."))
    if value_fixed not in MOMENTS:
        problems.append(Problem("value_fixed", "Valor fixado (art. 21 §3): diga se o valor é fixado antes do início "
                                               "ou depois do término das operações para usar uma data de avaliação."))
    elif value_fixed == "antes":
        if starts_on is None:
            problems.append(Problem("valuation_date", f"{LABEL}: o contrato não tem data de início das operações; "
                                                      "registre-a antes de fixar o valor antes do início."))
        elif valuation_date >= starts_on:
            problems.append(Problem("valuation_date", f"{LABEL}: valor fixado antes do início das operações "
                                                      f"({fmt(starts_on)}): a data deve ser anterior a ela "
                                                      f"({ART_21_3})."))
    elif work_ended_on is None:
        problems.append(Problem("valuation_date", f"{LABEL}: valor fixado depois do término das operações, que "
                                                  f"ainda não terminaram ({ART_21_3})."))
    elif valuation_date < work_ended_on:
        problems.append(Problem("valuation_date", f"{LABEL}: valor fixado depois do término das operações "
                                                  f"({fmt(work_ended_on)}): a data não pode ser anterior a ele "
                                                  f"({ART_21_3})."))
    return problems
