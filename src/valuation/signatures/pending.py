"""A missing signature is a deadline (issue 27 §2): each issued act whose required signatures are not all in, in
the row shape of `proceedings.requests.authority_deadlines` (Prazos "O que a Autoridade deve", the digest, the feed),
plus `act` ('ata-rodada-3', 'demonstrativo-12'): the record, which names the feed's event.

    signature_due(issued_on, cal, days)              pure: `days` (policy `signature_days`, default 5) after the issue
    deadline_rows(store, user, as_of=…, office=…)    the open rows, by due date

The period: Lei 9.784/1999 art. 24 (an act with no specific period: 5 days), counted as every period of the
process (art. 66: from the day after the issue, moved forward to a full business day of the office), the value
in force on the day of the issue (a dated policy). The minutes are issued anew when what they say changes:
the period of a record's act runs from its *first* issue (a new issue does not restart it) and
the signatures counted are those of the record's best-signed issue (the one the signers are signing on).
Owed by the Authority (its officers and the Commission's members are the Administration's). Who may not sign
acts (an explorer) gets no row.
"""
from __future__ import annotations

from datetime import date
from typing import Any

from valuation.authenticity.registry import record_nup
from valuation.core import clock, law
from valuation.core.calendar import BusinessCalendar
from valuation.db.access import Principal, allowed
from valuation.db.store import Store
from valuation.deadlines.calendars import office_calendars
from valuation.deadlines.counting import Deadline, days_after
from valuation.deadlines.params import reference
from valuation.deadlines.rules import open_standing
from valuation.policies.values import timelines, values_in_force
from valuation.signatures.records import required_for
from valuation.signatures.required import SIGNED_KINDS, Progress, progress

RULE = "act_signature"
LABEL = "Assinatura eletrônica do ato"
AUTHORITY = "authority"
OWED_BY_PT = "Autoridade Naval"
_CASE = {"minutes": "ata da rodada nº {n}", "statement": "demonstrativo {n}", "removal_order": "determinação nº {n}"}
_UID = {"assessment_rounds": "ata-rodada", "statements": "demonstrativo", "removal_orders": "determinacao"}
_MATTER = {"minutes": "Ata da Comissão de Avaliação", "statement": "Demonstrativo de partilha",
           "removal_order": "Determinação de remoção ou demolição"}
# office, wreck, organisation and a number for the case, per record table (the act's contract or wreck)
_FACTS = {
    "assessment_rounds": "SELECT c.office_code, w.name AS wreck, o.name AS organisation, r.number AS n FROM "
                         "assessment_rounds r JOIN contracts c ON c.id = r.contract_id JOIN wrecks w ON "
                         "w.id = c.wreck_id JOIN organisations o ON o.id = c.organisation_id WHERE r.id = ?",
    "statements": "SELECT c.office_code, w.name AS wreck, o.name AS organisation, "
                  "CAST(s.number AS VARCHAR) || '/v' || CAST(s.version AS VARCHAR) AS n FROM statements s "
                  "JOIN contracts c ON c.id = s.contract_id JOIN wrecks w ON w.id = c.wreck_id "
                  "JOIN organisations o ON o.id = c.organisation_id WHERE s.id = ?",
    "removal_orders": "SELECT w.office_code, w.name AS wreck, NULL AS organisation, x.id AS n FROM removal_orders x "
                      "JOIN wrecks w ON w.id = x.wreck_id WHERE x.id = ?",
}


def signature_due(issued_on: date, cal: BusinessCalendar, days: law.LegalValue[int]) -> Deadline:
    """The day by which every required signer signs an act issued on `issued_on`: `days` (law: 5) calendar days
    after it, moved forward to a business day (Lei 9.784/1999 arts. 24 and 66)."""
    return days_after(RULE, issued_on, int(days.value), cal, reference(days), "emissão do documento")


def _records(store: Store, as_of: date) -> list[dict[str, Any]]:
    kinds = list(SIGNED_KINDS)
    _, until = clock.utc_bounds(None, as_of)   # issued on or before `as_of` in Brasília, not in UTC
    return store.fetch(
        "SELECT id, code, kind, record_table, record_id, issued_at, sha256, size, issued_by, nup FROM issued_documents "
        "WHERE kind IN (SELECT UNNEST(?)) AND record_id IS NOT NULL AND issued_at < ? "
        "ORDER BY record_table, record_id, id", [kinds, until])


def _progress_of(store: Store, docs: list[dict[str, Any]]) -> tuple[dict[str, Any], Progress]:
    """The record's best-signed issue and its progress (the latest among equals)."""
    ids = [int(d["id"]) for d in docs]
    signed: dict[int, set[int]] = {}
    for r in store.fetch("SELECT document_id, signer_user_id FROM document_signatures WHERE outcome = 'valid' AND "
                         "signer_user_id IS NOT NULL AND document_id IN (SELECT UNNEST(?))", [ids]):
        signed.setdefault(int(r["document_id"]), set()).add(int(r["signer_user_id"]))
    best = max(docs, key=lambda d: (len(signed.get(int(d["id"]), ())), int(d["id"])))
    return best, progress(required_for(store, best), signed.get(int(best["id"]), set()))


def deadline_rows(store: Store, user: Principal, *, as_of: date, office: str | None = None,
                  owed_by: str | None = AUTHORITY) -> list[dict[str, Any]]:
    """The acts still missing a required signature on `as_of`, one row each (see the module), by due date."""
    if owed_by not in (None, AUTHORITY) or not allowed(user, "upload_signed_document") \
            or not store.has_table("document_signatures"):
        return []
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for d in _records(store, as_of):
        groups.setdefault((str(d["record_table"]), int(d["record_id"])), []).append(d)
    found = {key: store.fetch_one(_FACTS[key[0]], [key[1]]) for key in groups if key[0] in _FACTS}
    facts: dict[tuple[str, int], dict[str, Any]] = {
        k: v for k, v in found.items() if v is not None and office in (None, v["office_code"])}
    cals = office_calendars(store, sorted({f["office_code"] for f in facts.values()}), on=as_of)
    soon = int(values_in_force(store, ("due_soon_days",), as_of=as_of)["due_soon_days"])
    line = timelines(store, ("signature_days",))["signature_days"]
    out = []
    for key, f in facts.items():
        docs = groups[key]
        best, prog = _progress_of(store, docs)
        if not prog.required or prog.complete:
            continue
        issued_on = clock.brasilia(docs[0]["issued_at"]).date()
        deadline = signature_due(issued_on, cals[f["office_code"]], line.at(issued_on).legal())
        due = deadline.due
        if due is None:
            continue
        kind = str(best["kind"])
        steps = (*deadline.steps, f"Situação: {prog.text}; {prog.missing_text}")
        out.append({"request_id": None, "appeal_id": None, "decision_id": None, "act": f"{_UID[key[0]]}-{key[1]}",
                    "case_pt": f"{_CASE[kind].format(n=f['n'])} (código {best['code'][:5]}-{best['code'][5:]})",
                    "nup": best["nup"] or record_nup(store, key[0], key[1]), "office_code": f["office_code"],
                    "wreck": f["wreck"],
                    "matter_pt": _MATTER[kind], "organisation": f["organisation"], "rule": RULE,
                    "label": f"{LABEL} ({prog.text})", "owed_by": AUTHORITY, "owed_by_pt": OWED_BY_PT,
                    **open_standing(due, as_of, due_soon_days=soon), "basis": deadline.basis, "steps": steps})
    out.sort(key=lambda row: (row["due"], row["case_pt"]))
    return out
