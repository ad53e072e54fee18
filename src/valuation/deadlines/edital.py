"""The edital of a removal order and its publications (Lei 7.542 art. 9 II and §2).

Art. 9 §2: "O edital, com prazo de 15 (quinze) dias, será publicado, uma vez, no Diário Oficial da União,
em jornal de grande circulação da capital da Unidade da Federação onde se encontrem as coisas ou os bens,
em jornal da cidade portuária mais próxima ou de maior importância do Estado e em jornal do Rio de
Janeiro, caso as coisas ou os bens se encontrem afastados da costa ou nas proximidades de ilhas
oceânicas." One edital, several outlets: the owner is notified only when the last of them has published
it, so the 15 days run from the **last** publication (`removal_edital_from`) — the law does not say
which; the product's reading, printed as a reading (docs/decisions/100-removal-edital-start.md). An outlet
the paragraph requires and not yet recorded is named in the explanation: the due date stands on the
publications recorded so far and moves when a later one is recorded.

Pure: no database, no clock.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from valuation.core import law
from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import InputError, Problem
from valuation.core.money import format_date_br
from valuation.deadlines.counting import Deadline
from valuation.deadlines.rules import removal_edital

OUTLET_LABELS: dict[str, str] = law.EDITAL_OUTLETS
OUTLETS: tuple[str, ...] = tuple(OUTLET_LABELS)
BASIS = "Lei 7.542/1986 art. 9 §2 (edital com prazo de 15 dias, publicado uma vez em cada veículo)"
# the law does not say from which publication the 15 days run: the product's reading, printed as one
# (docs/decisions/100-removal-edital-start.md)
READING = ("leitura adotada: o edital só se completa com a última das publicações que o art. 9 §2 exige, e a lei "
           "não diz de qual delas o prazo corre")


@dataclass(frozen=True)
class Publication:
    outlet: str          # OUTLETS
    published_on: date


@dataclass(frozen=True)
class EditalStart:
    last: date
    last_outlets: tuple[str, ...]     # the outlet(s) of the last day
    missing: tuple[str, ...]          # outlets art. 9 §2 requires and not recorded
    steps: tuple[str, ...]


def required_outlets(offshore: bool) -> tuple[str, ...]:
    """The outlets of art. 9 §2: the DOU, the state capital's and the port city's newspapers, and a Rio de
    Janeiro newspaper when the things lie off the coast or near oceanic islands."""
    return OUTLETS if offshore else OUTLETS[:3]


def edital_start(publications: Sequence[Publication], offshore: bool = False) -> EditalStart:
    """The day the edital's 15 days start from: the last publication (art. 9 §2). InputError without any
    publication, with an unknown outlet, or with the same outlet twice (it is published once in each)."""
    if not publications:
        raise InputError(Problem("publications", "at least one publication of the edital (art. 9 §2)"))
    seen: set[str] = set()
    for i, p in enumerate(publications):
        if p.outlet not in OUTLET_LABELS:
            raise InputError(Problem(f"publications[{i}].outlet", f"must be one of {', '.join(OUTLETS)}"))
        if p.outlet in seen:
            raise InputError(Problem(f"publications[{i}].outlet", "published once in each outlet (art. 9 §2)"))
        seen.add(p.outlet)
    ordered = sorted(publications, key=lambda p: (p.published_on, OUTLETS.index(p.outlet)))
    last = ordered[-1].published_on
    last_outlets = tuple(p.outlet for p in ordered if p.published_on == last)
    missing = tuple(o for o in required_outlets(offshore) if o not in seen)
    steps = ["Publicações do edital: " + "; ".join(f"{OUTLET_LABELS[p.outlet]} em {format_date_br(p.published_on)}"
                                                   for p in ordered),
             f"O prazo de 15 dias corre da última publicação, {format_date_br(last)} ({READING}; {BASIS})"]
    if missing:
        steps.append("Ainda sem publicação registrada: " + "; ".join(OUTLET_LABELS[o] for o in missing)
                     + " — o vencimento muda se uma publicação posterior for registrada")
    return EditalStart(last, last_outlets, missing, tuple(steps))


def removal_edital_from(publications: Sequence[Publication], cal: BusinessCalendar,
                        offshore: bool = False) -> Deadline:
    """The edital's 15 days (art. 9 §2; Lei 9.784 art. 66) counted from its last publication, with the
    publications in the steps."""
    start = edital_start(publications, offshore)
    d = removal_edital(start.last, cal)
    return Deadline(d.rule, d.due, f"{BASIS}; contado da última publicação ({READING}); {law.COUNTING_RULE}",
                    d.moved_from, (*start.steps, *d.steps))
