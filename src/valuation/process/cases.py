"""Find a case by its NUP: the record the number was given to, its wreck, contract and office, read with the
user's rights (a number of a record the user may not read answers as one that does not exist)."""
from __future__ import annotations

from typing import Any

from valuation.core import nup
from valuation.core.errors import NotFound
from valuation.db.access import Principal, allowed, contract_scope, request_scope, require
from valuation.db.store import Store
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
              "CAST(r.decided_at AS DATE) AS act_on, 'Rodada ' || r.number AS party, c.id AS contract_id "
              "FROM assessment_rounds r JOIN contracts c ON c.id = r.contract_id JOIN wrecks w ON w.id = c.wreck_id "
              "WHERE r.id = ?"),
    "statement": ("read_statements", True,
                  "SELECT w.code AS wreck_code, w.name AS wreck_name, c.code AS contract_code, "
                  "CAST(s.created_at AS DATE) AS act_on, s.number || ' v' || s.version AS party, c.id AS contract_id "
                  "FROM statements s JOIN contracts c ON c.id = s.contract_id JOIN wrecks w ON w.id = c.wreck_id "
                  "WHERE s.id = ?"),
}
# issue 26 §2: the administrative process's records, read in its scope (an explorer: its own company's)
_PROCESS: dict[str, tuple[str, str]] = {
    "administrative_decision": ("read_requests",
                                "SELECT w.code AS wreck_code, w.name AS wreck_name, c.code AS contract_code, "
                                "d.decided_on AS act_on, d.summary AS party, d.id AS decision_id, NULL AS contract_id "
                                "FROM administrative_decisions d LEFT JOIN wrecks w ON w.id = d.wreck_id "
                                "LEFT JOIN contracts c ON c.id = d.contract_id WHERE d.id = ?"),
    "appeal": ("read_requests",
               "SELECT w.code AS wreck_code, w.name AS wreck_name, c.code AS contract_code, a.filed_on AS act_on, "
               "a.appellant || ' (' || a.instance || 'ª instância)' AS party, d.id AS decision_id, NULL AS contract_id "
               "FROM appeals a JOIN administrative_decisions d ON d.id = a.decision_id "
               "LEFT JOIN wrecks w ON w.id = d.wreck_id LEFT JOIN contracts c ON c.id = d.contract_id WHERE a.id = ?"),
}


def _facts_sql(subject: str) -> str:
    return _PROCESS[subject][1] if subject in _PROCESS else _CASES[subject][2]


def _readable(store: Store, user: Principal, subject: str, facts: dict[str, Any]) -> bool:
    if subject in _PROCESS:
        if not allowed(user, _PROCESS[subject][0]):
            return False
        where, params = request_scope(user, "d")
        return bool(store.scalar(f"SELECT count(*) FROM administrative_decisions d WHERE d.id = ? AND {where}",
                                 [facts["decision_id"], *params]))
    permission, scoped, _sql = _CASES[subject]
    if not allowed(user, permission):
        return False
    if not scoped:
        return True
    where, params = contract_scope(user, "c")
    return bool(store.scalar(f"SELECT count(*) FROM contracts c WHERE c.id = ? AND {where}",
                             [facts["contract_id"], *params]))


def find_case(store: Store, user: Principal, text: str | None) -> dict[str, Any]:
    """The case of a NUP typed with or without punctuation: nup, subject, subject_label, subject_id, office_code,
    office_name, wreck_code, wreck_name, contract_code, act_on, party. InputError (naming the field) for a
    malformed NUP or a wrong check digit; NotFound when no record the user may read has it."""
    require(user, "find_by_nup")
    number = nup.parse(text, field=FIELD)
    missing = NotFound(f"Nenhum processo com o NUP {number}.", what="nup", key=str(number))
    row = store.fetch_one("SELECT p.subject, p.subject_id, p.office_code, f.name AS office_name FROM process_numbers p "
                          "LEFT JOIN offices f ON f.code = p.office_code WHERE p.nup = ?", [number.digits])
    if row is None or (row["subject"] not in _CASES and row["subject"] not in _PROCESS):
        raise missing
    facts = store.fetch_one(_facts_sql(row["subject"]), [row["subject_id"]])
    if facts is None or not _readable(store, user, row["subject"], facts):
        raise missing
    return {"nup": str(number), "subject": row["subject"], "subject_label": SUBJECTS[row["subject"]].label,
            "subject_id": int(row["subject_id"]), "office_code": row["office_code"], "office_name": row["office_name"],
            **{k: v for k, v in facts.items() if k not in ("contract_id", "decision_id")}}
