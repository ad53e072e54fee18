"""Filings and the office's queue (issue 42, items 1 and 6; decision: docs/decisions/143-filings.md).

    file_electronic(store, user, data, uploads)   a company's representative files (explorer): Filed
    record_received(store, user, data, uploads)  an office records a filing received on paper, by e-mail or SEI
    filings_of(store, user, request_id=None)      the filings the user may read, newest first
    review(store, user, filing_id, note)          the office examined a filing (once)
    deadline_rows(store, user, as_of=…)           the filings not examined: what the Authority owes (art. 24)

A filing is a document of one process: a new request opens it (its NUP, `process.numbers`), and every later filing
of that request is numbered within it (`document_no`). A filing in the system is dated by the service's clock —
the filer types no date (Lei 9.784/1999 art. 22 §1: the act carries the date it was done); one received by another
channel carries the day the office says it reached it, and the record says which channel. An answer to an
intimation for information (art. 39) or the allegations (art. 44) also record the party's step in the request's
process, which ends the party's period. Each filing's files are PDFs (the attachments' limits and refusal of active
content: `attachments.records.prepare_all`). Access: filing in the system `file_filings` (an explorer, for its own
company), recording and examining `manage_requests` (DPC, an officer for its office), reading `read_requests` in the
request's scope (`db.access.request_scope`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.attachments.records import Upload, prepare_all, stage
from valuation.core import nup
from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.forms import Form, excerpt
from valuation.db.access import (
    Principal,
    allowed,
    chosen_organisation,
    office_match,
    request_scope,
    require,
)
from valuation.db.blobs import BlobStore
from valuation.deadlines.calendars import office_calendars
from valuation.deadlines.rules import open_standing
from valuation.notices import events
from valuation.policies.values import timelines, values_in_force
from valuation.proceedings import periods as pr
from valuation.proceedings import requests as rq
from valuation.process import documents, numbers

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

NEW_REQUEST = "requerimento"
APPEAL = "recurso"
KINDS: dict[str, str] = {
    NEW_REQUEST: "Requerimento (abre um processo novo)",
    APPEAL: "Recurso contra a decisão do requerimento (Lei 9.784/1999 arts. 56 a 59; Lei 7.542/1986 art. 33)",
    "informações": "Informações ou documentos solicitados pela Autoridade (Lei 9.784/1999 art. 39)",
    "alegações": "Alegações finais (Lei 9.784/1999 art. 44)",
    "documento": "Outro documento do processo",
}
# the party's step a filing of this kind records in the request's process (its period ends there)
STEP_OF_KIND = {"informações": "information_provided", "alegações": "allegations_filed"}
SYSTEM = "sistema"
CHANNELS: dict[str, str] = {SYSTEM: "Peticionamento eletrônico (neste sistema)",
                            "papel": "Papel, na Organização Militar", "e-mail": "Correio eletrônico",
                            "SEI": "Outro sistema de protocolo (SEI/SiGDEM)"}
LABELS: dict[str, str] = {"kind": "O que é protocolado", "subject": "Assunto", "request_id": "Processo (requerimento)",
                          "wreck_code": "Naufrágio", "matter": "Assunto do requerimento",
                          "organisation_id": "Empresa que protocolou", "channel": "Meio de recebimento",
                          "received_on": "Data do recebimento na OM", "files": "Arquivos (PDF)",
                          "note": "O que a OM fez", "nup": numbers.ADOPT_LABEL}
ELECTRONIC_FIELDS = ("kind", "subject", "request_id", "wreck_code", "matter")
RECEIVED_FIELDS = (*ELECTRONIC_FIELDS, "organisation_id", "channel", "received_on", "nup")
PDF_ONLY = ("pdf",)
MAX_SUBJECT = 500
MAX_NOTE = 1000
RULE = "filing_examination"
LABEL = "Examinar documento protocolado"


@dataclass(frozen=True)
class Filed:
    """A filing as recorded: its id, its request (process), its number in it, the process's NUP (None when the
    office has no protocol unit) and the receipt's verification code."""
    filing_id: int
    request_id: int
    document_no: int
    nup: str | None
    receipt_code: str


def _read(store: Store, user: Principal, f: Form, organisation_id: int | None, day: date | None
          ) -> tuple[str | None, str | None, dict[str, Any] | None, dict[str, Any] | None, str | None]:
    """kind, subject, the existing request or the new request's wreck, and its matter (validated in `f`)."""
    kind = f.choice("kind", LABELS["kind"], tuple(KINDS))
    subject = f.text("subject", LABELS["subject"], max_len=MAX_SUBJECT)
    request = wreck = matter = None
    if kind == NEW_REQUEST:
        code = f.text("wreck_code", LABELS["wreck_code"], max_len=40)
        office, oparams = office_match(user, "office_code")
        wreck = store.fetch_one(f"SELECT id, code, name, office_code FROM wrecks WHERE code = ? AND {office}",
                                [code, *oparams]) if code else None
        if code and wreck is None:
            f.fail("wreck_code", f"{LABELS['wreck_code']}: não encontrado ({excerpt(code)}).")
        matter = f.choice("matter", LABELS["matter"], tuple(m for m in rq.MATTERS if m != "recurso"))
    elif kind is not None:
        request_id = f.integer("request_id", LABELS["request_id"], minimum=1)
        if request_id is not None:
            request = rq.undecided_request(store, user, request_id, f, LABELS["request_id"],
                                           "; um recurso se interpõe contra a decisão (escolha \"Recurso\")",
                                           decided=kind == APPEAL)
            if kind == APPEAL and request is not None:
                _appeal_problem(store, user, request, day or store.today(), f)
            if request is not None and organisation_id is not None \
                    and request["organisation_id"] not in (None, organisation_id):
                f.fail("request_id", f"{LABELS['request_id']}: nº {request_id} é de outra empresa.")
            if request is not None and day is not None and day < request["requested_on"]:
                f.fail("received_on", f"{LABELS['received_on']}: anterior ao protocolo do requerimento.")
    return kind, subject, request, wreck, matter


def _appeal_problem(store: Store | Tx, user: Principal, request: Mapping[str, Any], day: date, f: Form) -> None:
    """Record in `f` why an appeal against the request's decision cannot be filed on `day`: the decision is not
    intimated (nor its notification recorded), or the appeal's path refuses it (`appeal_records.check_appeal`)."""
    from valuation.proceedings import appeal_records, intimations

    d = appeal_records.decision_of(store, user, "requests", int(request["id"]))
    if d is not None:
        appeal_records.check_appeal(store, d, day, f, "request_id")
    elif intimations.pending_decision(store, int(request["id"])) is None:
        f.fail("request_id", f"{LABELS['request_id']}: a decisão do requerimento nº {request['id']} ainda não foi "
                             "intimada; o recurso conta da ciência da intimação (Lei 9.784/1999 art. 59).")


def _appeal(tx: Tx, user: Principal, request_id: int, day: date, appellant: str, grounds: str) -> int:
    """The appeal a filing brings, in its write: a decision's intimation still awaiting its ciência has it now, by
    the party's appearance (Lei 9.784/1999 art. 26 §5); then the appeal against the decision, checked again."""
    from valuation.proceedings import appeal_records, intimations

    pending = intimations.pending_decision(tx, request_id)
    if pending is not None:
        intimations.supply_ciencia(tx, pending, day, user.username)
    d = appeal_records.decision_of(tx, user, "requests", request_id)
    f = Form({}, allowed=())
    admitted = appeal_records.check_appeal(tx, d, day, f, "request_id") if d is not None else None
    f.done()
    assert d is not None and admitted is not None
    return appeal_records.insert_appeal(tx, d, admitted, day, appellant, grounds)


def _files(store: Store, user: Principal, uploads: Sequence[Upload]) -> list[Any]:
    try:
        return prepare_all(uploads, PDF_ONLY, budget=(store.path, user.username))
    except InputError as exc:
        raise InputError([Problem("files", f"{LABELS['files']}: {p.message.removeprefix('Arquivos: ')}")
                          for p in exc.problems]) from None


def _own(user: Principal) -> int | None:
    """The company a representative files for: its own (`db.access.chosen_organisation`)."""
    return chosen_organisation(user, None, any_with="manage_requests")


def _checked_files(store: Store, user: Principal, uploads: Sequence[Upload], f: Form) -> list[Any]:
    """The files prepared, their problems named with the form's (`f.done()`: every problem at once)."""
    prepared: list[Any] = []
    try:
        prepared = _files(store, user, uploads)
    except InputError as exc:
        for p in exc.problems:
            f.fail(p.path, p.message)
    f.done()
    return prepared


def file_electronic(store: Store, user: Principal, data: Mapping[str, Any], uploads: Sequence[Upload]) -> Filed:
    """A company's representative files in the system: dated by the service's clock (no date is read), numbered
    in its process, answered with a receipt (see the module). InputError names every bad field; audited."""
    require(user, "file_filings")
    if _own(user) is None:
        raise InputError(Problem("organisation_id", "Protocolo: o usuário não representa uma empresa."))
    f = Form(data, allowed=ELECTRONIC_FIELDS)
    kind, subject, request, wreck, matter = _read(store, user, f, _own(user), None)
    prepared = _checked_files(store, user, uploads, f)
    return _write(store, user, kind, subject, request, wreck, matter, _own(user), SYSTEM, None, prepared)


def record_received(store: Store, user: Principal, data: Mapping[str, Any], uploads: Sequence[Upload]) -> Filed:
    """An office records a filing that reached it on paper, by e-mail or through SEI, with the day it was received
    and the scanned document (see the module). dpc or the office's officer; audited."""
    require(user, "manage_requests")
    f = Form(data, allowed=RECEIVED_FIELDS)
    channel = f.choice("channel", LABELS["channel"], tuple(c for c in CHANNELS if c != SYSTEM))
    day = f.date("received_on", LABELS["received_on"])
    if day is not None and day > store.today():
        f.fail("received_on", f"{LABELS['received_on']}: não pode estar no futuro.")
    old_day = numbers.act_day_problem(day, LABELS["received_on"])
    if old_day is not None:
        f.fail("received_on", old_day)
    org = f.integer("organisation_id", LABELS["organisation_id"], minimum=1)
    if org is not None and not store.scalar("SELECT count(*) FROM organisations WHERE id = ?", [org]):
        f.fail("organisation_id", f"{LABELS['organisation_id']}: não encontrada ({org}).")
    kind, subject, request, wreck, matter = _read(store, user, f, org, day)
    adopted = numbers.read_adopted(store, f)     # a new case begun in the protocol system keeps its NUP (item 2)
    if adopted is not None and kind != NEW_REQUEST:
        f.fail("nup", f"{numbers.ADOPT_LABEL}: só um requerimento novo traz o número do processo; os demais documentos "
                      "entram no processo do requerimento escolhido.")
    prepared = _checked_files(store, user, uploads, f)
    return _write(store, user, kind, subject, request, wreck, matter, org, str(channel), day, prepared, adopted)


def _write(store: Store, user: Principal, kind: Any, subject: Any, request: dict[str, Any] | None,
           wreck: dict[str, Any] | None, matter: Any, organisation_id: int | None, channel: str, day: date | None,
           prepared: list[Any], adopted: nup.Nup | None = None) -> Filed:
    from valuation.proceedings import filing_receipt as receipt

    blobs = BlobStore.for_database(store.path)
    with blobs.staging() as staging:
        files = stage(staging, prepared)

        def write(tx: Tx) -> Filed:
            received_on = day if day is not None else tx.store.today()
            if request is None:
                assert wreck is not None
                request_id = rq.insert_request(tx, user, wreck, {
                    "matter": matter, "requester_id": None, "organisation_id": organisation_id,
                    "filed_on": received_on, "note": str(subject)[:1000]}, None, by_filing=True, adopted=adopted)
                office = str(wreck["office_code"])
            else:
                request_id, office = int(request["id"]), str(request["office_code"])
            # the next document of the request's process (issue 42 item 2): a new request's filing is its first
            filing_id = int(tx.scalar("SELECT nextval('seq_filings')"))
            document_no = documents.add(tx, ("request", request_id), "filing", filing_id, opens=request is None)
            tx.execute(
                "INSERT INTO filings (id, request_id, document_no, kind, subject, organisation_id, office_code, "
                "channel, received_on, filed_by, filed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [filing_id, request_id, document_no, kind, subject, organisation_id, office, channel, received_on,
                 user.username, tx.store.now()])
            tx.cur.executemany("INSERT INTO filing_files (filing_id, position, name, media_type, size_bytes, sha256) "
                               "VALUES (?, ?, ?, ?, ?, ?)",
                               [[filing_id, k + 1, p.name, p.ftype.media_type, row["size_bytes"], row["sha256"]]
                                for k, (p, row) in enumerate(zip(prepared, files))])
            tx.audit("filing", "filing", filing_id, None,
                     {"request_id": request_id, "document_no": document_no, "kind": kind, "channel": channel,
                      "received_on": received_on,
                      "files": [{"name": p.name, "sha256": row["sha256"], "size": row["size_bytes"]}
                                for p, row in zip(prepared, files)]})
            company = tx.scalar("SELECT name FROM organisations WHERE id = ?", [organisation_id]) \
                if organisation_id is not None else None
            if kind == APPEAL:
                _appeal(tx, user, request_id, received_on, str(company or user.full_name), str(subject))
            if kind in STEP_OF_KIND:
                rq.insert_step(tx, user.username, request_id, STEP_OF_KIND[kind], received_on,
                               note=f"Protocolo nº {document_no} do processo")
            nup = numbers.request_nups(tx, [request_id]).get(request_id)
            code = receipt.issue_receipt(tx, user, filing_id, staging)
            events.filing_received(tx, filing_key=f"filing:{filing_id}", office_code=office,
                                   what=f"{KINDS[str(kind)].split(' (')[0]} — {excerpt(str(subject))}",
                                   nup=nup, filer=str(company or user.full_name))
            staging.publish()
            return Filed(filing_id, request_id, document_no, nup, code)

        return store.write(user.username, write)


_FILINGS = """
SELECT f.id, f.request_id, f.document_no, f.kind, f.subject, f.organisation_id, g.name AS organisation,
       f.office_code, f.channel, f.received_on, f.filed_by, coalesce(u.full_name, f.filed_by) AS filed_by_name,
       f.filed_at, r.reviewed_at, coalesce(ru.full_name, r.reviewed_by) AS reviewed_by_name, r.note AS review_note,
       (SELECT count(*) FROM filing_files x WHERE x.filing_id = f.id) AS files,
       (SELECT d.code FROM issued_documents d WHERE d.kind = 'filing_receipt' AND d.record_table = 'filings'
        AND d.record_id = f.id ORDER BY d.id DESC LIMIT 1) AS receipt_code, w.code AS wreck
FROM filings f JOIN requests q ON q.id = f.request_id JOIN wrecks w ON w.id = q.wreck_id
LEFT JOIN organisations g ON g.id = f.organisation_id LEFT JOIN users u ON u.username = f.filed_by
LEFT JOIN filing_reviews r ON r.filing_id = f.id LEFT JOIN users ru ON ru.username = r.reviewed_by
WHERE {scope} AND (? IS NULL OR f.request_id = ?) AND (? IS NULL OR f.id = ?)
ORDER BY f.filed_at DESC, f.id DESC"""


def filings_of(store: Store | Tx, user: Principal, request_id: int | None = None, *,
               filing_id: int | None = None) -> list[dict[str, Any]]:
    """The filings the user may read (its company's, or its office's, or all for DPC), newest first, with the
    process NUP, the kind and channel in Portuguese, who filed and who examined them."""
    require(user, "read_requests")
    scope, params = request_scope(user, "q")     # an officer: its office's requests, whose filings these are
    rows = store.fetch(_FILINGS.format(scope=scope), [*params, request_id, request_id, filing_id, filing_id])
    nups = numbers.request_nups(store, {int(r["request_id"]) for r in rows})
    return [{**r, "nup": nups.get(int(r["request_id"])), "kind_pt": KINDS.get(r["kind"], r["kind"]),
             "channel_pt": CHANNELS.get(r["channel"], r["channel"])} for r in rows]


def filing(store: Store | Tx, user: Principal, filing_id: object) -> dict[str, Any]:
    """One filing the user may read, with its files; NotFound (the same for another company's) otherwise."""
    if isinstance(filing_id, bool) or not isinstance(filing_id, int):
        raise NotFound(f"Protocolo {filing_id} não encontrado.", what="filing", key=filing_id)
    found = filings_of(store, user, filing_id=filing_id)
    if not found:
        raise NotFound(f"Protocolo {filing_id} não encontrado.", what="filing", key=filing_id)
    files = store.fetch("SELECT position, name, media_type, size_bytes, sha256 FROM filing_files WHERE filing_id = ? "
                        "ORDER BY position", [filing_id])
    return {**found[0], "file_rows": files}


def review(store: Store, user: Principal, filing_id: int, note: object) -> int:
    """The office examined the filing and says what it did (once); dpc or the filing office's officer; audited."""
    require(user, "manage_requests")
    row = filing(store, user, filing_id)
    f = Form({"note": note}, allowed=("note",))
    text = f.text("note", LABELS["note"], max_len=MAX_NOTE)
    if row["reviewed_at"] is not None:
        f.fail("note", f"{LABELS['note']}: o protocolo nº {filing_id} já foi examinado.")
    f.done()

    def write(tx: Tx) -> int:
        if tx.scalar("SELECT count(*) FROM filing_reviews WHERE filing_id = ?", [filing_id]):
            raise InputError(Problem("note", f"{LABELS['note']}: o protocolo nº {filing_id} já foi examinado."))
        new_id = int(tx.scalar("INSERT INTO filing_reviews (filing_id, note, reviewed_by, reviewed_at) VALUES "
                               "(?, ?, ?, ?) RETURNING id", [filing_id, text, user.username, tx.store.now()]))
        tx.audit("filing_review", "filing", filing_id, None, {"note": text})
        return new_id

    return store.write(user.username, write)


_QUEUE = """
SELECT f.id, f.request_id, f.document_no, f.kind, f.office_code, f.channel, f.received_on, g.name AS organisation,
       w.code AS wreck
FROM filings f JOIN requests q ON q.id = f.request_id JOIN wrecks w ON w.id = q.wreck_id
LEFT JOIN organisations g ON g.id = f.organisation_id
WHERE {scope} AND f.received_on <= ? AND (? IS NULL OR f.office_code = ?)
  AND NOT EXISTS (SELECT 1 FROM filing_reviews r WHERE r.filing_id = f.id)
ORDER BY f.received_on, f.id"""


def deadline_rows(store: Store, user: Principal, *, as_of: date, office: str | None = None,
                  owed_by: str | None = pr.AUTHORITY) -> list[dict[str, Any]]:
    """The filings received on or before `as_of` not yet examined: each owes the Authority an act in the days of
    Lei 9.784/1999 art. 24 (policy `process_act_days`, in force on the day it was received), counted from then.
    One query for the open filings alone; the period computed once per office and day received (the bench: ≤ 0.3 s
    for DPC's queue of 50 000 open filings, bench/proceedings_bench.py)."""
    if owed_by not in (None, pr.AUTHORITY) or not allowed(user, "manage_requests") or not store.has_table("filings"):
        return []
    scope, params = request_scope(user, "q")
    rows = store.fetch(_QUEUE.format(scope=scope), [*params, as_of, office, office])
    if not rows:
        return []
    nups = numbers.request_nups(store, {int(r["request_id"]) for r in rows})
    cals = office_calendars(store, sorted({r["office_code"] for r in rows}), on=as_of)
    soon = int(values_in_force(store, ("due_soon_days",), as_of=as_of)["due_soon_days"])
    line = timelines(store, ("process_act_days",))["process_act_days"]
    due_of: dict[tuple[str, date], Any] = {}
    out = []
    for r in rows:
        key = (str(r["office_code"]), r["received_on"])
        if key not in due_of:
            due_of[key] = pr.act_due(r["received_on"], cals[key[0]], line.at(r["received_on"]).legal())
        deadline = due_of[key]
        if deadline.due is None:
            continue
        out.append({"request_id": r["request_id"], "appeal_id": None, "decision_id": None,
                    "case_pt": f"protocolo nº {r['document_no']} do requerimento nº {r['request_id']}",
                    "nup": nups.get(int(r["request_id"])), "office_code": r["office_code"], "wreck": r["wreck"],
                    "matter_pt": KINDS.get(r["kind"], r["kind"]), "organisation": r["organisation"], "rule": RULE,
                    "label": LABEL, "owed_by": pr.AUTHORITY, "owed_by_pt": pr.OWED_BY_LABELS[pr.AUTHORITY],
                    "filing_id": r["id"], **open_standing(deadline.due, as_of, due_soon_days=soon),
                    "basis": deadline.basis,
                    "steps": (*deadline.steps, f"Recebido em {r['received_on']:%d/%m/%Y} por "
                                               f"{CHANNELS.get(r['channel'], r['channel']).lower()}")})
    out.sort(key=lambda row: (row["due"], row["case_pt"]))
    return out
