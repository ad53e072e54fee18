"""The path of an appeal against a decision of the Naval Authority (Lei 7.542/1986 art. 33; Lei 9.784/1999
arts. 56–65), as pure rules: no database, no clock.

    filing_deadline       art. 59 caput: 10 days from the notification or official publication of the decision
    reconsideration_due   art. 56 §1: the authority that decided reconsiders within 5 days, or forwards the appeal
    allegations_due       art. 62: the other interested parties, intimated, allege within 5 business days
    decision_due          art. 59 §§1–2: 30 days from the receipt of the case, once more 30 with explicit reason
    instance_problem      art. 57: at most three administrative instances (art. 33 sole §: the Minister of the
                          Navy, today the Navy's Commander, is the last) — a fourth is refused
    admissibility         art. 63 I: an appeal filed out of time is recorded and not known (não conhecido)
    suspensive_problem    art. 61: no suspensive effect unless granted, with its written reason
    outcome_problem       the outcomes (provido, parcialmente provido, não provido, não conhecido) and the
                          reconsideration's (reconsiderada, mantida e encaminhada)

Reading chosen: Lei 7.542 art. 33 says the appeal has no suspensive effect; Lei 9.784 art. 61 sole paragraph
still lets the authority grant it where execution risks harm hard to repair. The special law states the rule,
not a ban on the exception, so the product records a grant only with its written reason. The 10 days of
art. 59 are the general period, which art. 33 of Lei 7.542 leaves open (Lei 9.784 art. 69).
Periods in days are calendar days (art. 66 §2), those in business days skip the office's closed days;
all are counted by art. 66 with the office's calendar (valuation.deadlines.counting).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from valuation.core import law
from valuation.core.calendar import BusinessCalendar
from valuation.deadlines import rules
from valuation.deadlines.counting import Deadline, business_days_after, days_after, fmt, join_basis
from valuation.proceedings.periods import written_reason

OUTCOMES: dict[str, str] = {
    "provido": "Provido",
    "parcialmente provido": "Parcialmente provido",
    "não provido": "Não provido",
    "não conhecido": "Não conhecido",
}
RECONSIDERATIONS: dict[str, str] = {
    "reconsiderada": "Decisão reconsiderada pela autoridade que decidiu",
    "mantida": "Decisão mantida; recurso encaminhado à autoridade superior",
}
# what an outcome does to the decision appealed against (the write funnel acts on it, naming the appeal)
EFFECTS: dict[str, str] = {"provido": "revoke", "parcialmente provido": "amend", "não provido": "keep",
                           "não conhecido": "keep"}


@dataclass(frozen=True)
class Admissibility:
    """Whether an appeal filed on `filed_on` is on time; when late, it is recorded and not known (art. 63 I)."""

    on_time: bool
    deadline: Deadline
    reason: str | None


def filing_deadline(notified: date, cal: BusinessCalendar) -> Deadline:
    """The last day to appeal: 10 days from the notification or publication (art. 59 caput; Lei 7.542 art. 33)."""
    return rules.appeal(notified, cal)


def admissibility(notified: date, filed_on: date, cal: BusinessCalendar) -> Admissibility:
    """On time or late (art. 63 I): a late appeal is recorded as such and its outcome is "não conhecido"."""
    d = filing_deadline(notified, cal)
    assert d.due is not None
    if filed_on <= d.due:
        return Admissibility(True, d, None)
    return Admissibility(False, d, f"interposto em {fmt(filed_on)}, depois do prazo que venceu em {fmt(d.due)} "
                                   f"({law.APPEAL_NOT_KNOWN_LATE})")


def reconsideration_due(filed_on: date, cal: BusinessCalendar) -> Deadline:
    """The authority that decided reconsiders within 5 days of the appeal, or forwards it (art. 56 §1)."""
    v = law.APPEAL_RECONSIDERATION_DAYS
    return days_after("appeal_reconsideration", filed_on, v.value, cal, v.basis, "interposição do recurso")


def allegations_due(intimated_on: date, cal: BusinessCalendar) -> Deadline:
    """The other interested parties allege within 5 business days of their intimation (art. 62)."""
    v = law.APPEAL_ALLEGATIONS_BUSINESS_DAYS
    return business_days_after("appeal_allegations", intimated_on, v.value, cal, v.basis,
                               "intimação dos demais interessados")


def decision_due(received_on: date, cal: BusinessCalendar, extension_reason: str | None = None) -> Deadline:
    """The appeal's decision: 30 days from the receipt of the case, once more 30 with an explicit reason
    (art. 59 §§1–2)."""
    written_reason(extension_reason, "Lei 9.784/1999 art. 59 §2")
    d = rules.appeal_decision(received_on, extension_reason is not None, cal)
    if extension_reason is None:
        return d
    return Deadline(d.rule, d.due, d.basis, d.moved_from, (f"Prorrogado: {extension_reason.strip()}", *d.steps))


def instance_problem(instance: int, previous: int | None) -> str | None:
    """Why an appeal at `instance` (1 = the first appeal above the deciding authority) cannot be filed after the
    last one at `previous` (None: none yet), or None: instances run 1, 2, 3 in order, and never a fourth
    (art. 57)."""
    top = law.APPEAL_MAX_INSTANCES.value
    if instance > top:
        return f"a {instance}ª instância não existe: o recurso tramita no máximo por {top} instâncias " \
               f"({law.APPEAL_MAX_INSTANCES.basis})"
    expected = 1 if previous is None else previous + 1
    if instance != expected:
        return f"a próxima instância deste caso é a {expected}ª" if expected <= top else \
            f"as {top} instâncias já se esgotaram ({law.APPEAL_MAX_INSTANCES.basis})"
    return None


def suspensive_problem(granted: bool, reason: str | None) -> str | None:
    """A grant of suspensive effect needs its written reason (art. 61 sole paragraph); none is the rule."""
    if granted and not (reason or "").strip():
        return f"o efeito suspensivo só se concede com a razão escrita ({law.APPEAL_SUSPENSIVE})"
    if not granted and (reason or "").strip():
        return "a razão do efeito suspensivo só se informa quando ele é concedido"
    return None


def outcome_problem(outcome: str, on_time: bool) -> str | None:
    """An appeal filed out of time can only be not known (art. 63 I); unknown outcomes are refused."""
    if outcome not in OUTCOMES:
        return "resultado desconhecido: " + ", ".join(OUTCOMES.values())
    if not on_time and outcome != "não conhecido":
        return f"o recurso fora do prazo não é conhecido ({law.APPEAL_NOT_KNOWN_LATE})"
    return None


def path_basis() -> str:
    """Every article of the path, for an explanation's footer."""
    return join_basis(law.APPEAL_DAYS.basis, law.APPEAL_RECONSIDERATION_DAYS.basis,
                      law.APPEAL_ALLEGATIONS_BUSINESS_DAYS.basis, law.APPEAL_DECISION_DAYS.basis,
                      law.APPEAL_MAX_INSTANCES.basis, law.APPEAL_SUSPENSIVE)
