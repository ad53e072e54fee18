"""The deadlines of each contract: monthly and final reports, start of operations, extension request,
automatic cancellation (NORMAM-10 0301–0305; Lei 7.542 art. 22), and the appeals against its
decisions (Lei 7.542 art. 33; Lei 9.784 art. 59).

Each NORMAM number is the one in force on the day the period starts (`ParameterBook`): the month
reported for a monthly report, the end of the work for the final report, the start of the
authorisation for the extension request. A contract over historical things without the Ministry of
Culture's co-signature is not in force (Lei 7.542 art. 20 §1): its pending deadlines are suspended.
"""
from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core import law
from valuation.core.co_signature import MISSING_TEXT, co_signature_missing, needs_co_signature
from valuation.deadlines import rules as dl
from valuation.deadlines.appeals import appeal_events, decision_label
from valuation.deadlines.rows import ParameterBook, Rows, Scope, fmt, months
from valuation.deadlines.rule_specs import RULE_LABELS
from valuation.deadlines.vocabulary import (
    ACTIVE_STATUSES,
    APPEAL_DECIDED,
    APPEAL_EXTENDED,
    APPEAL_FILED,
    APPEAL_RECEIVED,
    CURRENT_EVENTS,
    DECISION_NOTIFIED,
    EVENT_KINDS,
    EXTENSION_REQUESTED,
    FINAL_REPORT_DELIVERED,
    FINAL_REPORT_KINDS,
    FINISHED_STATUSES,
    MONTHLY_REPORT_DELIVERED,
    OPERATIONS_STARTED,
    month_key,
)

if TYPE_CHECKING:
    from valuation.db.store import Store

Events = dict[tuple[str, int, str | None], tuple[date, date]]


def contracts(store: Store, sc: Scope, as_of: date) -> list[dict[str, Any]]:
    """The contracts in scope, each with `co_signature_missing` on `as_of` (Lei 7.542 art. 20 §1:
    `valuation.core.co_signature`; the co-signatures the registry records, the items the Commission
    classified as historical)."""
    rows = store.fetch(
        "SELECT c.id, c.code, c.kind, c.act, c.status, c.organisation_id, o.name AS organisation, c.wreck_id, "
        "w.code AS wreck_code, w.name AS wreck_name, c.office_code, c.signed_on, c.starts_on, c.expires_on, "
        "c.work_ended_on, c.cancelled_on, c.historical_share, s.signed_on AS co_signed_on, "
        "EXISTS (SELECT 1 FROM item_valuation v WHERE v.contract_id = c.id AND v.historical) AS historical_items "
        "FROM contracts c JOIN organisations o ON o.id = c.organisation_id "
        "JOIN wrecks w ON w.id = c.wreck_id LEFT JOIN co_signatures s ON s.contract_id = c.id "
        f"WHERE {sc.contract_sql} ORDER BY c.code", sc.contract_params)
    for c in rows:
        required = needs_co_signature(c["kind"], c["act"], c["signed_on"], c["historical_share"],
                                      bool(c["historical_items"]))
        c["co_signature_missing"] = co_signature_missing(required, c["co_signed_on"], as_of)
    return rows


def contract_events(store: Store, sc: Scope) -> Events:
    """(kind, contract_id, reference) → (first, last) event date, for the contracts in scope."""
    kinds = [k.key for k in EVENT_KINDS if k.subject == "contract"]
    rows = store.fetch(
        f"SELECT e.kind, e.contract_id, e.reference, min(e.event_date) AS first, max(e.event_date) AS last "
        f"FROM {CURRENT_EVENTS} e WHERE e.kind IN ({', '.join('?' for _ in kinds)}) AND e.contract_id IN "
        f"(SELECT c.id FROM contracts c WHERE {sc.contract_sql}) GROUP BY ALL", [*kinds, *sc.contract_params])
    return {(r["kind"], r["contract_id"], r["reference"]): (r["first"], r["last"]) for r in rows}


def add_contract_rows(rows: Rows, book: ParameterBook, store: Store, sc: Scope, as_of: date) -> None:
    """Every contract deadline of the contracts in scope, and the appeals against their decisions."""
    found = contracts(store, sc, as_of)
    events = contract_events(store, sc)
    for c in found:
        if c["status"] in ACTIVE_STATUSES or c["status"] in FINISHED_STATUSES:  # 'solicitado': nothing owed yet
            _one_contract(rows, book, c, events, as_of)
    _appeal_rows(rows, book, store, found, as_of)


def _suspension(c: dict[str, Any]) -> str | None:
    if c["status"] == "suspenso":
        return "contrato suspenso"
    if c["co_signature_missing"] and c["status"] in ACTIVE_STATUSES:
        return f"contrato {MISSING_TEXT}"
    return None


def _one_contract(rows: Rows, book: ParameterBook, c: dict[str, Any], events: Events, as_of: date) -> None:
    cid, code, office = c["id"], c["code"], c["office_code"]
    subject = rows.subject(office, contract=c, wreck=(c["wreck_id"], c["wreck_code"], c["wreck_name"]))
    suspended = _suspension(c)
    _monthly_rows(rows, book, c, events, as_of, subject, suspended)
    ended = c["work_ended_on"]
    # Final report: surveys (0301 c) and removals or demolitions (0302 b 3) only (0303: monthly reports alone)
    if ended is not None and c["kind"] in FINAL_REPORT_KINDS:
        d, steps = book.deadline("final_report", ended, office, ended)
        hit = events.get((FINAL_REPORT_DELIVERED, cid, None))
        rows.add(f"final_report:{code}", "final_report", RULE_LABELS["final_report"], d, steps, subject, ended,
                 hit[0] if hit else None, suspended=suspended)
    if c["status"] not in ACTIVE_STATUSES:
        return
    if c["starts_on"] is not None:  # start of operations on the date fixed in the act (art. 22 I; 0305 a)
        d, steps = book.deadline("start_of_operations", c["starts_on"], office, c["starts_on"])
        hit = events.get((OPERATIONS_STARTED, cid, None))
        rows.add(f"start_of_operations:{code}", "start_of_operations", RULE_LABELS["start_of_operations"], d, steps,
                 subject, c["signed_on"] or c["starts_on"], hit[0] if hit else None, suspended=suspended,
                 overdue_reason="operações não iniciadas na data fixada: cancelamento (NORMAM-10 0305 a)")
    if c["expires_on"] is not None and ended is None:  # extension request before expiry (0304)
        begin = c["starts_on"] or c["signed_on"] or c["expires_on"]
        d, steps = book.deadline("extension_request", c["expires_on"], office, begin)
        ref = c["expires_on"].isoformat()
        hit = events.get((EXTENSION_REQUESTED, cid, ref))
        rows.add(f"extension_request:{code}:{ref}", "extension_request", RULE_LABELS["extension_request"], d, steps,
                 subject, c["starts_on"] or c["signed_on"], hit[0] if hit else None, suspended=suspended,
                 overdue_reason=f"prazo para pedir prorrogação encerrado; a autorização expira em "
                                f"{fmt(c['expires_on'])}")


def _owes_monthly(book: ParameterBook, c: dict[str, Any]) -> bool:
    """Surveys and explorations always; removals and demolitions lasting over the NORMAM minimum (0302 b 2)."""
    if c["kind"] in ("pesquisa", "exploração"):
        return True
    start = c["starts_on"]
    return start is not None and dl.removal_monthly_reports(start, c["expires_on"],
                                                            book.normam(start)["removal_monthly_report_min_days"])


def _monthly_rows(rows: Rows, book: ParameterBook, c: dict[str, Any], events: Events, as_of: date,
                  subject: Any, suspended: str | None) -> None:
    """Monthly reports (NORMAM-10 0301 c, 0303 e; 0302 b 2) and the automatic cancellation (0305 f)."""
    begin = c["starts_on"] or c["signed_on"]
    if begin is None or not _owes_monthly(book, c):
        return
    last = min(d for d in (c["work_ended_on"], c["cancelled_on"], c["expires_on"], as_of) if d is not None)
    reported: list[date] = []
    owed: list[date] = []
    for month in (months(date(begin.year, begin.month, 1), last) if begin <= last else ()):
        # the calendar and the NORMAM-10 day in force on the first day of the month reported
        d, steps = book.deadline("monthly_report", month, c["office_code"], month)
        ref = month_key(month)
        hit = events.get((MONTHLY_REPORT_DELIVERED, c["id"], ref))
        met_on = hit[0] if hit else None
        rows.add(f"monthly_report:{c['code']}:{ref}", "monthly_report", f"Relatório mensal ({dl.fmt_month(month)})",
                 d, steps, subject, month, met_on, suspended=suspended)
        if d.due < as_of:
            owed.append(month)
            if met_on is not None and met_on <= d.due:
                reported.append(month)
    # fewer than two missing months cannot make two consecutive ones: no need to ask the rule
    if c["status"] == "vigente" and not c["co_signature_missing"] and len(owed) - len(reported) >= 2:
        cand = _cancellation(book, c["office_code"], owed, reported)
        if cand is not None:
            rows.add(f"automatic_cancellation:{c['code']}", "automatic_cancellation",
                     RULE_LABELS["automatic_cancellation"], cand, "\n".join(cand.steps), subject, cand.due,
                     overdue_reason="2º mês consecutivo sem relatório mensal: autorização automaticamente cancelada "
                                    "(NORMAM-10 0305 f)")


_cancel_memo: dict[tuple[Any, ...], dl.Deadline | None] = {}
_MEMO_LIMIT = 500_000


def _cancellation(book: ParameterBook, office: str, owed: list[date], reported: list[date]) -> dl.Deadline | None:
    """`valuation.deadlines.rules.automatic_cancellation` over the owed months, asked from the first
    missing one (the months before it were all reported, so the answer is the same) and memoised:
    contracts of one office with the same gap share the answer."""
    done = set(reported)
    first_missing = next(m for m in owed if m not in done)
    window = tuple(m for m in reported if m > first_missing)
    cal = book.cal(office, first_missing)
    params = book.parameters("automatic_cancellation", first_missing)
    key = (cal, first_missing, owed[-1], window, params)
    if key not in _cancel_memo:
        if len(_cancel_memo) >= _MEMO_LIMIT:
            _cancel_memo.clear()
        _cancel_memo[key] = dl.automatic_cancellation(window, first_missing, owed[-1], cal, *params)
    return _cancel_memo[key]


# -- appeals (Lei 7.542 art. 33; Lei 9.784 arts. 56, 59) --------------------------------------------------------
def _appeal_rows(rows: Rows, book: ParameterBook, store: Store, found: list[dict[str, Any]], as_of: date) -> None:
    by_id = {int(c["id"]): c for c in found}
    for (cid, ref), ev in sorted(appeal_events(store, list(by_id)).items(), key=lambda kv: (kv[0][0], kv[0][1])):
        c = by_id[cid]
        office = c["office_code"]
        subject = rows.subject(office, contract=c, wreck=(c["wreck_id"], c["wreck_code"], c["wreck_name"]))
        what = decision_label(ref)
        notified, filed = ev.get(DECISION_NOTIFIED), ev.get(APPEAL_FILED)
        if notified is not None:
            d, steps = book.deadline("appeal", notified, office, notified)
            timely = filed if filed is not None and d.due is not None and filed <= d.due else None
            late = f"pedido apresentado em {fmt(filed)}, fora do prazo (Lei 9.784 art. 63 I)" \
                if filed is not None and timely is None else None
            rows.add(f"appeal:{c['code']}:{ref}", "appeal", f"{RULE_LABELS['appeal']} — {what}", d, steps, subject,
                     notified, timely, closed_by="pedido apresentado" if timely else late)
        received = ev.get(APPEAL_RECEIVED) or filed
        if received is None:
            continue
        extended = APPEAL_EXTENDED in ev
        d = dl.appeal_decision(received, extended, book.cal(office, received))
        steps = "\n".join(d.steps)
        if APPEAL_RECEIVED not in ev:
            steps = ("Recebimento dos autos não registrado: contado da apresentação do recurso à autoridade que "
                     f"decidiu ({law.L9784} art. 56 §1)\n") + steps
        days = law.APPEAL_DECISION_DAYS.value * (law.APPEAL_DECISION_EXTENSION.value if extended else 1)
        rows.add(f"appeal_decision:{c['code']}:{ref}", "appeal_decision", f"{RULE_LABELS['appeal_decision']} — {what}",
                 d, steps, subject, received, ev.get(APPEAL_DECIDED),
                 overdue_reason=f"recurso sem decisão em {dl.days_text(days)} ({law.L9784} art. 59 §§1–2)")
