"""The path of an appeal against a decision of the Naval Authority (Lei 7.542/1986 art. 33; Lei 9.784/1999
arts. 56–65), as pure rules: no database, no clock.

    filing_deadline       art. 59 caput: 10 days from the notification or official publication of the decision
    reconsideration_due   art. 56 §1: the authority that decided reconsiders within 5 days, or forwards the appeal
    allegations_due       art. 62: the other interested parties, intimated, allege within 5 business days
    decision_due          art. 59 §§1–2: 30 days from the receipt of the case, once more 30 with explicit reason
    instance_problem      art. 57: at most three administrative instances (art. 33 sole §: the Minister of the
                          Navy, today the Navy's Commander, is the last): the authority that decided and two above
                          it, so at most two appeals; a third is recorded and not known (art. 63 IV), never a fourth
    admissibility         art. 63 I: an appeal filed out of time is recorded and not known (não conhecido)
    not_known_reason      why an appeal can only be declared not known: late (art. 63 I) or beyond the instances
                          (art. 63 IV)
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

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from valuation.core import law
from valuation.core.calendar import BusinessCalendar
from valuation.deadlines import rules
from valuation.deadlines.counting import Deadline, business_days_after, days_after, fmt, join_basis
from valuation.proceedings.periods import AUTHORITY, PARTY, ProcessDeadline, written_reason

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


def appeal_title(instance: int) -> str:
    """How an appeal is named: its number and the instance that decides it — the decision was the 1st instance
    (art. 57), so '1º recurso (2ª instância)'; an appeal beyond the two has no instance to decide it."""
    if instance > law.APPEAL_MAX_APPEALS.value:
        return f"{instance}º recurso (esfera administrativa exaurida)"
    return f"{instance}º recurso ({instance + 1}ª instância)"


def instance_problem(instance: int, previous: int | None) -> str | None:
    """Why the appeal number `instance` (1 = the first appeal, decided by the authority above the one that decided)
    cannot be filed after the last one, number `previous` (None: none yet), or None. Appeals run 1, 2 in order
    (art. 57: three instances, so at most two appeals); a third is recorded, to be declared not known (art. 63 IV:
    `not_known_reason`); never a fourth."""
    top = law.APPEAL_MAX_APPEALS.value
    if instance > top + 1:
        return f"as {law.APPEAL_MAX_INSTANCES.value} instâncias já se esgotaram: não cabe o {instance}º recurso " \
               f"({law.APPEAL_MAX_INSTANCES.basis}; {law.APPEAL_NOT_KNOWN_EXHAUSTED})"
    expected = 1 if previous is None else previous + 1
    if instance != expected:
        return f"o próximo recurso deste caso é o {expected}º"
    return None


def not_known_reason(on_time: bool, instance: int = 1) -> str | None:
    """Why an appeal can only be declared not known, or None when it can be judged: filed after the two appeals the
    three instances allow (art. 57; art. 63 IV: "após exaurida a esfera administrativa"), or out of time
    (art. 63 I)."""
    if instance > law.APPEAL_MAX_APPEALS.value:
        return (f"o {instance}º recurso não é conhecido: a esfera administrativa se exauriu nas "
                f"{law.APPEAL_MAX_INSTANCES.value} instâncias ({law.APPEAL_MAX_APPEALS.basis}; "
                f"{law.APPEAL_NOT_KNOWN_EXHAUSTED})")
    if not on_time:
        return f"o recurso fora do prazo não é conhecido ({law.APPEAL_NOT_KNOWN_LATE})"
    return None


def suspensive_problem(granted: bool, reason: str | None) -> str | None:
    """A grant of suspensive effect needs its written reason (art. 61 sole paragraph); none is the rule."""
    if granted and not (reason or "").strip():
        return f"o efeito suspensivo só se concede com a razão escrita ({law.APPEAL_SUSPENSIVE})"
    if not granted and (reason or "").strip():
        return "a razão do efeito suspensivo só se informa quando ele é concedido"
    return None


def outcome_problem(outcome: str, on_time: bool, instance: int = 1) -> str | None:
    """An appeal filed out of time (art. 63 I) or beyond the instances (art. 63 IV) can only be not known; unknown
    outcomes are refused."""
    if outcome not in OUTCOMES:
        return "resultado desconhecido: " + ", ".join(OUTCOMES.values())
    why = not_known_reason(on_time, instance)
    if why is not None and outcome != "não conhecido":
        return why
    return None


def path_basis() -> str:
    """Every article of the path, for an explanation's footer."""
    return join_basis(law.APPEAL_DAYS.basis, law.APPEAL_RECONSIDERATION_DAYS.basis,
                      law.APPEAL_ALLEGATIONS_BUSINESS_DAYS.basis, law.APPEAL_DECISION_DAYS.basis,
                      law.APPEAL_MAX_INSTANCES.basis, law.APPEAL_NOT_KNOWN_EXHAUSTED, law.APPEAL_SUSPENSIVE)


# -- the appeal's steps and the deadlines they start (issue 26 §2) -----------------------------------------------
STEP_LABELS: dict[str, str] = {
    "reconsidered": "Reconsideração pela autoridade que decidiu, no todo ou em parte (art. 56 §1)",
    "forwarded": "Decisão mantida; recurso encaminhado e recebido pela autoridade superior (arts. 56 §1 e 59 §1)",
    "others_intimated": "Intimação dos demais interessados (art. 62)",
    "allegations_filed": "Alegações dos demais interessados (art. 62)",
    "decision_extended": "Prorrogação do prazo de decisão, com justificativa (art. 59 §2)",
    "decided": "Decisão do recurso",
}
STEP_KINDS = tuple(STEP_LABELS)
RULING_STEPS = ("reconsidered", "decided")   # the steps that carry an outcome (and act on a decision it grants)
GRANTED = ("provido", "parcialmente provido")   # the outcomes that act on the decision (and a reconsideration's)
FULL = "provido"                                 # a reconsideration in full ends the appeal; in part it goes on
PERIOD_LABELS: dict[str, str] = {
    "appeal_filing": "Interposição de recurso (Lei 9.784/1999 art. 59)",
    "appeal_reconsideration": "Reconsiderar ou encaminhar o recurso (Lei 9.784/1999 art. 56 §1)",
    "appeal_allegations": "Alegações dos demais interessados no recurso (Lei 9.784/1999 art. 62)",
    "appeal_decision": "Decidir o recurso (Lei 9.784/1999 art. 59 §§1–2)",
    "appeal_effect": "Cumprir o recurso provido: emitir a nova versão do demonstrativo (Lei 9.784/1999 art. 24)",
}


@dataclass(frozen=True)
class AppealStep:
    kind: str
    day: date
    outcome: str | None = None
    reason: str | None = None


def _first(steps: Sequence[AppealStep], *kinds: str) -> AppealStep | None:
    return next((s for s in steps if s.kind in kinds), None)


def step_problem(kind: str, day: date, filed_on: date, on_time: bool, outcome: str | None, reason: str | None,
                 steps: Sequence[AppealStep], instance: int = 1) -> tuple[str, str] | None:
    """(field, why) when a step cannot follow the appeal's `steps`, else None. The deciding authority first
    reconsiders — in full, ending the appeal, or in part — and forwards what it did not reconsider (art. 56 §1:
    "o encaminhará à autoridade superior"; a partial reconsideration does not end the appeal); the superior intimates
    the others and hears them
    (art. 62), may extend once with its reason (art. 59 §2) and decides; nothing after the end. A late appeal
    (art. 63 I) or one beyond the instances (`instance` 3, art. 63 IV) is only declared not known, by whoever
    receives it."""
    not_known = not_known_reason(on_time, instance)
    known = not_known is None
    ended = ending(steps)
    if ended is not None:
        return "kind", f"o recurso já terminou em {fmt(ended.day)} ({STEP_LABELS[ended.kind].lower()})"
    if day < filed_on:
        return "day", f"anterior à interposição do recurso ({fmt(filed_on)})"
    last = max((s.day for s in steps), default=None)
    if last is not None and day < last:
        return "day", f"anterior à última etapa registrada ({fmt(last)})"
    forwarded = _first(steps, "forwarded")
    reconsidered = _first(steps, "reconsidered")
    needs: dict[str, tuple[bool, str]] = {
        "reconsidered": (forwarded is None and reconsidered is None and known,
                         not_known or ("a decisão já foi reconsiderada em parte; o restante se encaminha à autoridade "
                                       "superior (art. 56 §1)" if reconsidered else
                                       "a reconsideração cabe à autoridade que decidiu, antes de encaminhar o recurso "
                                       "(art. 56 §1)")),
        "forwarded": (forwarded is None and known, "o recurso já foi encaminhado" if forwarded else str(not_known)),
        "others_intimated": (forwarded is not None, "a intimação dos demais interessados segue o encaminhamento "
                                                    "(art. 62)"),
        "allegations_filed": (_first(steps, "others_intimated") is not None,
                              "as alegações seguem a intimação dos demais interessados (art. 62)"),
        "decision_extended": (forwarded is not None and _first(steps, "decision_extended") is None,
                              "a prorrogação cabe uma vez, depois do recebimento dos autos (art. 59 §2)"),
        "decided": (forwarded is not None or not known,
                    "o recurso é decidido pela autoridade superior, depois do encaminhamento (art. 56 §1)"),
    }
    if kind not in needs:
        return "kind", "etapa desconhecida"
    ok, why = needs[kind]
    if not ok:
        return "kind", why
    if kind == "decision_extended" and not (reason or "").strip():
        return "reason", f"a prorrogação exige justificativa explícita ({law.APPEAL_DECISION_DAYS.basis})"
    if kind in RULING_STEPS:
        allowed_outcomes = GRANTED if kind == "reconsidered" else tuple(OUTCOMES)
        if outcome not in allowed_outcomes:
            return "outcome", "informe o resultado: " + ", ".join(OUTCOMES[o] for o in allowed_outcomes).lower()
        problem = outcome_problem(outcome, on_time, instance)
        if problem is not None:
            return "outcome", problem
    elif outcome is not None:
        return "outcome", "o resultado só se informa na decisão ou na reconsideração"
    return None


def appeal_deadlines(filed_on: date, on_time: bool, steps: Sequence[AppealStep], cal: BusinessCalendar,
                     instance: int = 1) -> list[ProcessDeadline]:
    """Every deadline the appeal's steps have started, with the day each was met: the reconsideration or
    forwarding (5 days, the deciding authority), the others' allegations (5 business days, the parties), the
    decision (30 days from the receipt, +30 once with reason; the "não conhecido" of a late appeal or of one beyond
    the instances counts from its filing)."""
    ended = ending(steps)
    forwarded = _first(steps, "forwarded")
    known = not_known_reason(on_time, instance) is None
    out: list[ProcessDeadline] = []
    if known:   # met by the forwarding or a full reconsideration: one in part still owes the forwarding of the rest
        met = _first(steps, "forwarded") or next((s for s in steps if s.kind == "reconsidered" and s.outcome == FULL),
                                                 None)
        out.append(ProcessDeadline("appeal_reconsideration", AUTHORITY, reconsideration_due(filed_on, cal),
                                  met.day if met else None))
    intimated = _first(steps, "others_intimated")
    if intimated is not None:
        alleged = _first(steps, "allegations_filed")
        out.append(ProcessDeadline("appeal_allegations", PARTY, allegations_due(intimated.day, cal),
                                  alleged.day if alleged else None))
    received = forwarded.day if forwarded is not None else (None if known else filed_on)
    if received is not None:
        extended = _first(steps, "decision_extended")
        decided = _first(steps, "decided")
        out.append(ProcessDeadline("appeal_decision", AUTHORITY,
                                  decision_due(received, cal, extended.reason if extended else None),
                                  decided.day if decided else (ended.day if ended else None)))
    return out


def ending(steps: Sequence[AppealStep]) -> AppealStep | None:
    """The step that ended the appeal — its reconsideration in full, or its decision — or None while it runs: a
    reconsideration in part forwards the rest to the superior (art. 56 §1) and the appeal goes on."""
    return next((s for s in steps if s.kind == "decided" or (s.kind == "reconsidered" and s.outcome == FULL)), None)


def partial_reconsideration(steps: Sequence[AppealStep]) -> AppealStep | None:
    """The reconsideration in part by the authority that decided (art. 56 §1), if there was one."""
    return next((s for s in steps if s.kind == "reconsidered" and s.outcome != FULL), None)


def first_grant(steps: Sequence[AppealStep]) -> AppealStep | None:
    """The first step that granted the appeal in whole or in part (a reconsideration, even partial, or the
    decision): from it the decision appealed against is reformed."""
    return next((s for s in steps if s.kind in RULING_STEPS and s.outcome in GRANTED), None)


def closes_the_case(end: AppealStep) -> bool:
    """Whether an appeal that ended so leaves no further instance: reconsidered (the authority reformed its own
    decision), granted in full, or not known (art. 63 I)."""
    return end.kind == "reconsidered" or end.outcome in ("provido", "não conhecido")


def next_filing(notified: date, cal: BusinessCalendar, instances_used: int, last_end: AppealStep | None,
                ) -> ProcessDeadline | None:
    """The interested party's period to appeal (art. 59 caput) — against the decision (no appeal yet) or
    against the last appeal's decision (`last_end`) when it leaves the case open and an instance remains
    (art. 57: at most two appeals); None when no appeal can follow."""
    if instances_used >= law.APPEAL_MAX_APPEALS.value or (last_end is not None and closes_the_case(last_end)):
        return None
    return ProcessDeadline("appeal_filing", PARTY, filing_deadline(notified, cal), None)


def stage(on_time: bool, steps: Sequence[AppealStep], instance: int = 1) -> str:
    """Where an appeal stands, in pt-BR."""
    ended = ending(steps)
    if ended is not None:
        if ended.kind == "reconsidered":
            return f"decisão reconsiderada em {fmt(ended.day)}"
        return f"decidido em {fmt(ended.day)}: {OUTCOMES[ended.outcome or 'não provido'].lower()}"
    partial = partial_reconsideration(steps)
    if partial is not None and _first(steps, "forwarded") is None:
        return (f"decisão reconsiderada em parte em {fmt(partial.day)}; o restante aguarda o encaminhamento à "
                "autoridade superior (art. 56 §1)")
    if instance > law.APPEAL_MAX_APPEALS.value:
        return "não cabe: esfera administrativa exaurida (art. 63 IV); aguardando a declaração de não conhecimento"
    if not on_time:
        return "fora do prazo: aguardando a declaração de não conhecimento"
    if _first(steps, "allegations_filed"):
        return "alegações recebidas; aguardando a decisão"
    if _first(steps, "others_intimated"):
        return "demais interessados intimados; aguardando as alegações"
    if _first(steps, "forwarded"):
        return "na autoridade superior; aguardando a decisão"
    return "na autoridade que decidiu; aguardando a reconsideração ou o encaminhamento"
