"""One process, many documents (issue 42 item 2; decision: docs/decisions/145-one-process.md).

A case is one process: the record that opened it (a request, a removal order, a Commission round, an issued
statement, or an Authority decision with no record of its own) and its NUP (`valuation.process.numbers`); every later
act of the case — a filing, an intimation, the decision, an appeal — is a document of that process, numbered within
it in the order it was recorded (`process_documents`, migration 085), and carries the process's NUP rather than one
of its own (Portaria Interministerial MJSP/ME nº 11/2019: the NUP identifies the process, its documents are
numbered in it).

    add(tx, process, subject, subject_id)     the act as the next document of `process`, in the act's write
    document_missing(tx)                      file every act recorded as a plain row (the demo's) in its process
    decision_process(subject, record_id, id)  the process an Authority decision (and its appeals) belongs to
    documents(db, process)                    the documents of a process in order, each named for a reader
    process_of(db, subject, subject_id)       the process a document belongs to (None: not a document of any)

Pure of pages; the reads here do not check rights: `valuation.process.cases` reads a case for a user.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core import clock

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

Process = tuple[str, int]     # (process subject — a key of numbers.SUBJECTS —, its record's id)


@dataclass(frozen=True)
class Kind:
    label: str        # pt-BR: what the document is
    sql: str          # (id, day, what) of the records `list_contains(?, id)`: the day of the act and what it says


KINDS: dict[str, Kind] = {
    "request": Kind("Requerimento", "SELECT q.id, q.filed_on AS day, q.matter AS what FROM requests q "
                                    "WHERE list_contains(?, q.id)"),
    "filing": Kind("Protocolo", "SELECT f.id, f.received_on AS day, f.subject AS what FROM filings f "
                                "WHERE list_contains(?, f.id)"),
    "intimation": Kind("Intimação", "SELECT i.id, i.issued_on AS day, i.text AS what FROM intimations i "
                                    "WHERE list_contains(?, i.id)"),
    "administrative_decision": Kind("Decisão", "SELECT d.id, d.decided_on AS day, d.summary AS what "
                                               "FROM administrative_decisions d WHERE list_contains(?, d.id)"),
    "appeal": Kind("Recurso", "SELECT a.id, a.filed_on AS day, a.instance || 'º recurso — ' || a.appellant AS what "
                              "FROM appeals a WHERE list_contains(?, a.id)"),
    "removal_order": Kind("Determinação de remoção ou demolição",
                          "SELECT r.id, r.ordered_on AS day, r.act AS what FROM removal_orders r "
                          "WHERE list_contains(?, r.id)"),
    "round": Kind("Ata da rodada da Comissão",
                  "SELECT r.id, " + clock.day_sql("r.decided_at") + " AS day, 'Rodada ' || r.number AS what "
                  "FROM assessment_rounds r WHERE list_contains(?, r.id)"),
    "statement": Kind("Demonstrativo de partilha",
                      "SELECT s.id, " + clock.day_sql("s.created_at") + " AS day, "
                      "s.number || ' v' || s.version AS what FROM statements s WHERE list_contains(?, s.id)"),
}


def decision_process(subject: str | None, record_id: int | None, decision_id: int) -> Process:
    """The process an Authority decision is a document of: its record's — `subject`, the decided record's NUP subject
    (`appeal_records.KINDS[kind].nup_subject`: a request, removal order, round or statement) —, else the decision's
    own (it opened the case)."""
    if subject is not None and record_id is not None:
        return (subject, int(record_id))
    return ("administrative_decision", int(decision_id))


def add(tx: Tx, process: Process, subject: str, subject_id: int, *, opens: bool = False) -> int:
    """Record `subject` #`subject_id` as the next document of `process`, in the write that records the act; its
    number. The process's own record is its first document (added here before the first other one, for a process
    opened before this table or by a record written elsewhere), unless this document is the one that opened it
    (`opens`: a request filed in the system is its filing). A document recorded already keeps its number."""
    if subject not in KINDS:
        raise ValueError(f"not a document kind: {subject!r}")
    held = tx.scalar("SELECT document_no FROM process_documents WHERE subject = ? AND subject_id = ?",
                     [subject, subject_id])
    if held is not None:
        return int(held)
    kind, pid = process
    if not opens and (subject, int(subject_id)) != (kind, pid) and kind in KINDS and not tx.scalar(
            "SELECT count(*) FROM process_documents WHERE process_subject = ? AND process_id = ?", [kind, pid]):
        add(tx, process, kind, pid)
    number = int(tx.scalar("SELECT coalesce(max(document_no), 0) + 1 FROM process_documents "
                           "WHERE process_subject = ? AND process_id = ?", [kind, pid]))
    tx.execute("INSERT INTO process_documents (process_subject, process_id, document_no, subject, subject_id, "
               "recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
               [kind, pid, number, subject, int(subject_id), tx.actor, tx.store.now()])
    return number


def process_of(db: Store | Tx, subject: str, subject_id: int) -> Process | None:
    row = db.fetch_one("SELECT process_subject, process_id FROM process_documents WHERE subject = ? AND subject_id = ?",
                       [subject, int(subject_id)])
    return None if row is None else (str(row["process_subject"]), int(row["process_id"]))


def numbers_of(db: Store | Tx, subject: str, ids: list[int]) -> dict[int, int]:
    """{record id: its document number in its process} of the `subject` records among `ids` that are documents."""
    if not ids:
        return {}
    return {int(r["subject_id"]): int(r["document_no"]) for r in db.fetch(
        "SELECT subject_id, document_no FROM process_documents WHERE subject = ? AND list_contains(?, subject_id)",
        [subject, [int(i) for i in ids]])}


def documents(db: Store | Tx, process: Process) -> list[dict[str, Any]]:
    """The documents of `process` in their order: document_no, subject, subject_id, kind_pt, day (of the act),
    what (what it says, as its author wrote it: shown as text, never Markdown; a request's: its matter's key),
    recorded_at."""
    rows = db.fetch("SELECT document_no, subject, subject_id, recorded_at FROM process_documents "
                    "WHERE process_subject = ? AND process_id = ? ORDER BY document_no", [process[0], process[1]])
    facts: dict[tuple[str, int], Mapping[str, Any]] = {}
    for subject in {str(r["subject"]) for r in rows}:
        ids = [int(r["subject_id"]) for r in rows if r["subject"] == subject]
        facts.update({(subject, int(f["id"])): f for f in db.fetch(KINDS[subject].sql, [ids])})
    out = []
    for r in rows:
        f = facts.get((str(r["subject"]), int(r["subject_id"])), {})
        day: date | None = f.get("day")
        out.append({"document_no": int(r["document_no"]), "subject": r["subject"], "subject_id": int(r["subject_id"]),
                    "kind_pt": KINDS[str(r["subject"])].label, "day": day, "what": f.get("what"),
                    "recorded_at": r["recorded_at"]})
    return out


# every act and the process it belongs to (the rules of `add` and `decision_process` over the tables; the decisions with
# a process of their record's are those of appeal_records.KINDS with a `nup_subject`): process_subject,
# process_id, rank (0: the record that opened it), subject, subject_id, recorded_at
_ACTS = """
WITH decision_process AS (
    SELECT d.id, CASE WHEN d.kind IN ('request', 'removal_order', 'round', 'statement') AND d.record_id IS NOT NULL
                      THEN d.kind ELSE 'administrative_decision' END AS process_subject,
           CASE WHEN d.kind IN ('request', 'removal_order', 'round', 'statement') AND d.record_id IS NOT NULL
                THEN d.record_id ELSE d.id END AS process_id, d.recorded_at
    FROM administrative_decisions d
)
SELECT 'request' AS process_subject, q.id AS process_id, 0 AS rank, 'request' AS subject, q.id AS subject_id,
       q.recorded_at FROM requests q
WHERE NOT EXISTS (SELECT 1 FROM filings f WHERE f.request_id = q.id AND f.kind = 'requerimento')
UNION ALL
SELECT DISTINCT ON (process_subject, process_id) process_subject, process_id, 0, process_subject, process_id,
       recorded_at FROM decision_process WHERE process_subject IN ('removal_order', 'round', 'statement')
UNION ALL SELECT 'request', f.request_id, 1, 'filing', f.id, f.filed_at FROM filings f
UNION ALL SELECT 'request', i.request_id, 1, 'intimation', i.id, i.issued_at FROM intimations i
UNION ALL SELECT p.process_subject, p.process_id, 1, 'administrative_decision', p.id, p.recorded_at
          FROM decision_process p
UNION ALL SELECT p.process_subject, p.process_id, 1, 'appeal', a.id, a.recorded_at FROM appeals a
          JOIN decision_process p ON p.id = a.decision_id
"""


def document_missing(tx: Tx) -> int:
    """File every act that is not yet a document of its process (written as a plain row: the demo's bulk load), after
    the documents each process has, in the order the acts were recorded; how many."""
    rows = tx.fetch(f"""
        INSERT INTO process_documents (process_subject, process_id, document_no, subject, subject_id, recorded_by,
                                       recorded_at)
        WITH acts AS ({_ACTS}), missing AS (
            SELECT a.* FROM acts a WHERE NOT EXISTS (SELECT 1 FROM process_documents d WHERE d.subject = a.subject
                                                     AND d.subject_id = a.subject_id)
        ), tops AS (
            SELECT process_subject, process_id, max(document_no) AS top FROM process_documents GROUP BY ALL
        )
        SELECT m.process_subject, m.process_id, coalesce(t.top, 0) + row_number() OVER (
                   PARTITION BY m.process_subject, m.process_id ORDER BY m.rank, m.recorded_at, m.subject,
                   m.subject_id), m.subject, m.subject_id, ?, ?
        FROM missing m LEFT JOIN tops t USING (process_subject, process_id)
        RETURNING id""", [tx.actor, tx.store.now()])
    if rows:
        tx.audit("process_documents_filed", "process_documents", None, None, {"rows": len(rows)})
    return len(rows)
