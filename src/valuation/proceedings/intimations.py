"""Intimations with ciência (issue 42 item 3; decision: docs/decisions/144-intimations.md).

    issue_intimation(store, user, request_id, data)   the office intimates the company (an issued, registered act)
    open_intimation(store, user, intimation_id)       the act's file; a representative's first opening is the
                                                      ciência expressa
    record_ar(store, user, intimation_id, day)        a paper intimation: the day of its postal receipt (AR)
    record_tacit(store, as_of)                        the unopened electronic ones whose period ended: ciência tácita
    intimations_of(store, user, request_id=None)      the intimations the user may read, with their ciência

An intimation stands for one step of the request's process that opens a period for the party — information asked
(Lei 9.784/1999 art. 39) or the end of the instruction (art. 44, allegations) — and that step is recorded on the day
of the ciência, so the party's period runs from it (art. 66 caput: "a partir da data da cientificação oficial");
until then the intimation waits for its ciência and no period runs. The ciência of an electronic intimation is
*expressa* on the day a representative of the company opens it (Lei 11.419/2006 art. 5 §1) and *tácita* on the last
of the days the rule gives to open it, counted from the day it was sent (art. 5 §3: 10 calendar days; policy
`intimation_tacit_days`, in force on the day it was sent); a paper one's is the day of its postal receipt (Lei
9.784/1999 art. 26 §3). The job `notices_daily` records the tacit ones every morning.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from valuation.authenticity import registry
from valuation.core import law
from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.forms import Form
from valuation.core.money import format_date_br
from valuation.db.access import (
    Principal,
    allowed,
    chosen_organisation,
    request_scope,
    require,
)
from valuation.db.blobs import BlobStore
from valuation.exports import PdfReport
from valuation.notices import events
from valuation.policies.values import timelines
from valuation.proceedings import periods as pr
from valuation.proceedings import requests as rq
from valuation.process import documents, numbers

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx


@dataclass(frozen=True)
class Act:
    label: str
    basis: str
    period: str
    step: str                 # the request's step its ciência records (periods.STEP_KINDS)
    of_decision: bool = False  # the decision's intimation: its ciência is the decision's notification


DECISION = "decision"
ACTS: dict[str, Act] = {
    "information_requested": Act("Pedido de informações ou documentos", "Lei 9.784/1999 art. 39",
                                 "apresentar até o dia fixado nesta intimação ou, sem dia fixado, em 5 dias (art. 24), "
                                 "contados da ciência", "information_requested"),
    "instruction_end_notified": Act("Encerramento da instrução — alegações finais", "Lei 9.784/1999 art. 44",
                                    "manifestar-se em até 10 dias, contados da ciência", "instruction_end_notified"),
    DECISION: Act("Decisão do requerimento — prazo para recurso",
                  "Lei 9.784/1999 arts. 56 a 59; Lei 7.542/1986 art. 33",
                  f"interpor recurso em até {law.APPEAL_DAYS.value} dias, contados da ciência (Lei 9.784/1999 "
                  "art. 59), pelo Protocolo deste sistema", "intimated", of_decision=True),
}
SYSTEM, PAPER = "sistema", "papel"
DELIVERIES = {SYSTEM: "Na caixa da empresa neste sistema (e aviso por e-mail)", PAPER: "Em papel, com aviso de "
              "recebimento (AR)"}
EXPRESS, TACIT, AR, APPEARANCE = "expressa", "tácita", "AR", "comparecimento"
CIENCIA_LABELS = {EXPRESS: "ciência expressa", TACIT: "ciência tácita", AR: "ciência pelo aviso de recebimento",
                  APPEARANCE: "ciência pelo comparecimento do interessado (Lei 9.784/1999 art. 26 §5)"}
WAITING = "aguardando ciência"
LABELS = {"act": "Ato", "text": "O que a intimação comunica ou pede", "fixed_day": "Dia fixado para apresentar",
          "delivery": "Entrega", "request_id": "Processo (requerimento)", "day": "Data do aviso de recebimento (AR)"}
FIELDS = ("act", "text", "fixed_day", "delivery")
MAX_TEXT = 2000
KIND = "intimation"
TABLE = "intimations"
SYSTEM_ACTOR = "sistema"


@dataclass(frozen=True)
class Issued:
    intimation_id: int
    code: str


def _tacit_days(store: Store | Tx, day: date) -> int:
    return int(timelines(store, ("intimation_tacit_days",))["intimation_tacit_days"].at(day).legal().value)


def tacit_day(issued_on: date, days: int) -> date:
    """The day an unopened electronic intimation is taken as known: the last of `days` calendar days counted from the
    day after it was sent (Lei 11.419/2006 art. 5 §3: "na data do término desse prazo")."""
    return issued_on + timedelta(days=days)


def issue_intimation(store: Store, user: Principal, request_id: object, data: Mapping[str, Any]) -> Issued:
    """Issue an intimation of the request's company (see the module): a registered act (its code, /verificar), a
    notice to the company's people; its period waits for the ciência. dpc or the office's officer; audited."""
    require(user, "manage_requests")
    f = Form(data, allowed=FIELDS)
    act = f.choice("act", LABELS["act"], tuple(ACTS), labels={k: a.label for k, a in ACTS.items()})
    of_decision = act is not None and ACTS[act].of_decision
    req = rq.undecided_request(store, user, request_id, f, LABELS["request_id"], decided=of_decision)
    if of_decision and req is not None:
        problem = _decision_problem(store, int(req["id"]))
        if problem is not None:
            f.fail("request_id", f"{LABELS['request_id']}: {problem}.")
    text = f.text("text", LABELS["text"], max_len=MAX_TEXT, multiline=True)
    fixed = f.date("fixed_day", LABELS["fixed_day"], required=False)
    delivery = f.choice("delivery", LABELS["delivery"], tuple(DELIVERIES))
    today = store.today()
    if fixed is not None and act != "information_requested":
        f.fail("fixed_day", f"{LABELS['fixed_day']}: só um pedido de informações fixa um dia (art. 39).")
    elif fixed is not None and fixed <= today:
        f.fail("fixed_day", f"{LABELS['fixed_day']}: deve ser depois de hoje ({format_date_br(today)}).")
    if delivery == SYSTEM and req is not None and req["organisation_id"] is None:
        f.fail("delivery", f"{LABELS['delivery']}: o requerimento não é de uma empresa com acesso ao sistema; "
                           "intime em papel.")
    f.done()
    assert req is not None and act is not None and delivery is not None
    tacit = _tacit_days(store, today) if delivery == SYSTEM else None
    blobs = BlobStore.for_database(store.path)
    with blobs.staging() as staging:

        def write(tx: Tx) -> Issued:
            new_id = int(tx.scalar(
                "INSERT INTO intimations (request_id, act, text, fixed_day, delivery, organisation_id, office_code, "
                "tacit_days, issued_by, issued_at, issued_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                [req["id"], act, text, fixed, delivery, req["organisation_id"], req["office_code"], tacit,
                 user.username, tx.store.now(), today]))
            documents.add(tx, ("request", int(req["id"])), "intimation", new_id)   # a document of its process
            tx.audit("intimation_issued", "intimation", new_id, None,
                     {"request_id": req["id"], "act": act, "delivery": delivery, "fixed_day": fixed,
                      "tacit_days": tacit})
            nup = numbers.request_nups(tx, [int(req["id"])]).get(int(req["id"]))
            stamp = registry.new_stamp(nup)
            pdf = _render(tx, new_id, nup, user, stamp)
            registry.register_kept(tx, stamp, pdf, staging.put(pdf), content_key=_key(new_id), kind=KIND,
                                   record=(TABLE, new_id), office=str(req["office_code"]), actor=user.username)
            if delivery == SYSTEM and req["organisation_id"] is not None:
                events.intimation_issued(tx, intimation_key=f"intimation:{new_id}",
                                         organisation_id=int(req["organisation_id"]),
                                         act=f"{ACTS[act].label} — requerimento nº {req['id']}", nup=nup,
                                         period=ACTS[act].period, link="filings")
            staging.publish()
            return Issued(new_id, stamp.printed_code)

        return store.write(user.username, write)


def _decision_problem(store: Store | Tx, request_id: int) -> str | None:
    """Why the decision of request `request_id` cannot be intimated now: its notification is recorded already, or an
    intimation of it waits for its ciência; None when it can."""
    if store.scalar("SELECT count(*) FROM administrative_decisions WHERE record_table = 'requests' AND record_id = ?",
                    [request_id]):
        return f"a decisão do requerimento nº {request_id} já tem sua ciência registrada"
    if pending_decision(store, request_id) is not None:
        return f"a decisão do requerimento nº {request_id} já foi intimada e aguarda a ciência"
    return None


def _key(intimation_id: int) -> str:
    return registry.content_key({"intimation": int(intimation_id)})


def _render(tx: Tx, intimation_id: int, nup: str | None, user: Principal, stamp: Any) -> bytes:
    row = tx.fetch_one("SELECT i.*, g.name AS organisation, w.code AS wreck_code, w.name AS wreck_name "
                       "FROM intimations i JOIN requests q ON q.id = i.request_id JOIN wrecks w ON w.id = q.wreck_id "
                       "LEFT JOIN organisations g ON g.id = i.organisation_id WHERE i.id = ?", [intimation_id])
    assert row is not None
    act = ACTS[str(row["act"])]
    report = PdfReport(f"Intimação nº {intimation_id}", f"Requerimento nº {row['request_id']}"
                       + (f" — NUP {nup}" if nup else ""), stamp=stamp)
    report.heading("1. Intimado")
    report.key_values([("Empresa", row["organisation"] or "o requerente"), ("NUP do processo", nup or "—"),
                       ("Naufrágio", f"{row['wreck_code']} — {row['wreck_name']}"),
                       ("Organização Militar", row["office_code"]), ("Emitida em", format_date_br(row["issued_on"])),
                       ("Entrega", DELIVERIES[str(row["delivery"])])])
    report.heading(f"2. {act.label} ({act.basis})")
    report.paragraph(str(row["text"]))
    if row["fixed_day"] is not None:
        report.key_values([("Apresentar até", format_date_br(row["fixed_day"]))])
    report.heading("3. Prazo e ciência")
    report.paragraph(f"Prazo: {act.period}. Os prazos contam-se da data da cientificação oficial (Lei 9.784/1999 "
                     "art. 66).")
    if row["delivery"] == SYSTEM:
        tacit = format_date_br(tacit_day(row["issued_on"], int(row["tacit_days"])))
        report.paragraph(f"Ciência: no dia em que a empresa abrir esta intimação no sistema (Lei 11.419/2006 art. 5 "
                         f"§1); não aberta, considera-se feita em {tacit}, ao fim de {row['tacit_days']} dias corridos "
                         "do envio (art. 5 §3).")
    else:
        report.paragraph("Ciência: na data do aviso de recebimento (Lei 9.784/1999 art. 26 §3).")
    report.heading("4. Assinatura")
    report.signature_lines([(user.full_name, f"Autoridade Naval — {row['office_code']}")])
    return report.bytes()


def _ciencia(tx: Tx, row: Mapping[str, Any], kind: str, day: date, opened_by: str | None, actor: str) -> None:
    """Record the ciência and the request's step it stands for, on `day`, in transaction `tx`; the decision's is also
    its notification (`_notify_decision`)."""
    act = ACTS[str(row["act"])]
    note = f"Intimação nº {row['id']}: {CIENCIA_LABELS[kind]}" + (" da decisão" if act.of_decision else "")
    step_id = rq.insert_step(tx, actor, int(row["request_id"]), act.step, day,
                             None if act.of_decision else row["fixed_day"], None, note)
    if act.of_decision:
        _notify_decision(tx, row, day, actor)
    tx.execute("INSERT INTO intimation_ciencias (intimation_id, kind, day, opened_by, step_id, recorded_by, "
               "recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
               [row["id"], kind, day, opened_by, step_id, actor, tx.store.now()])
    tx.audit("intimation_ciencia", "intimation", int(row["id"]), None, {"kind": kind, "day": day, "step_id": step_id})


def pending_decision(db: Store | Tx, request_id: int) -> dict[str, Any] | None:
    """The intimation of the request's decision still awaiting its ciência (id, request_id, act, fixed_day), or None."""
    return db.fetch_one("SELECT i.id, i.request_id, i.act, i.fixed_day FROM intimations i WHERE i.request_id = ? "
                        "AND i.act = ? AND i.id NOT IN (SELECT intimation_id FROM intimation_ciencias)",
                        [request_id, DECISION])


def supply_ciencia(tx: Tx, row: Mapping[str, Any], day: date, actor: str) -> None:
    """The party appeared in the process (it filed against the act) before its intimation's ciência: the appearance
    supplies it on `day` (Lei 9.784/1999 art. 26 §5), in transaction `tx`."""
    _ciencia(tx, row, APPEARANCE, day, None, actor)


def _notify_decision(tx: Tx, row: Mapping[str, Any], day: date, actor: str) -> None:
    """The request's decision as the Authority's decision open to appeal, notified on the ciência's `day` (Lei
    9.784/1999 art. 59: the 10 days run from it): one record (`appeal_records.record_decision`'s table), a document of
    the request's process, carrying what the intimation said; the appeal's period runs from it."""
    from valuation.proceedings import appeal_records

    q = tx.fetch_one("SELECT q.id, q.office_code, q.wreck_id, q.organisation_id, o.name AS office_name "
                     "FROM requests q LEFT JOIN offices o ON o.code = q.office_code WHERE q.id = ?",
                     [row["request_id"]])
    decided = rq.decided_on(tx, int(row["request_id"]))
    assert q is not None and decided is not None
    text = tx.scalar("SELECT text FROM intimations WHERE id = ?", [row["id"]])
    appeal_records.insert_decision(tx, "request", {
        "record_id": int(q["id"]), "office_code": q["office_code"], "wreck_id": q["wreck_id"], "contract_id": None,
        "organisation_id": q["organisation_id"]}, {
        "summary": str(text), "authority": str(q["office_name"] or q["office_code"]), "decided_on": decided,
        "notice": "notificação", "notified_on": max(day, decided)}, actor)


_INTIMATIONS = """
SELECT i.id, i.request_id, w.code AS wreck, i.act, i.text, i.fixed_day, i.delivery, i.organisation_id,
       g.name AS organisation, i.office_code, i.tacit_days, i.issued_by, i.issued_at, i.issued_on,
       c.kind AS ciencia_kind, c.day AS ciencia_day,
       coalesce(u.full_name, c.opened_by) AS opened_by_name,
       (SELECT d.code FROM issued_documents d WHERE d.kind = 'intimation' AND d.record_table = 'intimations'
        AND d.record_id = i.id ORDER BY d.id DESC LIMIT 1) AS code
FROM intimations i JOIN requests q ON q.id = i.request_id JOIN wrecks w ON w.id = q.wreck_id
LEFT JOIN organisations g ON g.id = i.organisation_id
LEFT JOIN intimation_ciencias c ON c.intimation_id = i.id LEFT JOIN users u ON u.username = c.opened_by
WHERE {scope} AND (? IS NULL OR i.request_id = ?) AND (? IS NULL OR i.id = ?) AND (NOT ? OR c.id IS NULL)
ORDER BY i.issued_at DESC, i.id DESC"""


def ciencia_text(row: Mapping[str, Any]) -> str:
    """The ciência as a person reads it: 'ciência expressa em 09/12/2026 (Ana Souza)', 'aguardando ciência (tácita
    em 17/12/2026)', 'aguardando ciência (aviso de recebimento)'."""
    if row.get("ciencia_kind"):
        who = f" ({row['opened_by_name']})" if row.get("opened_by_name") else ""
        return f"{CIENCIA_LABELS[str(row['ciencia_kind'])]} em {format_date_br(row['ciencia_day'])}{who}"
    if row["delivery"] == SYSTEM:
        return f"{WAITING} (tácita em {format_date_br(tacit_day(row['issued_on'], int(row['tacit_days'])))})"
    return f"{WAITING} (aviso de recebimento)"


def intimations_of(store: Store | Tx, user: Principal, request_id: int | None = None, *,
                   intimation_id: int | None = None, waiting: bool = False) -> list[dict[str, Any]]:
    """The intimations the user may read (its company's, its office's, or all for DPC), newest first, each with the
    process NUP, its act in Portuguese and its ciência (`ciencia_text`); `waiting`: those still without it."""
    require(user, "read_requests")
    scope, params = request_scope(user, "q")     # an officer: its office's requests, whose intimations these are
    rows = store.fetch(_INTIMATIONS.format(scope=scope),
                       [*params, request_id, request_id, intimation_id, intimation_id, waiting])
    nups = numbers.request_nups(store, {int(r["request_id"]) for r in rows})
    return [{**r, "nup": nups.get(int(r["request_id"])), "act_pt": ACTS[str(r["act"])].label,
             "ciencia_pt": ciencia_text(r)} for r in rows]


def _one(store: Store | Tx, user: Principal, intimation_id: object) -> dict[str, Any]:
    if isinstance(intimation_id, bool) or not isinstance(intimation_id, int):
        raise NotFound(f"Intimação {intimation_id} não encontrada.", what="intimation", key=intimation_id)
    rows = intimations_of(store, user, intimation_id=intimation_id)
    if not rows:
        raise NotFound(f"Intimação {intimation_id} não encontrada.", what="intimation", key=intimation_id)
    return rows[0]


def open_intimation(store: Store, user: Principal, intimation_id: int) -> bytes:
    """The intimation's registered file. A representative of the company (`file_filings`) opening an electronic one
    for the first time gives its ciência expressa, today (recorded with who opened it and the request's step)."""
    row = _one(store, user, intimation_id)
    if row["delivery"] == SYSTEM and row["ciencia_kind"] is None and allowed(user, "file_filings") \
            and row["organisation_id"] == chosen_organisation(user, None, any_with="manage_requests"):

        def write(tx: Tx) -> None:
            if tx.scalar("SELECT count(*) FROM intimation_ciencias WHERE intimation_id = ?", [intimation_id]):
                return      # opened meanwhile (another session): the first opening is the ciência
            _ciencia(tx, row, EXPRESS, tx.store.today(), user.username, user.username)

        store.write(user.username, write)
    data = registry.kept_copy(store, (TABLE, intimation_id), KIND, _key(intimation_id))
    if data is None:
        raise NotFound(f"Intimação {intimation_id} não encontrada.", what="intimation", key=intimation_id)
    return data


def record_ar(store: Store, user: Principal, intimation_id: int, day: object) -> int:
    """A paper intimation's ciência: the day of its postal receipt (AR), not before it was issued nor in the future.
    dpc or the office's officer; audited. Returns the step's id."""
    require(user, "manage_requests")
    row = _one(store, user, intimation_id)
    f = Form({"day": day}, allowed=("day",))
    when = f.date("day", LABELS["day"])
    if row["delivery"] != PAPER:
        f.fail("day", f"{LABELS['day']}: a intimação nº {intimation_id} foi entregue no sistema; a ciência é a da "
                      "abertura ou a tácita.")
    elif row["ciencia_kind"] is not None:
        f.fail("day", f"{LABELS['day']}: a ciência da intimação nº {intimation_id} já foi registrada.")
    if when is not None and not (row["issued_on"] <= when <= store.today()):
        f.fail("day", f"{LABELS['day']}: deve estar entre a emissão ({format_date_br(row['issued_on'])}) e hoje.")
    f.done()
    assert when is not None

    def write(tx: Tx) -> int:
        if tx.scalar("SELECT count(*) FROM intimation_ciencias WHERE intimation_id = ?", [intimation_id]):
            raise InputError(Problem("day", f"{LABELS['day']}: a ciência já foi registrada."))
        _ciencia(tx, row, AR, when, None, user.username)
        return int(tx.scalar("SELECT step_id FROM intimation_ciencias WHERE intimation_id = ?", [intimation_id]))

    return store.write(user.username, write)


def record_tacit(store: Store, as_of: date) -> int:
    """Record the ciência tácita of every electronic intimation not opened by the end of its period (on or before
    `as_of`), on that last day; how many. The job `notices_daily` runs it every morning."""
    if not store.has_table("intimations"):
        return 0
    due = store.fetch("SELECT i.id, i.request_id, i.act, i.fixed_day, i.issued_on, i.tacit_days FROM intimations i "
                      "WHERE i.delivery = ? AND i.id NOT IN (SELECT intimation_id FROM intimation_ciencias) "
                      "AND i.issued_on + CAST(i.tacit_days AS INTEGER) <= ?", [SYSTEM, as_of])
    if not due:
        return 0
    decided = rq.decided_ids(store, None)      # the period an intimation opened ends with the decision …

    def write(tx: Tx) -> int:
        done = 0
        for row in due:
            moot = int(row["request_id"]) in decided and not ACTS[str(row["act"])].of_decision  # … not the decision's
            if moot or tx.scalar(
                    "SELECT count(*) FROM intimation_ciencias WHERE intimation_id = ?", [row["id"]]):
                continue
            _ciencia(tx, row, TACIT, tacit_day(row["issued_on"], int(row["tacit_days"])), None, SYSTEM_ACTOR)
            done += 1
        return done

    return int(store.write(SYSTEM_ACTOR, write))


# the step kinds an intimation records (their labels: periods.STEP_LABELS)
assert {a.step for a in ACTS.values()} <= set(pr.STEP_KINDS)


def deadline_rows(store: Store, user: Principal, *, as_of: date, office: str | None = None,
                  owed_by: str | None = pr.AUTHORITY) -> list[dict[str, Any]]:
    """The intimations issued on or before `as_of` still awaiting their ciência, in the row shape of
    `requests.authority_deadlines`: the party's period each opens does not run yet (Lei 9.784/1999 art. 66), so the
    row reads "aguardando ciência" (state `suspended`, the clock stopped) and its day is the one the ciência will be
    taken as made — the tacit day of an electronic one (Lei 11.419/2006 art. 5 §3) —, or the issue day of a paper
    one (its AR's day is not known yet)."""
    if owed_by not in (None, pr.PARTY) or not store.has_table("intimations"):
        return []
    rows = [r for r in intimations_of(store, user, waiting=True) if r["issued_on"] <= as_of
            and office in (None, r["office_code"])]
    out = []
    for r in rows:
        electronic = r["delivery"] == SYSTEM
        day = tacit_day(r["issued_on"], int(r["tacit_days"])) if electronic else r["issued_on"]
        when = (f"ciência tácita em {format_date_br(day)}, se não for aberta antes (Lei 11.419/2006 art. 5 §3)"
                if electronic else "ciência na data do aviso de recebimento (Lei 9.784/1999 art. 26 §3)")
        act = ACTS[str(r["act"])]
        out.append({"request_id": r["request_id"], "appeal_id": None, "decision_id": None,
                    "case_pt": f"intimação nº {r['id']} do requerimento nº {r['request_id']}", "nup": r["nup"],
                    "office_code": r["office_code"], "wreck": r["wreck"], "matter_pt": act.label,
                    "organisation": r["organisation"], "rule": f"intimation_{r['act']}",
                    "label": f"{act.label}: {act.period} — {WAITING}", "owed_by": pr.PARTY,
                    "owed_by_pt": pr.OWED_BY_LABELS[pr.PARTY], "due": day, "state": "suspended",
                    "state_pt": WAITING, "days_late": 0, "basis": f"{act.basis}; Lei 9.784/1999 art. 66",
                    "steps": (f"Intimação emitida em {format_date_br(r['issued_on'])}", when,
                              "O prazo corre da ciência; a data mostrada é a da ciência, não a do vencimento")})
    return out
