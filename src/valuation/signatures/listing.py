"""What the pages show of an issued act's signatures (issue 27 §2), read with the user's rights.

    documents_of(store, user, table, record_id)   the record's issued acts that need signatures, latest first:
                                                  code, issue, 'assinado por N de M', who is missing, each upload
    matching_code(store, user, table, record_id, data)   the code of the record's issued act `data` starts with
    latest_signed(store, user, table, record_id, code)   the last accepted signed revision (to sign on top of it)
    current_copy(store, user, table, record_id, data)   what a download serves: that revision, else `data`
    refusals_of(store, user, table, record_id)   the uploads refused before any signature was recorded (issue 43)

Who may read them is who may read the act: a round's minutes, whoever may make the minutes (the Commission and
DPC, `make_minutes`); a statement, whoever may read it (`read_statements`; an explorer only its own
organisation's, `access.organisation_cleared`). A record the user may not read answers as one without acts.
The minutes are issued once and served from their kept copy until what they say changes (a decision recorded,
the round published: `authenticity.registry.issue_once`), so a round may have several issued minutes: the page
shows the latest and every one that has received a signed upload.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from valuation.authenticity.codes import grouped
from valuation.core import clock
from valuation.core.statuses import STATEMENT_ISSUED
from valuation.db import access
from valuation.db.access import Principal
from valuation.db.blobs import BlobStore
from valuation.db.store import Store
from valuation.signatures.cpf import masked
from valuation.signatures.records import required_for
from valuation.signatures.required import SIGNED_KINDS, Progress, progress

MAX_DOCUMENTS = 10                 # acts of one record shown (the latest, then the signed ones)
MAX_ROWS = 200                     # signature rows per act shown
OUTCOME_LABELS = {"valid": "válida", "refused": "recusada"}
NO_SIGNATURE_IN_FILE = "nenhuma assinatura no arquivo"
_KIND_OF = {"assessment_rounds": "minutes", "statements": "statement", "removal_orders": "removal_order"}


@dataclass(frozen=True)
class UploadRow:
    """One upload of a signed file of the act, in words (issue 43, item 9: one line per upload, never a signature's
    number in the file)."""
    uploaded_at: datetime
    uploaded_by: str                # the sender's name (their username if the account is gone)
    outcome: str                    # 'aceita' (it brought a valid signature) / 'recusada'
    signatures: str                 # the new signatures: 'NOME (CPF ***.982.247-**) — válida; …', or none
    reason: str                     # the refusal's reasons, one per line, each once ('' when accepted)


@dataclass(frozen=True)
class SignedAct:
    code: str                       # as printed, 'XXXXX-XXXXX'
    kind: str
    issued_at: datetime
    progress: Progress
    rows: tuple[UploadRow, ...]     # one per upload, in the order sent
    has_signed_file: bool           # an accepted signed revision is stored


def _readable(store: Store, user: Principal, table: str, record_id: int) -> bool:
    if table == "assessment_rounds":
        return access.allowed(user, "make_minutes")
    if table == "statements":
        if not access.allowed(user, "read_statements"):
            return False
        row = store.fetch_one("SELECT s.status, c.organisation_id, c.office_code FROM statements s JOIN contracts c ON "
                              "c.id = s.contract_id WHERE s.id = ?", [record_id])
        return row is not None and row["status"] == STATEMENT_ISSUED and access.organisation_cleared(
            user, row["organisation_id"], row["office_code"])
    if table == "removal_orders":
        return access.allowed(user, "read_removal_orders")
    return False


def _documents(store: Store, user: Principal, table: str, record_id: object) -> list[dict[str, Any]]:
    if table not in _KIND_OF or not isinstance(record_id, int) or isinstance(record_id, bool) \
            or not _readable(store, user, table, record_id):
        return []
    return store.fetch(
        "SELECT d.id, d.code, d.kind, d.record_table, d.record_id, d.issued_at, d.sha256, d.size, d.issued_by "
        "FROM issued_documents d WHERE d.record_table = ? AND d.record_id = ? AND d.kind = ? AND (d.id = "
        "(SELECT max(id) FROM issued_documents WHERE record_table = ? AND record_id = ? AND kind = ?) OR EXISTS "
        "(SELECT 1 FROM document_signatures s WHERE s.document_id = d.id)) ORDER BY d.id DESC LIMIT ?",
        [table, record_id, _KIND_OF[table], table, record_id, _KIND_OF[table], MAX_DOCUMENTS])


def _upload_row(rows: list[dict[str, Any]]) -> UploadRow:
    """The rows of one upload (one per new signature, or one of revision 0) as one line: a reason every refused
    signature shares is the file's, said once; another is said under its signer's name."""
    first = rows[0]
    signed = [r for r in rows if int(r["revision"]) > 0]
    names = "; ".join(f"{r['signer_name'] or 'titular não identificado'}"
                      + (f" (CPF {masked(r['signer_cpf'])})" if r["signer_cpf"] else "")
                      + f" — {OUTCOME_LABELS.get(r['outcome'], r['outcome'])}" for r in signed)
    refused = [r for r in rows if r["outcome"] == "refused"]
    split = [[x for x in str(r["reason"] or "").split("; ") if x] for r in refused]
    shared = [x for x in dict.fromkeys(x for reasons in split for x in reasons) if all(x in rs for rs in split)]
    lines = list(shared)
    for r, reasons in zip(refused, split):
        lines += [f"a assinatura de {r['signer_name'] or 'titular não identificado'}: {x}" for x in reasons
                  if x not in shared]
    return UploadRow(clock.aware(first["uploaded_at"]) or clock.now_utc(), str(first["uploaded_by"]),
                     "aceita" if any(r["outcome"] == "valid" for r in rows) else "recusada",
                     names or NO_SIGNATURE_IN_FILE, "\n".join(dict.fromkeys(lines)))


def documents_of(store: Store, user: Principal, table: str, record_id: object) -> list[SignedAct]:
    """The record's issued acts that need signatures, latest first (see the module); [] when none or unreadable."""
    out = []
    for doc in _documents(store, user, table, record_id):
        required = required_for(store, doc)
        rows = store.fetch("SELECT s.upload_id, s.revision, s.signer_cpf, s.signer_name, s.signer_user_id, "
                           "s.signed_at, s.outcome, s.reason, coalesce(u.full_name, s.uploaded_by) AS uploaded_by, "
                           "s.uploaded_at "
                           "FROM document_signatures s LEFT JOIN users u ON u.username = s.uploaded_by "
                           "WHERE s.document_id = ? ORDER BY s.upload_id, s.revision LIMIT ?", [doc["id"], MAX_ROWS])
        signed = {int(r["signer_user_id"]) for r in rows if r["outcome"] == "valid" and r["signer_user_id"]}
        uploads: dict[int, list[dict[str, Any]]] = {}
        for r in rows:
            uploads.setdefault(int(r["upload_id"]), []).append(r)
        out.append(SignedAct(grouped(doc["code"]), doc["kind"], clock.aware(doc["issued_at"]) or clock.now_utc(),
                             progress(required, signed), tuple(_upload_row(u) for u in uploads.values()),
                             any(r["outcome"] == "valid" for r in rows)))
    return out


def matching_code(store: Store, user: Principal, table: str, record_id: object, data: bytes) -> str | None:
    """The code (as printed) of the record's issued act whose registered bytes `data` begins with (a signed file
    keeps them as its first revision), or None: the file is none of the record's acts."""
    hashes: dict[int, str] = {}
    for doc in _documents(store, user, table, record_id):
        size = int(doc["size"])
        if len(data) >= size:
            digest = hashes.setdefault(size, hashlib.sha256(data[:size]).hexdigest())
            if digest == doc["sha256"]:
                return grouped(doc["code"])
    return None


def latest_signed(store: Store, user: Principal, table: str, record_id: object, code: str) -> bytes | None:
    """The last accepted signed revision of the record's act `code` (the file the next signer signs), or None."""
    doc = next((d for d in _documents(store, user, table, record_id) if grouped(d["code"]) == code), None)
    if doc is None:
        return None
    sha = store.scalar("SELECT file_sha256 FROM document_signatures WHERE document_id = ? AND outcome = 'valid' "
                       "ORDER BY upload_id DESC LIMIT 1", [doc["id"]])
    return None if sha is None else BlobStore.for_database(store.path).read(str(sha))


@dataclass(frozen=True)
class RefusedUpload:
    """An upload refused before any of its signatures was recorded (issue 43, item 4: `records.record_refusal`)."""
    code: str                       # the act it was taken for, as printed, or '—' (none of the record's acts)
    reason: str
    uploaded_by: str
    uploaded_at: datetime


def refusals_of(store: Store, user: Principal, table: str, record_id: object) -> list[RefusedUpload]:
    """The record's refused uploads (latest first, at most MAX_ROWS); [] when none or the user may not read it."""
    if table not in _KIND_OF or not isinstance(record_id, int) or isinstance(record_id, bool) \
            or not _readable(store, user, table, record_id) or not store.has_table("signed_upload_refusals"):
        return []
    rows = store.fetch("SELECT r.code, r.reason, coalesce(u.full_name, r.uploaded_by) AS uploaded_by, r.uploaded_at "
                       "FROM signed_upload_refusals r LEFT JOIN users u ON u.username = r.uploaded_by "
                       "WHERE r.record_table = ? AND r.record_id = ? ORDER BY r.id DESC LIMIT ?",
                       [table, record_id, MAX_ROWS])
    return [RefusedUpload(grouped(r["code"]) if r["code"] else "—", str(r["reason"]), str(r["uploaded_by"]),
                          clock.aware(r["uploaded_at"]) or clock.now_utc()) for r in rows]


def current_copy(store: Store, user: Principal, table: str, record_id: object, data: bytes) -> bytes:
    """What a download of an issued act serves: its latest accepted signed revision — the act as it now stands, the
    file the next signer signs — else `data` (its registered bytes, as issued)."""
    code = matching_code(store, user, table, record_id, data)
    signed = None if code is None else latest_signed(store, user, table, record_id, code)
    return data if signed is None else signed


__all__ = ["SIGNED_KINDS", "RefusedUpload", "SignedAct", "UploadRow", "current_copy", "documents_of",
           "latest_signed", "matching_code", "refusals_of"]
