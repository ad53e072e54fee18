"""Find a case by its NUP: the record the number was given to, its wreck, contract and office, read with the
user's rights (a number of a record the user may not read answers as one that does not exist)."""
from __future__ import annotations

from typing import Any

from valuation.core import clock, nup
from valuation.core.errors import NotFound
from valuation.db.access import Principal, allowed, contract_scope, office_cleared, request_scope, require
from valuation.db.store import Store
from valuation.process import documents
from valuation.process.numbers import SUBJECTS

FIELD = "NUP do processo"

# per subject: the permission that reads it, whether it is a contract's (scoped), and the case's facts
_CASES: dict[str, tuple[str, bool, str]] = {
    "licence_request": ("read_owners", False,
                        "SELECT w.code AS wreck_code, w.name AS wreck_name, NULL AS contract_code, "
                        "r.requested_on AS act_on, o.name AS party, NULL AS contract_id FROM licence_requests r "
                        "JOIN wrecks w ON w.id = r.wreck_id LEFT JOIN owners o ON o.id = r.requester_id "
                        "WHERE r.id = ?"),
    "removal_order": ("read_removal_orders", False,
                      "SELECT w.code AS wreck_code, w.name AS wreck_name, NULL AS contract_code, "
                      "r.ordered_on AS act_on, r.act AS party, NULL AS contract_id FROM removal_orders r "
                      "JOIN wrecks w ON w.id = r.wreck_id WHERE r.id = ?"),
    "round": ("read_rounds", True,
              "SELECT w.code AS wreck_code, w.name AS wreck_name, c.code AS contract_code, "
              + clock.day_sql("r.decided_at") + " AS act_on, 'Rodada ' || r.number AS party, c.id AS contract_id "
              "FROM assessment_rounds r JOIN contracts c ON c.id = r.contract_id JOIN wrecks w ON w.id = c.wreck_id "
              "WHERE r.id = ?"),
    "statement": ("read_statements", True,
                  "SELECT w.code AS wreck_code, w.name AS wreck_name, c.code AS contract_code, "
                  + clock.day_sql("s.created_at") + " AS act_on, s.number || ' v' || s.version AS party, "
                  "c.id AS contract_id "
                  "FROM statements s JOIN contracts c ON c.id = s.contract_id JOIN wrecks w ON w.id = c.wreck_id "
                  "WHERE s.id = ?"),
    "request": ("read_requests", False,
                "SELECT w.code AS wreck_code, w.name AS wreck_name, NULL AS contract_code, q.filed_on AS act_on, "
                "'nº ' || q.id || ' (' || q.matter || ')' || coalesce(' — ' || g.name, '') AS party, "
                "NULL AS contract_id FROM requests q "
                "JOIN wrecks w ON w.id = q.wreck_id LEFT JOIN organisations g ON g.id = q.organisation_id "
                "WHERE q.id = ?"),
    # issue 26 §2: the Authority's decisions and the appeals, read in the process's scope (an explorer: its own
    # company's; an appeal carries its decision's company)
    "administrative_decision": ("read_requests", False,
                                "SELECT w.code AS wreck_code, w.name AS wreck_name, c.code AS contract_code, "
                                "d.decided_on AS act_on, d.summary AS party, NULL AS contract_id "
                                "FROM administrative_decisions d LEFT JOIN wrecks w ON w.id = d.wreck_id "
                                "LEFT JOIN contracts c ON c.id = d.contract_id WHERE d.id = ?"),
    "appeal": ("read_requests", False,
               "SELECT w.code AS wreck_code, w.name AS wreck_name, c.code AS contract_code, a.filed_on AS act_on, "
               "a.appellant || ' (' || a.instance || 'º recurso)' AS party, NULL AS contract_id "
               "FROM appeals a JOIN administrative_decisions d ON d.id = a.decision_id "
               "LEFT JOIN wrecks w ON w.id = d.wreck_id LEFT JOIN contracts c ON c.id = d.contract_id WHERE a.id = ?"),
}
# subjects read under a scope of their own rows (not a contract's): the scope, the table and its alias
_ROW_SCOPES = {"request": (request_scope, "requests", "q"),
               "administrative_decision": (request_scope, "administrative_decisions", "d"),
               "appeal": (request_scope, "appeals", "a")}


def _readable(store: Store, user: Principal, subject: str, subject_id: int, contract_id: int | None) -> bool:
    permission, scoped, _sql = _CASES[subject]
    if not allowed(user, permission):
        return False
    if subject in _ROW_SCOPES:
        scope, table, alias = _ROW_SCOPES[subject]
        own, args = scope(user, alias)
        return bool(store.scalar(f"SELECT count(*) FROM {table} {alias} WHERE {alias}.id = ? AND {own}",
                                 [subject_id, *args]))
    if not scoped:
        return True
    where, params = contract_scope(user, "c")
    return bool(store.scalar(f"SELECT count(*) FROM contracts c WHERE c.id = ? AND {where}", [contract_id, *params]))


def find_case(store: Store, user: Principal, text: str | None) -> dict[str, Any]:
    """The case of a NUP typed with or without punctuation: nup, subject, subject_label, subject_id, office_code,
    office_name, wreck_code, wreck_name, contract_code, act_on, party, and documents (its process's, in order:
    `valuation.process.documents.documents`). InputError (naming the field) for a
    malformed NUP or a wrong check digit; NotFound when no record the user may read has it."""
    require(user, "find_by_nup")
    number = nup.parse(text, field=FIELD)
    missing = NotFound(f"Nenhum processo com o NUP {number}.", what="nup", key=str(number))
    row = store.fetch_one("SELECT p.subject, p.subject_id, p.office_code, f.name AS office_name FROM process_numbers p "
                          "LEFT JOIN offices f ON f.code = p.office_code WHERE p.nup = ?", [number.digits])
    if row is None or row["subject"] not in _CASES:
        raise missing
    facts = store.fetch_one(_CASES[row["subject"]][2], [row["subject_id"]])
    if facts is None or not office_cleared(user, row["office_code"]) or \
            not _readable(store, user, row["subject"], int(row["subject_id"]), facts["contract_id"]):
        raise missing          # another office's case, for an office officer, answers as a missing one
    return {"nup": str(number), "subject": row["subject"], "subject_label": SUBJECTS[row["subject"]].label,
            "subject_id": int(row["subject_id"]), "office_code": row["office_code"], "office_name": row["office_name"],
            **{k: v for k, v in facts.items() if k != "contract_id"},
            "documents": _documents(store, str(row["subject"]), int(row["subject_id"]))}


def _documents(store: Store, subject: str, subject_id: int) -> list[dict[str, Any]]:
    """The documents of the case's process in their order (issue 42 item 2): the process the numbered record opened
    — a licence request's is its request's; an appeal numbered on its own before that, its decision's."""
    process: documents.Process | None = (subject, subject_id)
    if subject == "licence_request":
        rid = store.scalar("SELECT id FROM requests WHERE licence_request_id = ?", [subject_id])
        process = ("request", int(rid)) if rid is not None else None
    elif subject == "appeal":
        process = documents.process_of(store, "appeal", subject_id)
    return documents.documents(store, process) if process is not None else []
