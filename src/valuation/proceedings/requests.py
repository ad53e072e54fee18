"""Requests (requerimentos) to the Naval Authority and their process: what the Authority owes the parties.

A request (migration 060) is what a party asks of the wreck's office (`MATTERS`), by a responsible and/or a
company, with its steps; a licence asked by a responsible is also that party's licence request of
`valuation.registry.parties` (the one the five years of art. 6 read) — no other request counts for them. The
deadlines the steps start are the pure rules of `valuation.proceedings.periods`, computed here with the office's
calendar and the periods in force on the day each starts (dated policies):

- `file_request`: a party files a request (DPC records it);
- `record_step`: a step of its process (instruction, opinion, hearing and intimation, allegations, an
  extension with its written reason, the decision) — validated, audited through the write funnel;
- `annul_step`: annul a step recorded by mistake, with its reason (issue 42 item 5; `valuation.db.annulments`):
  never deleted, no longer counted, shown in the history with its annulment; `recent_steps`: those it may annul;
- `request_history`: one request and its steps (and those annulled); `open_requests`: the undecided requests by
  age (on a day);
  `undecided_requests`: those a step may still be recorded on;
- `decision_times`: the median days from filing to decision per office and matter over the last 12 months;
- `authority_deadlines`: the open deadlines per office (overdue, due soon — policy `due_soon_days` — and
  upcoming), each with its article and its explanation.

Access (`valuation.db.access.request_scope`): DPC reads every request, an explorer its own organisation's only
(another company's answers as missing); only DPC and the office officers record and annul. The requester's name
is a person's data: shown to those who may read the owners.
"""
from __future__ import annotations

import statistics
from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core import nup
from valuation.core.errors import NotFound
from valuation.core.forms import Form, excerpt
from valuation.core.money import format_date_br
from valuation.db import annulments
from valuation.db.access import Principal, allowed, chosen_office, office_match, request_scope, require
from valuation.deadlines.calendars import office_calendars
from valuation.deadlines.counting import add_months
from valuation.deadlines.rules import open_standing
from valuation.notices import events
from valuation.policies.defaults import PROCESS_KEYS
from valuation.policies.values import timelines, values_in_force
from valuation.proceedings import appeal_records
from valuation.proceedings import periods as pr
from valuation.process import documents, numbers
from valuation.registry import parties
from valuation.signatures import pending as pending_signatures

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

MATTERS: dict[str, str] = {
    "pesquisa": "Licença de pesquisa (Lei 7.542/1986 art. 4)",
    "exploração": "Autorização de exploração (Lei 7.542/1986 arts. 16 e 18)",
    "remoção": "Autorização de remoção (Lei 7.542/1986 arts. 4 e 19)",
    "prorrogação": "Prorrogação de autorização (NORMAM-10 (ed. 2002) 0304)",
    "reclamação": "Reclamação de coisas resgatadas (Lei 7.542/1986 arts. 12 e 29 §1)",
    "preferência": "Preferência (Lei 7.542/1986 art. 16)",
    "coisa achada": "Reclamação de coisa achada (Lei 7.542/1986 art. 29)",
    "saldo do responsável": "Saldo do responsável (Lei 7.542/1986 art. 13 §2)",
    "recurso": "Recurso (Lei 7.542/1986 art. 33)",
}
# a licence asked by the wreck's responsible is also the request the five years read (arts. 4 and 6)
LICENCE_MATTERS = ("pesquisa", "exploração", "remoção")
LABELS: dict[str, str] = {"wreck_code": "Naufrágio", "matter": "Assunto", "requester_id": "Responsável requerente",
                          "organisation_id": "Empresa requerente", "filed_on": "Data do protocolo",
                          "kind": "Etapa", "day": "Data da etapa",
                          "reference_day": "Data marcada (comparecimento, diligência ou prazo fixado)",
                          "reason": "Motivação escrita",
                          "note": "Observação"}
REQUEST_FIELDS = ("wreck_code", "matter", "requester_id", "organisation_id", "filed_on", "note", "nup")
STEP_FIELDS = ("kind", "day", "reference_day", "reason", "note")
_REQUESTS = """
SELECT q.id, q.filed_on AS requested_on, q.requester_id, o.name AS requester, w.code AS wreck, w.name AS wreck_name,
       q.office_code, q.matter, q.organisation_id, g.name AS organisation, q.licence_request_id
FROM requests q JOIN wrecks w ON w.id = q.wreck_id
LEFT JOIN owners o ON o.id = q.requester_id LEFT JOIN organisations g ON g.id = q.organisation_id
WHERE {scope} AND (? IS NULL OR q.office_code = ?) AND (? IS NULL OR q.id = ?)
ORDER BY q.filed_on, q.id"""


def _known(store: Store, f: Form, key: str, table: str) -> int | None:
    value = f.integer(key, LABELS[key], required=False, minimum=1)
    if value is not None and not store.scalar(f"SELECT count(*) FROM {table} WHERE id = ?", [value]):
        f.fail(key, f"{LABELS[key]}: não encontrado ({value}).")
    return value


def file_request(store: Store, user: Principal, data: Mapping[str, Any]) -> int:
    """A request filed with the wreck's office on a `matter`, by a responsible party (`requester_id`) and/or a
    company (`organisation_id`); a licence asked by a party (`LICENCE_MATTERS`) is also recorded as the
    party's licence request (`registry.parties.record_licence_request`: whether it counts for the five years
    is read there). Its NUP is given in the same write when the office has a protocol unit — a licence request's
    is the one its `licence_requests` row received (one document, one number). Returns its id. dpc only;
    InputError names every bad field; audited."""
    require(user, "manage_requests")
    f = Form(data, allowed=REQUEST_FIELDS)
    code = f.text("wreck_code", LABELS["wreck_code"], max_len=40)
    office, oparams = office_match(user, "office_code")     # an office officer: its office's wrecks
    wreck = store.fetch_one(f"SELECT id, code, office_code FROM wrecks WHERE code = ? AND {office}",
                            [code, *oparams]) if code else None
    if code and wreck is None:
        f.fail("wreck_code", f"{LABELS['wreck_code']}: não encontrado ({excerpt(code)}).")
    rec: dict[str, Any] = {"matter": f.choice("matter", LABELS["matter"], tuple(MATTERS)),
                           "requester_id": _known(store, f, "requester_id", "owners"),
                           "organisation_id": _known(store, f, "organisation_id", "organisations"),
                           "filed_on": f.date("filed_on", LABELS["filed_on"]),
                           "note": f.text("note", LABELS["note"], required=False, max_len=1000)}
    if f.ok("requester_id", "organisation_id") and rec["requester_id"] is None and rec["organisation_id"] is None:
        f.fail("requester_id", f"{LABELS['requester_id']}: informe quem requer (o responsável ou a empresa).")
    if rec["filed_on"] is not None and rec["filed_on"] > store.today():
        f.fail("filed_on", f"{LABELS['filed_on']}: não pode estar no futuro.")
    old_day = numbers.act_day_problem(rec["filed_on"], LABELS["filed_on"])
    if old_day is not None:
        f.fail("filed_on", old_day)
    adopted = numbers.read_adopted(store, f)      # a case begun in the protocol system keeps its NUP (item 2)
    f.done()
    assert wreck is not None
    licence = None
    if rec["matter"] in LICENCE_MATTERS and rec["requester_id"] is not None:
        licence = parties.record_licence_request(store, user, {
            "wreck_code": wreck["code"], "part": "embarcação", "requester_id": rec["requester_id"],
            "requested_on": rec["filed_on"], "note": rec["note"]}, adopted=adopted)
        adopted = None                            # the licence request holds the case's number

    return store.write(user.username, lambda tx: insert_request(tx, user, wreck, rec, licence, adopted=adopted))


def insert_request(tx: Tx, user: Principal, wreck: Mapping[str, Any], rec: Mapping[str, Any],
                   licence: int | None, *, by_filing: bool = False, adopted: nup.Nup | None = None) -> int:
    """Write one checked request (`rec`: matter, requester_id, organisation_id, filed_on, note) on `wreck`, its audit
    row, its NUP — `adopted`: the one the protocol system gave the case, else the office's next — and the office's
    notice, in transaction `tx` (`file_request`; a request filed in the system: `valuation.proceedings.filings`, whose
    filing is then the process's first document, `by_filing`). Returns its id."""
    new_id = int(tx.scalar(
        "INSERT INTO requests (office_code, wreck_id, matter, requester_id, organisation_id, filed_on, "
        "licence_request_id, note, recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        [wreck["office_code"], wreck["id"], rec["matter"], rec["requester_id"], rec["organisation_id"],
         rec["filed_on"], licence, rec["note"], user.username, tx.store.now()]))
    tx.audit("file_request", "request", new_id, None,
             {"wreck_code": wreck["code"], **rec, "licence_request_id": licence})
    if adopted is not None:
        numbers.adopt(tx, "request", new_id, wreck["office_code"], rec["filed_on"], adopted)
    elif licence is None:   # a licence request was numbered as one already: one document, one NUP
        numbers.assign(tx, "request", new_id, wreck["office_code"], rec["filed_on"])   # Portaria 11/2019
    if not by_filing:
        documents.add(tx, ("request", new_id), "request", new_id)
    events.request_received(tx, request_id=new_id, office_code=wreck["office_code"],   # issue 42 item 4
                            matter=MATTERS[rec["matter"]], wreck_code=wreck["code"],
                            nup=numbers.request_nups(tx, [new_id]).get(new_id), recorded_by=user.id)
    return new_id


def _requests(store: Store | Tx, user: Principal, *, office: str | None = None,
              request_id: int | None = None) -> list[dict[str, Any]]:
    where, params = request_scope(user, "q")
    rows = store.fetch(_REQUESTS.format(scope=where), [*params, office, office, request_id, request_id])
    given = numbers.request_nups(store, [r["id"] for r in rows])
    hide = not allowed(user, "read_owners")
    for r in rows:   # None: the office has no protocol unit (numbers.NO_UNIT_TEXT says why)
        r["nup"] = given.get(r["id"])
        if hide:
            r["requester"] = None
    return rows


_STEP_COLUMNS = "s.id, s.request_id, s.kind, s.day, s.reference_day, s.reason, s.note, s.recorded_by, s.recorded_at"


def _steps(store: Store | Tx, ids: list[int], *, kind: str | None = None,
           annulled: bool = False) -> dict[int, list[dict[str, Any]]]:
    """The steps of the requests `ids` (only those of `kind`, when given), oldest first: those that count (never an
    annulled one, `valuation.db.annulments`), or with `annulled` the annulled ones instead, each with its
    `annulment` (reason, annulled_by, annulled_at)."""
    out: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
    if ids:
        which = ("NOT " if annulled else "") + annulments.not_annulled("request_steps", "s")
        rows = store.fetch(f"SELECT {_STEP_COLUMNS} FROM request_steps s WHERE s.request_id IN (SELECT UNNEST(?)) "
                           f"AND (? IS NULL OR s.kind = ?) AND {which} ORDER BY s.day, s.id", [ids, kind, kind])
        done = annulments.annulments_of(store, "request_steps", [r["id"] for r in rows]) if annulled else {}
        for r in rows:
            out[r["request_id"]].append({**r, "annulment": done[int(r["id"])]} if annulled else r)
    return out


def _one(store: Store, user: Principal, request_id: object) -> dict[str, Any]:
    ok = isinstance(request_id, int) and not isinstance(request_id, bool)
    rows = _requests(store, user, request_id=request_id) if ok else []  # type: ignore[arg-type]
    if not rows:
        raise NotFound(f"Requerimento {excerpt(request_id)} não encontrado.", what="request", key=request_id)
    return rows[0]


def undecided_request(store: Store | Tx, user: Principal, request_id: object, f: Form, label: str,
                      decided_note: str = "", *, decided: bool = False) -> dict[str, Any] | None:
    """The request an act is about (a filing, an intimation) — in the user's scope (`_requests`) and not decided —, or
    None with the problem recorded in `f` under 'request_id' (`label` names the field; `decided_note` follows the
    refusal of a decided one). `decided`: the act is about its decision (its intimation, an appeal): the request must
    be decided, and the row carries `decided_on`, the decision's day."""
    if request_id is None:
        f.fail("request_id", f"{label}: escolha o processo.")
        return None
    if isinstance(request_id, bool) or not isinstance(request_id, int):
        f.fail("request_id", f"{label}: não encontrado.")
        return None
    rows = _requests(store, user, request_id=request_id)
    if not rows:
        f.fail("request_id", f"{label}: não encontrado ({request_id}).")
        return None
    day = decided_on(store, request_id)
    if day is not None and not decided:
        f.fail("request_id", f"{label}: nº {request_id} já foi decidido{decided_note}.")
    elif day is None and decided:
        f.fail("request_id", f"{label}: nº {request_id} ainda não foi decidido.")
    return {**rows[0], "decided_on": day}


def record_step(store: Store, user: Principal, request_id: int, data: Mapping[str, Any]) -> int:
    """One step of a request's process (`periods.STEP_KINDS`): a hearing needs its day, a request for
    information of the party (art. 39) may carry the last day its intimation fixed, an extension needs its
    written reason (arts. 24 and 49, once each); nothing after the decision. dpc only; audited."""
    require(user, "manage_requests")
    req = _one(store, user, request_id)
    f = Form(data, allowed=STEP_FIELDS)
    kind = f.choice("kind", LABELS["kind"], pr.STEP_KINDS)
    day = f.date("day", LABELS["day"])
    ref = f.date("reference_day", LABELS["reference_day"], required=False)
    reason = f.text("reason", LABELS["reason"], required=False, max_len=1000)
    note = f.text("note", LABELS["note"], required=False, max_len=1000)
    if day is not None and day > store.today():
        f.fail("day", f"{LABELS['day']}: não pode estar no futuro.")
    if kind is not None and day is not None:
        steps = pr.as_steps(_steps(store, [req["id"]])[req["id"]])
        problem = pr.step_problem(kind, day, req["requested_on"], ref, reason, steps)
        if problem is not None:
            f.fail(problem[0], f"{LABELS[problem[0]]}: {problem[1]}.")
    f.done()

    return store.write(user.username,
                       lambda tx: insert_step(tx, user.username, req["id"], kind, day, ref, reason, note))


def insert_step(tx: Tx, actor: str, request_id: int, kind: str | None, day: date | None, ref: date | None = None,
                reason: str | None = None, note: str | None = None) -> int:
    """Write one checked step of request `request_id` and its audit row, in transaction `tx` (`record_step`; a
    party's step a filing brings: `valuation.proceedings.filings`). Returns the step's id."""
    new_id = int(tx.scalar(
        "INSERT INTO request_steps (request_id, kind, day, reference_day, reason, note, recorded_by, recorded_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        [request_id, kind, day, ref, reason, note, actor, tx.store.now()]))
    tx.audit("record_request_step", "request", request_id, None,
             {"step_id": new_id, "kind": kind, "day": day, "reference_day": ref, "reason": reason, "note": note})
    return new_id


def request_history(store: Store, user: Principal, request_id: int) -> dict[str, Any]:
    """One request (`request`: nup — None without a protocol unit; nup_shown says why —, office, wreck, matter,
    requester, company, filed day) and its `steps`
    (kind label, day, hearing day, reason, note), oldest first."""
    require(user, "read_requests")
    req = _one(store, user, request_id)
    steps = [{**s, "label": pr.STEP_LABELS[s["kind"]]} for s in _steps(store, [req["id"]])[req["id"]]]
    gone = [{**s, "label": pr.STEP_LABELS[s["kind"]]} for s in _steps(store, [req["id"]], annulled=True)[req["id"]]]
    shown = req["nup"] or numbers.NO_UNIT_TEXT.format(office=req["office_code"])
    return {"request": {**req, "matter_pt": MATTERS[req["matter"]], "nup_shown": shown}, "steps": steps,
            "annulled_steps": gone}


def annul_step(store: Store, user: Principal, step_id: int, reason: str) -> int:
    """Annul a step recorded by mistake (Lei 9.784/1999 art. 53) with its written reason (art. 50): a row of
    `annulments` (the step itself is never changed), audited; the request's periods are computed again without
    it and `request_history` shows it among `annulled_steps`. DPC any request's step, an office officer its
    office's; never a company. A step of a request out of scope reads "não encontrada"; a step annulled already
    is refused. Returns the annulment's id."""
    require(user, "annul_records")
    require(user, "manage_requests")
    text = annulments.reason_text(reason)
    ok = isinstance(step_id, int) and not isinstance(step_id, bool)
    step = store.fetch_one(f"SELECT {_STEP_COLUMNS} FROM request_steps s WHERE s.id = ?", [step_id]) if ok else None
    missing = NotFound(f"Etapa {excerpt(step_id)} não encontrada.", what="request_step", key=step_id)
    if step is None:
        raise missing
    try:
        req = _one(store, user, int(step["request_id"]))
    except NotFound:
        raise missing from None

    def write(tx: Tx) -> int:
        return annulments.annul(tx, user.username, "request_steps", int(step["id"]), text, entity="request",
                                entity_id=req["id"], before={"step_id": step["id"], "kind": step["kind"],
                                                             "day": step["day"], "reference_day": step["reference_day"],
                                                             "reason": step["reason"], "note": step["note"]},
                                now=store.now())

    return store.write(user.username, write)


def recent_steps(store: Store, user: Principal, *, office: str | None = None, limit: int = 200
                 ) -> list[dict[str, Any]]:
    """The steps that count of the requests in the user's scope, newest recorded first (at most `limit`): those
    a step may be annulled among — id, request_id, nup, wreck, matter_pt, kind, label, day, recorded_by."""
    require(user, "read_requests")
    reqs = {int(r["id"]): r for r in _requests(store, user, office=office)}
    rows = [s for steps in _steps(store, list(reqs)).values() for s in steps]
    rows.sort(key=lambda s: int(s["id"]), reverse=True)
    return [{**s, "label": pr.STEP_LABELS[s["kind"]], "nup": reqs[int(s["request_id"])]["nup"],
             "wreck": reqs[int(s["request_id"])]["wreck"],
             "matter_pt": MATTERS[reqs[int(s["request_id"])]["matter"]]} for s in rows[:max(1, min(limit, 2000))]]


def undecided_requests(store: Store, user: Principal, *, office: str | None = None) -> list[dict[str, Any]]:
    """The requests with no decision recorded (those a step may still be recorded on), newest first: id, nup,
    office_code, wreck, matter_pt, organisation, requested_on."""
    require(user, "read_requests")
    decided = decided_ids(store)
    rows = [{**r, "matter_pt": MATTERS[r["matter"]]} for r in _requests(store, user, office=office)
            if r["id"] not in decided]
    return rows[::-1]


def decided_requests(store: Store, user: Principal, *, office: str | None = None) -> list[dict[str, Any]]:
    """The requests with a decision recorded (those whose decision may be intimated or appealed), newest first, in
    the shape of `undecided_requests`."""
    require(user, "read_requests")
    decided = decided_ids(store)
    rows = [{**r, "matter_pt": MATTERS[r["matter"]]} for r in _requests(store, user, office=office)
            if r["id"] in decided]
    return rows[::-1]


def _decided(alias: str) -> str:
    """SQL predicate: the request step `alias` is a decision not annulled."""
    return f"{alias}.kind = 'decided' AND {annulments.not_annulled('request_steps', alias)}"


def decided_ids(store: Store | Tx, on: date | None = None) -> set[int]:
    """The requests with a decision recorded (on or before `on`, when given)."""
    return {int(r["request_id"]) for r in store.fetch(
        f"SELECT DISTINCT s.request_id FROM request_steps s WHERE {_decided('s')} AND (? IS NULL OR s.day <= ?)",
        [on, on])}


def decided_on(db: Store | Tx, request_id: int) -> date | None:
    """The day request `request_id` was decided (its first decision not annulled), or None."""
    day: date | None = db.scalar(f"SELECT min(s.day) FROM request_steps s WHERE s.request_id = ? AND {_decided('s')}",
                                 [request_id])
    return day


def _periods(store: Store) -> pr.PolicyAt:
    lines = timelines(store, PROCESS_KEYS)
    return lambda key, day: lines[key].at(day).legal()


def _undecided(store: Store, user: Principal, as_of: date, office: str | None
               ) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The requests in scope with no decision recorded on or before `as_of`, each with its steps (all of them)."""
    decided = decided_ids(store, as_of)
    reqs = [r for r in _requests(store, user, office=office) if r["id"] not in decided]
    steps = _steps(store, [r["id"] for r in reqs])
    return [(r, steps[r["id"]]) for r in reqs]


def open_requests(store: Store, user: Principal, *, as_of: date, office: str | None = None) -> list[dict[str, Any]]:
    """The requests not yet decided on `as_of`, oldest first: id, nup, office_code, wreck, matter_pt, requester,
    organisation, requested_on, age_days, step (the latest step's label)."""
    require(user, "read_requests")
    out = []
    for r, steps in _undecided(store, user, as_of, office):
        if r["requested_on"] > as_of:
            continue
        done = [s for s in steps if s["day"] <= as_of]
        out.append({**r, "matter_pt": MATTERS[r["matter"]], "age_days": (as_of - r["requested_on"]).days,
                    "step": pr.current_step(pr.as_steps(done))})
    return out


def authority_deadlines(store: Store, user: Principal, *, as_of: date, office: str | None = None,
                        owed_by: str | None = pr.AUTHORITY) -> list[dict[str, Any]]:
    """The open deadlines of the requests not decided on `as_of` (not met by then) and of the appeals
    (`appeal_records.deadline_rows`) and the acts missing a required signature (`signatures.pending`), by due
    date: request_id (None for an appeal's), appeal_id, decision_id, case_pt (which request, appeal, decision or
    act), nup (the request's, appeal's or act's), office_code, wreck, matter_pt, organisation,
    rule, label, owed_by, owed_by_pt, due, state (overdue, due_soon — policy `due_soon_days` —, upcoming),
    state_pt, days_late, basis (the articles), steps (the explanation).
    `owed_by`: the Authority's only (default), the party's (`periods.PARTY`), or None for both."""
    require(user, "read_requests")
    office = chosen_office(user, office)          # an office officer: what its office owes
    soon = int(values_in_force(store, ("due_soon_days",), as_of=as_of)["due_soon_days"])
    out = []
    undecided = _undecided(store, user, as_of, office)   # decided: what was still owed in it is moot
    cals = office_calendars(store, sorted({r["office_code"] for r, _ in undecided}), on=as_of)
    policy = _periods(store)
    for r, steps in undecided:
        for d in pr.request_deadlines(r["requested_on"], pr.as_steps(steps), cals[r["office_code"]], policy):
            due = d.deadline.due
            if due is None or (d.met_on is not None and d.met_on <= as_of) or owed_by not in (None, d.owed_by):
                continue
            out.append({"request_id": r["id"], "appeal_id": None, "decision_id": None, "nup": r["nup"],
                        "case_pt": f"requerimento nº {r['id']}", "office_code": r["office_code"], "wreck": r["wreck"],
                        "matter_pt": MATTERS[r["matter"]], "organisation": r["organisation"], "rule": d.kind,
                        "label": pr.PERIOD_LABELS[d.kind], "owed_by": d.owed_by,
                        "owed_by_pt": pr.OWED_BY_LABELS[d.owed_by], **open_standing(due, as_of, due_soon_days=soon),
                        "basis": d.deadline.basis, "steps": d.deadline.steps})
    if store.has_table("appeals"):
        out += appeal_records.deadline_rows(store, user, as_of=as_of, office=office, owed_by=owed_by)
    out += pending_signatures.deadline_rows(store, user, as_of=as_of, office=office, owed_by=owed_by)   # issue 27
    # they write requests and their steps through this module
    from valuation.proceedings import filings as filing_records
    from valuation.proceedings import intimations

    out += filing_records.deadline_rows(store, user, as_of=as_of, office=office, owed_by=owed_by)   # issue 42 item 6
    out += intimations.deadline_rows(store, user, as_of=as_of, office=office, owed_by=owed_by)   # "aguardando ciência"
    out.sort(key=lambda row: (row["due"], row["case_pt"]))
    return out


def request_title(row: Mapping[str, Any]) -> str:
    """How a picker names an `undecided_requests` row: number, NUP, office, wreck, matter and filing day."""
    return (f"nº {row['id']} · NUP {row['nup'] or 'sem NUP'} · {row['office_code']} · {row['wreck']} · "
            f"{row['matter_pt']} · protocolado em {format_date_br(row['requested_on'])}")


def case_title(row: Mapping[str, Any]) -> str:
    """How a message names the case of an `authority_deadlines` row: the request with its NUP, or the appeal or
    decision (its NUP in `case_pt` already)."""
    if row.get("request_id") is None or not row.get("nup"):
        return str(row["case_pt"])
    return f"{row['case_pt']} (NUP {row['nup']})"


def decision_times(store: Store, user: Principal, *, as_of: date, months: int = 12) -> list[dict[str, Any]]:
    """Per office and matter, the requests decided in the `months` up to `as_of`: office_code, matter,
    matter_pt, decided (how many) and median_days (from filing to the decision), by office and matter."""
    require(user, "read_requests")
    since = add_months(as_of, -months)[0]
    reqs = {r["id"]: r for r in _requests(store, user)}
    groups: dict[tuple[str, str], list[int]] = {}
    for request_id, steps in _steps(store, list(reqs), kind="decided").items():
        decided = steps[0]["day"] if steps else None                               # the first decision counts
        if decided is not None and since < decided <= as_of:
            r = reqs[request_id]
            groups.setdefault((r["office_code"], r["matter"]), []).append((decided - r["requested_on"]).days)
    return [{"office_code": office, "matter": matter, "matter_pt": MATTERS[matter], "decided": len(days),
             "median_days": statistics.median(days)} for (office, matter), days in sorted(groups.items())]
