"""The periods of a request's administrative process under Lei 9.784/1999: what the Authority owes the parties
and what the parties owe in the process (issue 26, section 1).

    act_due          art. 24: an act with no specific period, 5 days; up to double with proven reason (sole §)
    opinion_due      art. 42: a mandatory opinion, 15 days at most
    allegations_due  art. 44: the party's allegations after the instruction ends, 10 days at most from the party's
                     ciência that it ended (art. 66 caput: "a partir da data da cientificação oficial")
    decision_due     art. 49: the decision, 30 days after the instruction ends; once more 30 with written reason
    intimation_due   arts. 26 §2 and 41: the intimation at least 3 business days before a hearing, proof or act
    information_due  art. 39: information or evidence asked of the party, by the day the intimation fixes (moved
                     forward like every end, art. 66 §1); an intimation that fixes none leaves the 5 days of art. 24

The days of arts. 24, 42, 44 and 49 are calendar days (art. 66 §2: "contam-se de modo contínuo"), counted
from the day after the start (art. 66 caput) and moved forward when the period ends on a day without full
office hours (§1) — `valuation.deadlines.counting.days_after`. Arts. 26 §2 and 41 say "dias úteis": the
intimation opens a period of n business days, counted as art. 66 counts, which must be complete on the hearing's
day, as every notice of minimum antecedence (`counting.notice_period`;
docs/decisions/105-notices-of-minimum-antecedence.md).

Each period is a dated policy (`valuation.policies.defaults`, `process=True`): the value in force on the day
the period starts, passed in as a `LegalValue`; the extensions are fixed by law (`core.law`).
`request_deadlines` derives every deadline of one request from its steps. Pure: no database, no clock.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from valuation.core import law
from valuation.core.calendar import BusinessCalendar
from valuation.deadlines.counting import (
    ART66,
    Deadline,
    days_after,
    fmt,
    join_basis,
    move_forward,
    notice_period,
    notice_steps,
)
from valuation.deadlines.params import reference
from valuation.policies.defaults import DEFAULT_BY_KEY, PROCESS_KEYS

_Param = law.LegalValue[int]
AUTHORITY, PARTY = "authority", "party"
OWED_BY_LABELS = {AUTHORITY: "Autoridade Naval", PARTY: "Interessado"}


def default(key: str) -> _Param:
    """The policy's default as a LegalValue (what a rule takes when no value in force is given)."""
    spec = DEFAULT_BY_KEY[key]
    return law.LegalValue(int(spec.value), spec.basis)  # type: ignore[call-overload]


DEFAULT: dict[str, _Param] = {key: default(key) for key in PROCESS_KEYS}   # the law's periods (tests, no store)


def written_reason(reason: str | None, article: str) -> str | None:
    """`reason` as given (None: no extension), or ValueError when it is blank: an extension needs its written
    reason (`article`)."""
    if reason is not None and not reason.strip():
        raise ValueError(f"a prorrogação exige motivação escrita ({article})")
    return reason


def _with_head(d: Deadline, head: str, basis: str) -> Deadline:
    return Deadline(d.rule, d.due, join_basis(basis, ART66), d.moved_from, (head, *d.steps))


def act_due(start: date, cal: BusinessCalendar, days: _Param = DEFAULT["process_act_days"],
            extension_reason: str | None = None) -> Deadline:
    """An act with no specific period (of the Authority or of a party): `days` (law: 5) days after `start`;
    with a proven reason, up to double (Lei 9.784/1999 art. 24 and sole paragraph)."""
    reason = written_reason(extension_reason, "Lei 9.784/1999 art. 24 parágrafo único")
    n = days.value * (law.PROCESS_ACT_EXTENSION.value if reason else 1)
    basis = join_basis(reference(days), law.PROCESS_ACT_EXTENSION.basis if reason else "")
    head = (f"Ato sem prazo específico: {n} dias" + (f", dilatado até o dobro ({reason.strip()})" if reason else "")
            + f" ({basis})")
    return _with_head(days_after("process_act", start, n, cal, basis, "ciência do ato a praticar"), head, basis)


def opinion_due(requested: date, cal: BusinessCalendar, days: _Param = DEFAULT["process_opinion_days"]) -> Deadline:
    """A mandatory opinion of a consultative body: at most `days` (law: 15) days after it was asked
    (Lei 9.784/1999 art. 42)."""
    basis = reference(days)
    head = f"Parecer obrigatório em até {days.value} dias ({basis})"
    return _with_head(days_after("process_opinion", requested, days.value, cal, basis, "pedido do parecer"),
                      head, basis)


def allegations_due(notified: date, cal: BusinessCalendar,
                    days: _Param = DEFAULT["process_allegations_days"]) -> Deadline:
    """The party's allegations: at most `days` (law: 10) days after the instruction ends (Lei 9.784/1999
    art. 44), counted from the party's ciência that it ended, `notified` (art. 66 caput: periods run from the
    official notification)."""
    basis = join_basis(reference(days), f"{law.L9784} art. 66 caput (a partir da cientificação oficial)")
    head = (f"Manifestação do interessado em até {days.value} dias do encerramento da instrução, contados da sua "
            f"ciência ({basis})")
    return _with_head(days_after("process_allegations", notified, days.value, cal, reference(days),
                                 "ciência do encerramento da instrução"), head, basis)


def decision_due(instruction_ended: date, cal: BusinessCalendar, days: _Param = DEFAULT["process_decision_days"],
                 extension_reason: str | None = None) -> Deadline:
    """The decision: up to `days` (law: 30) days after the instruction ends, extended once by an equal
    period with an express written reason (Lei 9.784/1999 art. 49)."""
    reason = written_reason(extension_reason, "Lei 9.784/1999 art. 49")
    n = days.value * (law.PROCESS_DECISION_EXTENSION.value if reason else 1)
    basis = join_basis(reference(days), law.PROCESS_DECISION_EXTENSION.basis if reason else "")
    head = (f"Decisão em até {n} dias da conclusão da instrução"
            + (f", prorrogado por igual período ({reason.strip()})" if reason else "") + f" ({basis})")
    return _with_head(days_after("process_decision", instruction_ended, n, cal, basis, "conclusão da instrução"),
                      head, basis)


def intimation_due(hearing: date, cal: BusinessCalendar,
                   business_days: _Param = DEFAULT["process_intimation_business_days"]) -> Deadline:
    """The latest day to intimate the party of a hearing, proof or diligence on `hearing`: at least
    `business_days` (law: 3) business days before it (Lei 9.784/1999 arts. 26 §2 and 41) — the period the
    intimation opens, counted by art. 66, is complete on the hearing's day (`counting.notice_period`)."""
    n = business_days.value
    notice = notice_period(hearing, n, cal)
    basis = reference(business_days)
    steps = notice_steps(hearing, "Comparecimento, prova ou diligência", n, basis, notice, "Último dia para intimar",
                         cal)
    return Deadline("process_intimation", notice.due, join_basis(basis, ART66), None, steps)


INFORMATION_ARTICLE = "Lei 9.784/1999 art. 39"
INFORMATION_LATE = ("Não atendida a intimação, o órgão pode suprir de ofício a omissão e não se exime de decidir "
                    "(Lei 9.784/1999 art. 39 parágrafo único); se os dados ou documentos forem necessários à "
                    "apreciação do pedido, o não atendimento no prazo fixado implica o arquivamento do processo "
                    "(art. 40)")


def information_due(intimated: date, cal: BusinessCalendar, fixed: date | None = None,
                    days: _Param = DEFAULT["process_act_days"]) -> Deadline:
    """Information or evidence asked of the party (Lei 9.784/1999 art. 39: the intimation names the date, period,
    form and conditions): due on the last day the intimation `fixed` — the end of a period to act, so moved to
    the next full business day when the office has no full hours on it (art. 66 §1); an intimation that fixed
    none leaves the period of an act with no specific period, `days` (law: 5) after the intimation (art. 24).
    Not met: the Authority may supply it and still decides (art. 39 sole §), or archives the request when it was
    needed to judge it (art. 40) — said in the explanation."""
    if fixed is None:
        basis = join_basis(INFORMATION_ARTICLE, reference(days))
        head = (f"Informações ou documentos pedidos ao interessado, sem prazo fixado na intimação: {days.value} "
                f"dias ({basis}). {INFORMATION_LATE}")
        return _with_head(days_after("process_information", intimated, days.value, cal, basis,
                                     "intimação para prestar as informações"), head, basis)
    if fixed <= intimated:
        raise ValueError("o prazo fixado na intimação deve ser posterior a ela (Lei 9.784/1999 art. 39)")
    due, moved, more = move_forward(fixed, cal)
    steps = (f"Informações ou documentos pedidos ao interessado, intimado em {fmt(intimated)}, até a data fixada "
             f"na intimação ({INFORMATION_ARTICLE}). {INFORMATION_LATE}",
             f"Data fixada na intimação: {fmt(fixed)}", *more, f"Vencimento: {fmt(due)}")
    return Deadline("process_information", due, join_basis(INFORMATION_ARTICLE, ART66), moved, steps)


# -- a request's steps and the deadlines they start ------------------------------------------------------------
STEP_LABELS: dict[str, str] = {
    "instruction_opened": "Instrução aberta",
    "opinion_requested": "Parecer solicitado",
    "opinion_given": "Parecer emitido",
    "hearing_set": "Comparecimento ou diligência marcada",
    "intimated": "Interessado intimado",
    "instruction_ended": "Instrução encerrada",
    "instruction_end_notified": "Interessado cientificado do encerramento da instrução (art. 44)",
    "allegations_filed": "Alegações apresentadas",
    "information_requested": "Informações ou documentos solicitados ao interessado (art. 39)",
    "information_provided": "Informações ou documentos apresentados pelo interessado",
    "act_extended": "Prazo do ato dilatado (art. 24 parágrafo único)",
    "decision_extended": "Prazo da decisão prorrogado (art. 49)",
    "decided": "Decidido",
}
STEP_KINDS: tuple[str, ...] = tuple(STEP_LABELS)
FILED_LABEL = "Protocolado"
REASONED_STEPS = ("act_extended", "decision_extended")    # a written reason is required
DATED_STEPS = ("hearing_set",)                            # the day of the hearing is required
FIXED_DAY_STEPS = ("information_requested",)              # the day the intimation fixed, when it fixed one
PARTY_STEPS = ("allegations_filed", "information_provided")   # the party's: no act of the Authority
PERIOD_LABELS: dict[str, str] = {
    "process_act": "Primeiro ato da Autoridade (abrir a instrução)",
    "process_opinion": "Emitir o parecer",
    "process_intimation": "Intimar o interessado",
    "process_allegations": "Alegações finais do interessado",
    "process_decision": "Decidir o requerimento",
    "process_information": "Prestar as informações ou documentos solicitados",
}


@dataclass(frozen=True)
class Step:
    """One step of a request: its kind (STEP_KINDS), the day, the hearing's day (hearing_set) and the reason."""

    kind: str
    day: date
    reference_day: date | None = None
    reason: str | None = None


@dataclass(frozen=True)
class ProcessDeadline:
    """A deadline of a request or of an appeal (`valuation.proceedings.appeals`): who owes it (AUTHORITY or
    PARTY), the computed deadline, the day it was met, and the request's step that started it (None: the filing,
    or an appeal's)."""

    kind: str
    owed_by: str
    deadline: Deadline
    met_on: date | None
    started: Step | None = None


PolicyAt = Callable[[str, date], _Param]


def _defaults(key: str, day: date) -> _Param:
    return DEFAULT[key]


def _first(steps: Sequence[Step], kinds: Sequence[str], after: date) -> Step | None:
    return next((s for s in steps if s.kind in kinds and s.day >= after), None)


def request_deadlines(filed_on: date, steps: Sequence[Step], cal: BusinessCalendar,
                      policy: PolicyAt = _defaults) -> list[ProcessDeadline]:
    """Every deadline the steps of one request start (in the order they start), each with its met day:
    the first act after filing (art. 24; met by any later step of the Authority), each opinion asked
    (art. 42; met by the next opinion given), each hearing set (arts. 26 §2 and 41; met by an intimation
    on or after the step), each request for information of the party (art. 39; the party's, met by the next
    information provided), and after the instruction ends the decision (art. 49; met by the decision) and — from
    the party's ciência that it ended, once recorded (art. 66 caput) — the party's allegations (art. 44).
    `policy(key, day)` is the period in force on `day`."""
    steps = sorted(steps, key=lambda s: s.day)
    reason = {k: next((s.reason for s in steps if s.kind == k), None) for k in REASONED_STEPS}
    out: list[ProcessDeadline] = []
    acted = _first(steps, [k for k in STEP_KINDS if k != "act_extended" and k not in PARTY_STEPS], filed_on)
    out.append(ProcessDeadline("process_act", AUTHORITY, act_due(filed_on, cal, policy("process_act_days", filed_on),
                                                                 reason["act_extended"]),
                               acted.day if acted else None))
    for s in steps:
        if s.kind == "opinion_requested":
            given = _first(steps, ("opinion_given",), s.day)
            out.append(ProcessDeadline("process_opinion", AUTHORITY,
                                       opinion_due(s.day, cal, policy("process_opinion_days", s.day)),
                                       given.day if given else None, s))
        elif s.kind == "hearing_set" and s.reference_day is not None:
            told = _first(steps, ("intimated",), s.day)
            out.append(ProcessDeadline("process_intimation", AUTHORITY,
                                       intimation_due(s.reference_day, cal,
                                                      policy("process_intimation_business_days", s.day)),
                                       told.day if told else None, s))
        elif s.kind == "information_requested":
            provided = _first(steps, ("information_provided",), s.day)
            out.append(ProcessDeadline("process_information", PARTY,
                                       information_due(s.day, cal, s.reference_day, policy("process_act_days", s.day)),
                                       provided.day if provided else None, s))
    ended = _first(steps, ("instruction_ended",), filed_on)
    if ended is not None:
        told = _first(steps, ("instruction_end_notified",), ended.day)
        if told is not None:
            filed = _first(steps, ("allegations_filed",), ended.day)
            out.append(ProcessDeadline("process_allegations", PARTY,
                                       allegations_due(told.day, cal, policy("process_allegations_days", told.day)),
                                       filed.day if filed else None, told))
        decided = _first(steps, ("decided",), ended.day)
        out.append(ProcessDeadline("process_decision", AUTHORITY,
                                   decision_due(ended.day, cal, policy("process_decision_days", ended.day),
                                                reason["decision_extended"]),
                                   decided.day if decided else None, ended))
    return out


def current_step(steps: Sequence[Step]) -> str:
    """The pt-BR label of the request's latest step (FILED_LABEL without one)."""
    last = max(steps, key=lambda s: s.day, default=None)
    return STEP_LABELS[last.kind] if last is not None else FILED_LABEL


def step_problem(kind: str, day: date, filed_on: date, reference_day: date | None, reason: str | None,
                 steps: Sequence[Step]) -> tuple[str, str] | None:
    """(field, pt-BR message) when a step cannot be recorded: before the filing, a hearing without its
    day or before the step, an extension without a written reason or made twice (art. 49: once), a step
    after the decision; None when it may."""
    if day < filed_on:
        return "day", f"anterior ao protocolo ({fmt(filed_on)})"
    if any(s.kind == "decided" for s in steps):
        return "kind", "o requerimento já foi decidido"
    if kind in DATED_STEPS and (reference_day is None or reference_day <= day):
        return "reference_day", "informe o dia do comparecimento ou diligência, posterior ao registro"
    if kind in FIXED_DAY_STEPS and reference_day is not None and reference_day <= day:
        return "reference_day", "o prazo fixado na intimação deve ser posterior a ela (Lei 9.784/1999 art. 39)"
    if kind not in (*DATED_STEPS, *FIXED_DAY_STEPS) and reference_day is not None:
        return "reference_day", "só o comparecimento ou diligência e o pedido de informações têm esta data"
    if kind in REASONED_STEPS and not (reason or "").strip():
        return "reason", "a prorrogação exige motivação escrita (Lei 9.784/1999 arts. 24 e 49)"
    if kind in REASONED_STEPS and any(s.kind == kind for s in steps):
        return "kind", "o prazo só pode ser prorrogado uma vez"
    if kind == "decision_extended" and not any(s.kind == "instruction_ended" for s in steps):
        return "kind", "a prorrogação da decisão corre da conclusão da instrução (art. 49)"
    if kind == "instruction_end_notified":
        return _notified_problem(day, steps)
    return None


def _notified_problem(day: date, steps: Sequence[Step]) -> tuple[str, str] | None:
    """The party's ciência that the instruction ended (art. 44; art. 66 caput) follows the end, once."""
    ended = next((s for s in steps if s.kind == "instruction_ended"), None)
    if ended is None:
        return "kind", "a ciência do encerramento da instrução segue o encerramento (art. 44)"
    if any(s.kind == "instruction_end_notified" for s in steps):
        return "kind", "a ciência do encerramento da instrução já foi registrada"
    if day < ended.day:
        return "day", f"anterior ao encerramento da instrução ({fmt(ended.day)})"
    return None


def as_steps(rows: Sequence[dict[str, Any]]) -> list[Step]:
    """Steps from the stored rows (kind, day, reference_day, reason)."""
    return [Step(r["kind"], r["day"], r.get("reference_day"), r.get("reason")) for r in rows]
