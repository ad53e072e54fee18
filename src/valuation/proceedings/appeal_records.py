"""The Authority's decisions and the appeals against them, stored (issue 26 §2; Lei 7.542/1986 art. 33; Lei
9.784/1999 arts. 56–65; migration 064). The path's rules are `valuation.proceedings.appeals` (pure).

- `record_decision`: a decision of the Authority as a record, with the day it was notified or published
  (what the 10 days of art. 59 run from): one of the product's records (a removal order, a Commission round, an
  issued statement, a request's decision, a found thing declared lost, a contract's cancellation) or a decision
  the product keeps no other record of (the incorporation of a wreck into the União's domain, a preference
  ruling), with its wreck and the interested company;
- `file_appeal`: an appeal against it, the next in order (art. 57: three instances, the authority that decided and
  two above it, so at most two appeals; a third is recorded and only declared not known, art. 63 IV; never a fourth),
  on time or recorded late (art. 63 I), with or without a granted suspensive effect (art. 61);
- `record_appeal_step`: the reconsideration or forwarding, the others' intimation and allegations, the
  extension, the decision with its outcome; an outcome that grants the appeal acts on the decision in the same
  write (`_act_on_decision`: a removal order is revoked, naming the appeal; a statement owes a new version);
- `annul_appeal_step`: annul a step recorded by mistake, with its reason (issue 42 item 5; `valuation.db.annulments`):
  never deleted, no longer counted, shown in the case with its annulment;
- `record_appeal_notice`: the day the appeal's decision was notified to the party or published (migration 076):
  the next appeal's 10 days run from it (art. 59), never from the day the appeal was decided;
- `decisions`, `appeals_of`: the records, read in the user's scope (`db.access.request_scope`: DPC every one, an
  explorer its own company's, another company's answers as missing);
- `deadline_rows`: the appeals' open deadlines in the rows of `requests.authority_deadlines`.
Every write goes through the store's write funnel and is audited. A decision and its appeals are documents of one
process (`valuation.process.documents`): the decided record's, under its NUP; a decision with no record of its own opens
its process and gets its NUP (an appeal numbered before issue 42 item 2 keeps the one it was given).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core import clock, law
from valuation.core.errors import ConflictError, NotFound
from valuation.core.forms import Form, excerpt
from valuation.db import annulments
from valuation.db.access import Principal, request_scope, require
from valuation.deadlines.calendars import office_calendars
from valuation.deadlines.counting import fmt
from valuation.deadlines.rules import open_standing
from valuation.policies.values import values_in_force
from valuation.proceedings import appeals as ap
from valuation.proceedings import periods as pr
from valuation.process import documents, numbers

if TYPE_CHECKING:
    from valuation.core.calendar import BusinessCalendar
    from valuation.db.store import Store, Tx


@dataclass(frozen=True)
class DecisionKind:
    label: str               # pt-BR
    table: str | None        # the product's record of it (None: the decision is its own record)
    facts_sql: str | None    # office_code, wreck_id, contract_id, organisation_id, day of the record `?`
    nup_subject: str | None  # the record's own NUP subject, when it has one


_CONTRACT_FACTS = ("SELECT c.office_code, c.wreck_id, c.id AS contract_id, c.organisation_id, {day} AS day "
                   "FROM {table} x JOIN contracts c ON c.id = {contract} WHERE x.id = ?")
KINDS: dict[str, DecisionKind] = {
    "removal_order": DecisionKind(
        "Determinação de remoção ou demolição (Lei 7.542/1986 art. 5)", "removal_orders",
        "SELECT w.office_code, w.id AS wreck_id, NULL AS contract_id, NULL AS organisation_id, x.ordered_on AS day "
        "FROM removal_orders x JOIN wrecks w ON w.id = x.wreck_id WHERE x.id = ?", "removal_order"),
    "domain_incorporation": DecisionKind(
        "Incorporação ao domínio da União (Lei 7.542/1986 art. 6)", None, None, None),
    "request": DecisionKind(
        "Decisão de requerimento (licença, prorrogação, reclamação, saldo)", "requests",
        "SELECT x.office_code, x.wreck_id, NULL AS contract_id, x.organisation_id, x.filed_on AS day "
        "FROM requests x WHERE x.id = ?", "request"),
    "preference": DecisionKind("Decisão sobre preferência (Lei 7.542/1986 art. 16)", None, None, None),
    "found_thing_lost": DecisionKind(
        "Coisa achada declarada perdida (Lei 7.542/1986 art. 29 §2)", "found_things",
        "SELECT x.office_code, x.wreck_id, NULL AS contract_id, NULL AS organisation_id, x.collected_on AS day "
        "FROM found_things x WHERE x.id = ?", None),
    "cancellation": DecisionKind(
        "Cancelamento da autorização (Lei 7.542/1986 art. 22)", "contracts",
        _CONTRACT_FACTS.format(day="x.cancelled_on", table="contracts", contract="x.id"), None),
    "round": DecisionKind(
        "Decisão da Comissão (ata da rodada, Lei 7.542/1986 art. 20 §3)", "assessment_rounds",
        _CONTRACT_FACTS.format(day=clock.day_sql("x.decided_at"), table="assessment_rounds", contract="x.contract_id"),
        "round"),
    "statement": DecisionKind(
        "Demonstrativo de partilha emitido (Lei 7.542/1986 art. 20)", "statements",
        _CONTRACT_FACTS.format(day=clock.day_sql("x.created_at"), table="statements", contract="x.contract_id"),
        "statement"),
}
KIND_LABELS = {k: v.label for k, v in KINDS.items()}
NOTICES = {"notificação": "Notificação do interessado", "publicação": "Publicação oficial"}
LABELS: dict[str, str] = {
    "kind": "Decisão", "record_id": "Registro decidido", "wreck_code": "Naufrágio", "organisation_id": "Empresa",
    "summary": "Teor da decisão", "authority": "Autoridade que decidiu", "decided_on": "Data da decisão",
    "notice": "Forma de ciência", "notified_on": "Data da ciência ou publicação", "filed_on": "Data da interposição",
    "appellant": "Recorrente", "grounds": "Razões do recurso", "suspensive": "Efeito suspensivo concedido",
    "suspensive_reason": "Razão do efeito suspensivo", "day": "Data da etapa", "outcome": "Resultado",
    "reason": "Justificativa", "note": "Observação", "instance": "Recurso"}
DECISION_FIELDS = ("kind", "record_id", "wreck_code", "organisation_id", "summary", "authority", "decided_on",
                   "notice", "notified_on")
APPEAL_FIELDS = ("filed_on", "appellant", "grounds", "suspensive", "suspensive_reason")
NOTICE_FIELDS = ("notice", "notified_on")
STEP_FIELDS = ("kind", "day", "outcome", "reason", "note")
_DECISIONS = """
SELECT d.*, w.code AS wreck, w.name AS wreck_name, c.code AS contract_code, g.name AS organisation
FROM administrative_decisions d LEFT JOIN wrecks w ON w.id = d.wreck_id LEFT JOIN contracts c ON c.id = d.contract_id
LEFT JOIN organisations g ON g.id = d.organisation_id
WHERE {scope} AND (? IS NULL OR d.office_code = ?) AND (? IS NULL OR d.id = ?)
ORDER BY d.notified_on, d.id"""


def _facts(store: Store, f: Form, kind: DecisionKind, data: Mapping[str, Any]) -> dict[str, Any] | None:
    """office_code, wreck_id, contract_id, organisation_id, day of the decided record (or of the wreck named)."""
    if kind.table is not None and kind.facts_sql is not None:
        rid = f.integer("record_id", LABELS["record_id"], minimum=1)
        row = store.fetch_one(kind.facts_sql, [rid]) if rid is not None else None
        if rid is not None and row is None:
            f.fail("record_id", f"{LABELS['record_id']}: não encontrado ({rid}).")
        return None if row is None else {**row, "record_id": rid}
    code = f.text("wreck_code", LABELS["wreck_code"], max_len=40)
    wreck = store.fetch_one("SELECT id, office_code FROM wrecks WHERE code = ?", [code]) if code else None
    if code and wreck is None:
        f.fail("wreck_code", f"{LABELS['wreck_code']}: não encontrado ({excerpt(code)}).")
    if wreck is None:
        return None
    org = f.integer("organisation_id", LABELS["organisation_id"], required=False, minimum=1)
    if org is not None and not store.scalar("SELECT count(*) FROM organisations WHERE id = ?", [org]):
        f.fail("organisation_id", f"{LABELS['organisation_id']}: não encontrada ({org}).")
    return {"office_code": wreck["office_code"], "wreck_id": wreck["id"], "contract_id": None,
            "organisation_id": org, "day": None, "record_id": None}


def record_decision(store: Store, user: Principal, data: Mapping[str, Any]) -> int:
    """A decision of the Authority, with its notification or publication day; returns its id. dpc only;
    InputError names every bad field; a record decided once is recorded once; audited; numbered."""
    require(user, "manage_appeals")
    f = Form(data, allowed=DECISION_FIELDS)
    key = f.choice("kind", LABELS["kind"], tuple(KINDS), labels=KIND_LABELS)
    facts = _facts(store, f, KINDS[key], data) if key is not None else None
    decided, notified = f.date("decided_on", LABELS["decided_on"]), f.date("notified_on", LABELS["notified_on"])
    rec: dict[str, Any] = {"summary": f.text("summary", LABELS["summary"], max_len=2000),
                           "authority": f.text("authority", LABELS["authority"], max_len=200),
                           "decided_on": decided,
                           "notice": f.choice("notice", LABELS["notice"], tuple(NOTICES), labels=NOTICES),
                           "notified_on": notified}
    today = store.today()
    for field, day in (("decided_on", decided), ("notified_on", notified)):
        if day is not None and day > today:
            f.fail(field, f"{LABELS[field]}: não pode estar no futuro.")
    old_day = numbers.act_day_problem(decided, LABELS["decided_on"])   # its NUP's year (an appeal comes later)
    if old_day is not None:
        f.fail("decided_on", old_day)
    if decided and notified and notified < decided:
        f.fail("notified_on", f"{LABELS['notified_on']}: anterior à decisão ({fmt(decided)}).")
    if facts is not None and facts["day"] is not None and decided and decided < facts["day"]:
        f.fail("decided_on", f"{LABELS['decided_on']}: anterior ao registro decidido ({fmt(facts['day'])}).")
    if key is not None and facts is not None and facts["record_id"] is not None and store.scalar(
            "SELECT count(*) FROM administrative_decisions WHERE record_table = ? AND record_id = ?",
            [KINDS[key].table, facts["record_id"]]):
        f.fail("record_id", f"{LABELS['record_id']}: esta decisão já está registrada.")
    f.done()
    assert key is not None and facts is not None and decided is not None

    return store.write(user.username, lambda tx: insert_decision(tx, key, facts, rec, user.username))


def _process(kind: str, record_id: int | None, decision_id: int) -> documents.Process:
    """The process a decision of `kind` (and its appeals) is a document of: its record's, when that one has a NUP of its
    own (`DecisionKind.nup_subject`), else the decision's."""
    return documents.decision_process(KINDS[kind].nup_subject, record_id, decision_id)


def insert_decision(tx: Tx, key: str, facts: Mapping[str, Any], rec: Mapping[str, Any], actor: str) -> int:
    """Write one checked decision (`facts`: record_id, office_code, wreck_id, contract_id, organisation_id; `rec`:
    summary, authority, decided_on, notice, notified_on) in transaction `tx`: its NUP or its place in its record's
    process, its audit row (`record_decision`; a request's decision notified by its intimation's ciência:
    `valuation.proceedings.intimations`). Returns its id."""
    kind = KINDS[key]
    new_id = int(tx.scalar(
        "INSERT INTO administrative_decisions (kind, record_table, record_id, office_code, wreck_id, contract_id, "
        "organisation_id, summary, authority, decided_on, notice, notified_on, recorded_by, recorded_at) VALUES "
        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        [key, kind.table, facts["record_id"], facts["office_code"], facts["wreck_id"], facts["contract_id"],
         facts["organisation_id"], rec["summary"], rec["authority"], rec["decided_on"], rec["notice"],
         rec["notified_on"], actor, tx.store.now()]))
    if kind.nup_subject is None:   # the others are documents of their record's process: its NUP
        numbers.assign(tx, "administrative_decision", new_id, facts["office_code"], rec["decided_on"])
    documents.add(tx, _process(key, facts["record_id"], new_id), "administrative_decision", new_id)
    tx.audit("record_administrative_decision", "administrative_decision", new_id, None,
             {"kind": key, "record_id": facts["record_id"], **{k: v for k, v in rec.items() if k != "summary"}})
    return new_id


def _with_nups(db: Store | Tx, rows: list[dict[str, Any]]) -> None:
    """Each decision's NUP as printed (`nup`): its record's process's (a removal order, round, statement,
    request — a licence request's by its licence's), else the one it was given, else why it has none."""
    given = numbers.nups(db, "administrative_decision", [int(r["id"]) for r in rows])
    own: dict[str, dict[int, str]] = {}
    for subject in {KINDS[r["kind"]].nup_subject for r in rows} - {None}:
        ids = [int(r["record_id"]) for r in rows if KINDS[r["kind"]].nup_subject == subject]
        if subject == "request":   # its own NUP, or its licence request's
            own[subject] = numbers.request_nups(db, ids)
        else:
            own[str(subject)] = numbers.nups(db, str(subject), ids)
    for r in rows:
        subject = KINDS[r["kind"]].nup_subject
        mine = own.get(str(subject), {}).get(int(r["record_id"] or 0)) if subject else None
        r["nup"] = mine or given.get(int(r["id"])) or numbers.NO_UNIT_TEXT.format(office=r["office_code"])


def decisions(store: Store | Tx, user: Principal, *, office: str | None = None,
              decision_id: int | None = None) -> list[dict[str, Any]]:
    """The decisions the user may read, by notification day: the row, wreck, wreck_name, contract_code,
    organisation, kind_pt, nup."""
    require(user, "read_requests")
    where, params = request_scope(user, "d")
    rows = store.fetch(_DECISIONS.format(scope=where), [*params, office, office, decision_id, decision_id])
    for r in rows:
        r["kind_pt"] = KIND_LABELS[r["kind"]]
    _with_nups(store, rows)
    return rows


def decision_of(db: Store | Tx, user: Principal, table: str, record_id: int) -> dict[str, Any] | None:
    """The decision recorded on record `table` #`record_id` (a request's…), read as `decisions` does, or None."""
    found = db.scalar("SELECT id FROM administrative_decisions WHERE record_table = ? AND record_id = ?",
                      [table, record_id])
    rows = decisions(db, user, decision_id=int(found)) if found is not None else []
    return rows[0] if rows else None


def _decision(store: Store | Tx, user: Principal, decision_id: object) -> dict[str, Any]:
    ok = isinstance(decision_id, int) and not isinstance(decision_id, bool)
    rows = decisions(store, user, decision_id=decision_id) if ok else []  # type: ignore[arg-type]
    if not rows:
        raise NotFound(f"Decisão {excerpt(decision_id)} não encontrada.", what="administrative_decision",
                       key=decision_id)
    return rows[0]


def _appeal_rows(db: Store | Tx, decision_ids: list[int]) -> list[dict[str, Any]]:
    if not decision_ids:
        return []
    return db.fetch("SELECT * FROM appeals WHERE decision_id IN (SELECT UNNEST(?)) ORDER BY decision_id, instance",
                    [decision_ids])


def _steps(db: Store | Tx, appeal_ids: list[int], *, annulled: bool = False) -> dict[int, list[dict[str, Any]]]:
    """The steps of the appeals `appeal_ids`, oldest first: those that count (never an annulled one,
    `valuation.db.annulments`), or with `annulled` the annulled ones instead, each with its `annulment`."""
    out: dict[int, list[dict[str, Any]]] = {i: [] for i in appeal_ids}
    if appeal_ids:
        which = ("NOT " if annulled else "") + annulments.not_annulled("appeal_steps", "s")
        rows = db.fetch(f"SELECT s.* FROM appeal_steps s WHERE s.appeal_id IN (SELECT UNNEST(?)) AND {which} "
                        "ORDER BY s.day, s.id", [appeal_ids])
        done = annulments.annulments_of(db, "appeal_steps", [r["id"] for r in rows]) if annulled else {}
        for r in rows:
            out[int(r["appeal_id"])].append({**r, "annulment": done[int(r["id"])]} if annulled else r)
    return out


def as_steps(rows: list[dict[str, Any]]) -> list[ap.AppealStep]:
    return [ap.AppealStep(r["kind"], r["day"], r["outcome"], r["reason"]) for r in rows]


def _notices(db: Store | Tx, appeal_ids: list[int]) -> dict[int, dict[str, Any]]:
    """appeal id → the notification of its decision (notice, notified_on), for those that have one."""
    if not appeal_ids:
        return {}
    return {int(r["appeal_id"]): r for r in db.fetch(
        "SELECT appeal_id, notice, notified_on FROM appeal_notices WHERE appeal_id IN (SELECT UNNEST(?))",
        [appeal_ids])}


def _notified_for_next(decision: Mapping[str, Any], previous: Mapping[str, Any] | None,
                       notice: Mapping[str, Any] | None) -> date | None:
    """What the next appeal's 10 days run from (Lei 9.784 art. 59: "a partir da ciência ou divulgação oficial da
    decisão recorrida"): the decision's notification (no appeal yet), or the notification of the previous appeal's
    decision; None while that is not recorded (the previous appeal still open, or decided and not yet notified)."""
    if previous is None:
        return decision["notified_on"]
    return None if notice is None else notice["notified_on"]


@dataclass(frozen=True)
class Admitted:
    """An appeal checked against its decision's path, ready to be written (`insert_appeal`)."""
    instance: int
    on_time: bool
    late: str | None
    appearance: bool      # the previous decision was not notified: the filing supplies the intimation (art. 26 §5)


def check_appeal(store: Store | Tx, d: Mapping[str, Any], filed: date | None, f: Form, field: str = "filed_on"
                 ) -> Admitted | None:
    """The next appeal against decision `d`, filed on `filed` (art. 57: two appeals; a third recorded to be declared
    not known, art. 63 IV; never a fourth), on time or late (art. 63 I); or None with the problem under `field`."""
    earlier = _appeal_rows(store, [d["id"]])
    last = earlier[-1] if earlier else None
    last_steps = as_steps(_steps(store, [last["id"]])[last["id"]]) if last else []
    instance = 1 if last is None else int(last["instance"]) + 1
    problem = ap.instance_problem(instance, None if last is None else int(last["instance"]))
    if problem is not None:
        f.fail(field, f"{LABELS['instance']}: {problem}.")
    elif last is not None:
        ended = ap.ending(last_steps)
        if ended is None:
            f.fail(field, f"{LABELS['instance']}: o {ap.appeal_title(int(last['instance']))} ainda não foi decidido.")
        elif ap.closes_the_case(ended):
            how = "com a reconsideração" if ended.kind == "reconsidered" else ap.OUTCOMES[str(ended.outcome)].lower()
            f.fail(field, f"{LABELS['instance']}: o recurso anterior terminou {how}; não cabe outra instância.")
    start = _notified_for_next(d, last, _notices(store, [int(last["id"])]).get(int(last["id"])) if last else None)
    if filed is not None and filed > store.today():
        f.fail(field, f"{LABELS['filed_on']}: não pode estar no futuro.")
    elif filed is not None and start is not None and filed < start:
        f.fail(field, f"{LABELS['filed_on']}: anterior à ciência da decisão ({fmt(start)}).")
    if filed is None or not f.ok(field):
        return None
    # the previous appeal's decision not yet notified: the party's appearance supplies the intimation (art. 26 §5),
    # so its period runs from the filing itself and the appeal is on time
    cal = office_calendars(store, [d["office_code"]], on=filed)[d["office_code"]]
    admitted = ap.admissibility(filed if start is None else start, filed, cal)
    return Admitted(instance, admitted.on_time, admitted.reason, start is None)


def file_appeal(store: Store, user: Principal, decision_id: int, data: Mapping[str, Any]) -> int:
    """An appeal against the decision, recorded by DPC (one filed by the company in the system:
    `valuation.proceedings.filings`), checked by `check_appeal`; a granted suspensive effect needs its reason
    (art. 61). dpc only; InputError names the field; audited; a document of the decision's process."""
    require(user, "manage_appeals")
    d = _decision(store, user, decision_id)
    f = Form(data, allowed=APPEAL_FIELDS)
    filed = f.date("filed_on", LABELS["filed_on"])
    appellant = f.text("appellant", LABELS["appellant"], max_len=200)
    grounds = f.text("grounds", LABELS["grounds"], max_len=4000)
    suspensive = f.boolean("suspensive", LABELS["suspensive"])
    why = f.text("suspensive_reason", LABELS["suspensive_reason"], required=False, max_len=1000)
    problem = ap.suspensive_problem(suspensive, why)
    if problem is not None:
        f.fail("suspensive_reason", f"{LABELS['suspensive_reason']}: {problem}.")
    admitted = check_appeal(store, d, filed, f)
    f.done()
    assert filed is not None and admitted is not None
    return store.write(user.username, lambda tx: insert_appeal(
        tx, d, admitted, filed, str(appellant), str(grounds), bool(suspensive), why if suspensive else None))


def insert_appeal(tx: Tx, d: Mapping[str, Any], admitted: Admitted, filed: date, appellant: str, grounds: str,
                  suspensive: bool = False, why: str | None = None) -> int:
    """Write one checked appeal against decision `d` in transaction `tx`: a document of the decision's process,
    under that one's NUP (issue 42 item 2), audited. Returns its id."""
    new_id = int(tx.scalar(
        "INSERT INTO appeals (decision_id, instance, filed_on, appellant, organisation_id, grounds, on_time, "
        "suspensive, suspensive_reason, recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "RETURNING id",
        [d["id"], admitted.instance, filed, appellant, d["organisation_id"], grounds, admitted.on_time, suspensive,
         why, tx.actor, tx.store.now()]))
    documents.add(tx, _process(d["kind"], d["record_id"], int(d["id"])), "appeal", new_id)
    tx.audit("file_appeal", "appeal", new_id, None,
             {"decision_id": d["id"], "instance": admitted.instance, "filed_on": filed, "on_time": admitted.on_time,
              "late": admitted.late, "suspensive": suspensive, "suspensive_reason": why,
              **({"appearance": True} if admitted.appearance else {})})
    return new_id


def _appeal(store: Store, user: Principal, appeal_id: object) -> tuple[dict[str, Any], dict[str, Any]]:
    ok = isinstance(appeal_id, int) and not isinstance(appeal_id, bool)
    row = store.fetch_one("SELECT * FROM appeals WHERE id = ?", [appeal_id]) if ok else None
    missing = NotFound(f"Recurso {excerpt(appeal_id)} não encontrado.", what="appeal", key=appeal_id)
    if row is None:
        raise missing
    try:
        return row, _decision(store, user, int(row["decision_id"]))
    except NotFound:
        raise missing from None


def record_appeal_step(store: Store, user: Principal, appeal_id: int, data: Mapping[str, Any]) -> int:
    """One step of an appeal (`appeals.STEP_KINDS`), validated by `appeals.step_problem`; an ending step that
    grants the appeal acts on the decision in the same write. dpc only; audited."""
    require(user, "manage_appeals")
    appeal, d = _appeal(store, user, appeal_id)
    f = Form(data, allowed=STEP_FIELDS)
    kind = f.choice("kind", "Etapa", ap.STEP_KINDS, labels=ap.STEP_LABELS)
    day = f.date("day", LABELS["day"])
    outcome = f.choice("outcome", LABELS["outcome"], tuple(ap.OUTCOMES), required=False, labels=ap.OUTCOMES)
    reason = f.text("reason", LABELS["reason"], required=False, max_len=1000)
    note = f.text("note", LABELS["note"], required=False, max_len=1000)
    if day is not None and day > store.today():
        f.fail("day", f"{LABELS['day']}: não pode estar no futuro.")
    if kind is not None and day is not None and f.ok("outcome"):
        steps = as_steps(_steps(store, [appeal["id"]])[appeal["id"]])
        problem = ap.step_problem(kind, day, appeal["filed_on"], appeal["on_time"], outcome, reason, steps,
                                  int(appeal["instance"]))
        if problem is not None:
            f.fail(problem[0], f"{LABELS.get(problem[0], 'Etapa')}: {problem[1]}.")
    f.done()
    assert kind is not None and day is not None

    def write(tx: Tx) -> int:
        new_id = int(tx.scalar(
            "INSERT INTO appeal_steps (appeal_id, kind, day, outcome, reason, note, recorded_by, recorded_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [appeal["id"], kind, day, outcome, reason, note, user.username, store.now()]))
        tx.audit("record_appeal_step", "appeal", appeal["id"], None,
                 {"step_id": new_id, "kind": kind, "day": day, "outcome": outcome, "reason": reason, "note": note})
        if kind in ap.RULING_STEPS and outcome in ap.GRANTED:
            _act_on_decision(tx, d, appeal, outcome, day)
        return new_id

    return store.write(user.username, write)


def annul_appeal_step(store: Store, user: Principal, step_id: int, reason: str) -> int:
    """Annul an appeal's step recorded by mistake (Lei 9.784/1999 art. 53) with its written reason (art. 50): a row
    of `annulments` (the step is never changed), audited; the appeal's stage and periods are computed again without
    it and `appeals_of` shows it among the appeal's `annulled_steps`. DPC only (who records the appeals). Refused in
    Portuguese: a ruling that granted the appeal (it acted on the decision in its own write: that is undone by
    another act, not by an annulment), the ending step of an appeal whose decision's ciência is recorded, a step
    annulled already. Returns the annulment's id."""
    require(user, "annul_records")
    require(user, "manage_appeals")
    text = annulments.reason_text(reason)
    ok = isinstance(step_id, int) and not isinstance(step_id, bool)
    step = store.fetch_one("SELECT * FROM appeal_steps WHERE id = ?", [step_id]) if ok else None
    if step is None:
        raise NotFound(f"Etapa de recurso {excerpt(step_id)} não encontrada.", what="appeal_step", key=step_id)
    appeal, _d = _appeal(store, user, int(step["appeal_id"]))
    if step["kind"] in ap.RULING_STEPS and step["outcome"] in ap.GRANTED:
        raise ConflictError(f"Etapa de recurso nº {step_id}: {ap.OUTCOMES[step['outcome']].lower()} — já agiu sobre "
                            "a decisão recorrida no mesmo registro; não se anula: registre o ato que a revê.")
    ended = ap.ending(as_steps(_steps(store, [int(appeal["id"])])[int(appeal["id"])]))
    if ended is not None and ended.kind == step["kind"] and ended.day == step["day"] and \
            _notices(store, [int(appeal["id"])]):
        raise ConflictError(f"Etapa de recurso nº {step_id}: a ciência da decisão deste recurso já foi registrada; "
                            "a decisão notificada não se anula.")

    def write(tx: Tx) -> int:
        return annulments.annul(tx, user.username, "appeal_steps", int(step["id"]), text, entity="appeal",
                                entity_id=appeal["id"],
                                before={k: step[k] for k in ("kind", "day", "outcome", "reason", "note")} |
                                {"step_id": step["id"]}, now=store.now())

    return store.write(user.username, write)


def record_appeal_notice(store: Store, user: Principal, appeal_id: int, data: Mapping[str, Any]) -> int:
    """The notification (or official publication) of an appeal's decision: `notice` ('notificação' |
    'publicação') and `notified_on`, the day the next appeal's 10 days run from (Lei 9.784/1999 art. 59). Only for
    an appeal that ended (decided, or reconsidered in full), not before its end, not in the future, once. dpc only;
    InputError names the field; audited."""
    require(user, "manage_appeals")
    appeal, _d = _appeal(store, user, appeal_id)
    f = Form(data, allowed=NOTICE_FIELDS)
    notice = f.choice("notice", LABELS["notice"], tuple(NOTICES), labels=NOTICES)
    day = f.date("notified_on", LABELS["notified_on"])
    ended = ap.ending(as_steps(_steps(store, [int(appeal["id"])])[int(appeal["id"])]))
    if day is not None and day > store.today():
        f.fail("notified_on", f"{LABELS['notified_on']}: não pode estar no futuro.")
    elif ended is None:
        f.fail("notified_on", f"{LABELS['notified_on']}: o recurso ainda não foi decidido.")
    elif day is not None and day < ended.day:
        f.fail("notified_on", f"{LABELS['notified_on']}: anterior à decisão do recurso ({fmt(ended.day)}).")
    elif _notices(store, [int(appeal["id"])]):
        f.fail("notified_on", f"{LABELS['notified_on']}: a ciência desta decisão já está registrada.")
    f.done()

    def write(tx: Tx) -> int:
        new_id = int(tx.scalar(
            "INSERT INTO appeal_notices (appeal_id, notice, notified_on, recorded_by, recorded_at) VALUES "
            "(?, ?, ?, ?, ?) RETURNING id", [appeal["id"], notice, day, user.username, store.now()]))
        tx.audit("record_appeal_notice", "appeal", appeal["id"], None, {"notice": notice, "notified_on": day})
        return new_id

    return store.write(user.username, write)


def _act_on_decision(tx: Tx, d: Mapping[str, Any], appeal: Mapping[str, Any], outcome: str, day: date) -> None:
    """What a granted appeal does to the decision, in the same transaction, naming the appeal: a removal order
    granted in full is revoked (its suspension of the five years ends, Lei 7.542 art. 6 sole paragraph II); the
    other decisions keep their record and read as reformed (`decision_state`), a statement owing its new version
    (`deadline_rows`)."""
    from valuation.registry import removal_orders

    cause = f"{ap.appeal_title(int(appeal['instance']))} do processo {d['nup']} ({outcome})"
    if d["kind"] == "removal_order" and outcome == "provido":
        removal_orders.revoke_in(tx, int(d["record_id"]), day, cause)
    tx.audit("decision_reformed_by_appeal", "administrative_decision", d["id"], None,
             {"appeal_id": appeal["id"], "outcome": outcome, "day": day, "cause": cause})


def decision_state(d: Mapping[str, Any], appeals_steps: list[tuple[dict[str, Any], list[ap.AppealStep]]]) -> str:
    """How a decision stands after its appeals, in pt-BR: a reconsideration in part reforms it in part, and the
    rest stays in appeal with the superior (art. 56 §1)."""
    for appeal, steps in reversed(appeals_steps):
        ended = ap.ending(steps)
        partial = ap.partial_reconsideration(steps)
        part = (f"reconsiderada em parte pela autoridade que decidiu em {fmt(partial.day)} (art. 56 §1)"
                if partial is not None else "")
        if ended is None:
            effect = " (com efeito suspensivo)" if appeal["suspensive"] else " (sem efeito suspensivo)"
            running = f"em recurso: {ap.appeal_title(int(appeal['instance']))}{effect}"
            return f"reconsiderada em parte em {fmt(partial.day)}; o restante {running}" if partial else running
        if ended.kind == "reconsidered":
            return f"reconsiderada pela autoridade que decidiu em {fmt(ended.day)} (art. 56 §1)"
        if ended.outcome == "provido":
            return f"reformada: {ap.appeal_title(int(appeal['instance']))} provido em {fmt(ended.day)}"
        if ended.outcome == "parcialmente provido":
            return f"reformada em parte: {ap.appeal_title(int(appeal['instance']))} em {fmt(ended.day)}"
        if part:
            return f"reformada em parte: {part}"
    if appeals_steps:
        return "mantida"
    return "em vigor"


def _not_known_pt(a: Mapping[str, Any]) -> str | None:
    """Why an appeal can only be declared not known, as the case shows it: late (art. 63 I) or beyond the instances
    (art. 63 IV); None when it can be judged."""
    if int(a["instance"]) > law.APPEAL_MAX_APPEALS.value:
        return f"esfera administrativa exaurida: não conhecido ({law.APPEAL_NOT_KNOWN_EXHAUSTED})"
    return None if a["on_time"] else f"fora do prazo ({law.APPEAL_NOT_KNOWN_LATE})"


def appeals_of(store: Store, user: Principal, *, as_of: date, office: str | None = None,
               decision_id: int | None = None) -> list[dict[str, Any]]:
    """Every decision the user may read with its appeals: the decision's row (`decisions`) plus state_pt and
    appeals — each with nup, instance, title_pt, filed_on, on_time, late_pt (why it can only be not known: late or
    beyond the instances), suspensive, stage_pt, steps (kind label, day, outcome, reason, note), annulled_steps
    (the same, each with its `annulment`), and the notification of its decision (notice, notified_on, notice_pt;
    None while none is recorded) — oldest decision first."""
    out = decisions(store, user, office=office, decision_id=decision_id)
    rows = _appeal_rows(store, [int(d["id"]) for d in out])
    steps = _steps(store, [int(a["id"]) for a in rows])
    gone = _steps(store, [int(a["id"]) for a in rows], annulled=True)
    given = numbers.nups(store, "appeal", [int(a["id"]) for a in rows])    # before issue 42 item 2, its own
    nup_of = {int(d["id"]): d["nup"] for d in out}
    notices = _notices(store, [int(a["id"]) for a in rows])
    by_decision: dict[int, list[dict[str, Any]]] = {}
    for a in rows:
        s = steps[int(a["id"])]
        told = notices.get(int(a["id"]))
        a.update(notice=told["notice"] if told else None, notified_on=told["notified_on"] if told else None,
                 notice_pt=(f"ciência da decisão: {told['notice']} em {fmt(told['notified_on'])}" if told else None))
        a.update(nup=given.get(int(a["id"])) or nup_of[int(a["decision_id"])],
                 title_pt=ap.appeal_title(int(a["instance"])),
                 stage_pt=ap.stage(a["on_time"], as_steps(s), int(a["instance"])),
                 late_pt=_not_known_pt(a),
                 steps=[{**x, "label": ap.STEP_LABELS[x["kind"]],
                         "outcome_pt": ap.OUTCOMES.get(x["outcome"] or "")} for x in s],
                 annulled_steps=[{**x, "label": ap.STEP_LABELS[x["kind"]],
                                  "outcome_pt": ap.OUTCOMES.get(x["outcome"] or "")} for x in gone[int(a["id"])]])
        by_decision.setdefault(int(a["decision_id"]), []).append(a)
    for d in out:
        mine = by_decision.get(int(d["id"]), [])
        d["appeals"] = mine
        d["state_pt"] = decision_state(d, [(a, as_steps(steps[int(a["id"])])) for a in mine])
    return out


def _case_deadlines(d: Mapping[str, Any], cal: BusinessCalendar, steps: dict[int, list[dict[str, Any]]],
                    reissued_on: date | None) -> list[tuple[dict[str, Any] | None, pr.ProcessDeadline]]:
    """The deadlines of one decision's appeals, the party's period for the next one (from the notification of the
    last appeal's decision, art. 59; none while it is not recorded), and — a statement reformed by an appeal — the
    Authority's new version (art. 24: no specific period, 5 days), met when it is issued."""
    out: list[tuple[dict[str, Any] | None, pr.ProcessDeadline]] = []
    previous: dict[str, Any] | None = None
    for a in d["appeals"]:
        s = as_steps(steps[int(a["id"])])
        out += [(a, x) for x in ap.appeal_deadlines(a["filed_on"], a["on_time"], s, cal, int(a["instance"]))]
        granted = ap.first_grant(s)   # from a reconsideration in part too (art. 56 §1)
        if d["kind"] == "statement" and granted is not None:
            out.append((a, pr.ProcessDeadline("appeal_effect", pr.AUTHORITY, pr.act_due(granted.day, cal),
                                              reissued_on)))
        previous = a
    prev_steps = as_steps(steps[int(previous["id"])]) if previous else []
    start = _notified_for_next(d, previous, previous if previous and previous["notified_on"] else None)
    if start is not None:
        filing = ap.next_filing(start, cal, len(d["appeals"]), ap.ending(prev_steps))
        if filing is not None:
            out.append((None, filing))
    return out


def deadline_rows(store: Store, user: Principal, *, as_of: date, office: str | None = None,
                  owed_by: str | None = pr.AUTHORITY) -> list[dict[str, Any]]:
    """The appeals' open deadlines on `as_of`, in the row shape of `requests.authority_deadlines` (request_id
    None; case_pt names the appeal or the decision; nup), by due date. A party's period to appeal shows only
    while it runs or has just lapsed (it is not owed: it is lost, art. 63 I)."""
    require(user, "read_requests")
    soon = int(values_in_force(store, ("due_soon_days",), as_of=as_of)["due_soon_days"])
    cases = appeals_of(store, user, as_of=as_of, office=office)
    steps = _steps(store, [int(a["id"]) for d in cases for a in d["appeals"]])
    cals = office_calendars(store, sorted({d["office_code"] for d in cases}), on=as_of)
    statements = [int(d["record_id"]) for d in cases if d["kind"] == "statement"]
    reissued = {int(r["supersedes"]): r["day"] for r in store.fetch(
        "SELECT supersedes, " + clock.day_sql("min(created_at)") + " AS day FROM statements WHERE supersedes IN "
        "(SELECT UNNEST(?)) GROUP BY supersedes", [statements])} if statements else {}
    out = []
    for d in cases:
        for appeal, x in _case_deadlines(d, cals[d["office_code"]], steps, reissued.get(d["record_id"] or 0)):
            due = x.deadline.due
            if due is None or (x.met_on is not None and x.met_on <= as_of) or owed_by not in (None, x.owed_by):
                continue
            if x.kind == "appeal_filing" and due < as_of:
                continue
            case = (f"recurso {appeal['nup']} ({appeal['title_pt']})" if appeal is not None
                    else f"decisão {d['nup']}")
            out.append({"request_id": None, "appeal_id": None if appeal is None else appeal["id"],
                        "decision_id": d["id"], "case_pt": case, "nup": appeal["nup"] if appeal else d["nup"],
                        "office_code": d["office_code"], "wreck": d["wreck"], "matter_pt": d["kind_pt"],
                        "organisation": d["organisation"], "rule": x.kind, "label": ap.PERIOD_LABELS[x.kind],
                        "owed_by": x.owed_by, "owed_by_pt": pr.OWED_BY_LABELS[x.owed_by],
                        **open_standing(due, as_of, due_soon_days=soon), "basis": x.deadline.basis,
                        "steps": x.deadline.steps})
    out.sort(key=lambda row: (row["due"], row["decision_id"]))
    return out
