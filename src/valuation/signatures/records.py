"""Signed uploads of issued documents, stored and audited (issue 27 §2; table document_signatures, migration 067).

    record_signed_upload(store, user, code, data)   verify the file (verify.verify_signed) and record it
    record_refusal(store, user, table, record_id, data, reason, code=…)
                                                    an upload refused before any of its signatures was recorded (no
                                                    act of the record, too large, a conflict, a sender refused:
                                                    table signed_upload_refusals, migration 079)
    signature_status(store, code)                   'assinado por N de M' and who is missing, or None

The registered bytes are not kept for every kind of document (an act issued before migration 078), but
the registry keeps their sha256 and size: a signed file starts with them, so they are the file's first
`size` bytes when those hash to the registered sha256 — otherwise the file is not the registered
document. Each upload is verified against the previous accepted signed revision (the last valid upload
of the document, read back from the content-addressed file store) or, for the first, the registered
bytes; every upload, valid or refused, is recorded (one row per new signature) and audited; the file of a
valid upload is stored content-addressed (db/blobs.py, as attachments are), a refused one is not.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from valuation.authenticity.codes import grouped, parse_code
from valuation.core import clock
from valuation.core.errors import AccessDenied, ConflictError, InputError, NotFound, Problem
from valuation.db.access import Principal, require
from valuation.db.blobs import BlobStore
from valuation.db.store import Store, Tx
from valuation.signatures.cpf import masked
from valuation.signatures.required import Person, Progress, RequiredSigner, progress, required_signers
from valuation.signatures.trust import Trust, load_trust, trust_dir
from valuation.signatures.verify import FILE_REASONS, NOT_REGISTERED, SignatureCheck, Verification, verify_signed

MAX_REASON = 2000
NOT_FOUND = "Documento não encontrado: confira o código de verificação."
NOT_A_SIGNER = ("Só quem deve assinar este documento pode enviar a versão assinada: envie-o a quem o assina, ou "
                "confira se o código é o do documento que você assina.")
NO_NEW_SIGNATURE = ("o arquivo não traz assinatura nova: é uma versão assinada já registrada (baixe a mais recente, "
                    "assine-a e envie o arquivo assinado)")
ALREADY_SIGNED = ("quem fez esta assinatura já assinou este documento: ela não acrescenta nada, e a versão assinada "
                  "registrada continua a ser a anterior")


@dataclass(frozen=True)
class UploadResult:
    upload_id: int
    verification: Verification
    accepted: tuple[SignatureCheck, ...]         # the new signatures recorded as valid
    refused: tuple[SignatureCheck, ...]          # the new signatures recorded as refused
    progress: Progress

    @property
    def valid(self) -> bool:
        return bool(self.accepted) and not self.refused


def _document(db: Store | Tx, code: object) -> dict[str, Any]:
    parsed = parse_code(code)
    row = None if parsed is None else db.fetch_one(
        "SELECT id, code, kind, record_table, record_id, issued_at, sha256, size, issued_by FROM issued_documents "
        "WHERE code = ?", [parsed])
    if row is None:
        raise NotFound(NOT_FOUND)
    return row


def _people(db: Store | Tx, where: str, params: list[Any]) -> list[Person]:
    rows = db.fetch(f"SELECT id, full_name, cpf FROM users WHERE {where} ORDER BY full_name, id", params)
    return [Person(int(r["id"]), str(r["full_name"]), r["cpf"]) for r in rows]


def required_for(db: Store | Tx, doc: Mapping[str, Any]) -> tuple[RequiredSigner, ...]:
    """The required signers of an issued document (`required.required_signers` on the store's facts): a round's
    president and the members with assessments in it (as the minutes' signature lines); the issuing authority."""
    if doc["kind"] == "minutes" and doc["record_table"] == "assessment_rounds" and doc["record_id"] is not None:
        rid = int(doc["record_id"])
        president = _people(db, "id = (SELECT president_id FROM assessment_rounds WHERE id = ?)", [rid])
        members = _people(db, "id IN (SELECT DISTINCT member_id FROM assessment_log WHERE round_id = ?)", [rid])
        return required_signers("minutes", president=president[0] if president else None, members=members)
    authority = _people(db, "username = ?", [doc["issued_by"]])
    return required_signers(doc["kind"], authority=authority[0] if authority else None)


def _signed_user_ids(db: Store | Tx, document_id: int) -> list[int]:
    rows = db.fetch("SELECT DISTINCT signer_user_id FROM document_signatures WHERE document_id = ? "
                    "AND outcome = 'valid' AND signer_user_id IS NOT NULL", [document_id])
    return [int(r["signer_user_id"]) for r in rows]


def signature_status(store: Store, code: object) -> Progress | None:
    """How far the signing of the document with `code` has gone; None for an unknown or malformed code."""
    try:
        doc = _document(store, code)
    except NotFound:
        return None
    return progress(required_for(store, doc), _signed_user_ids(store, int(doc["id"])))


def _previous(db: Store | Tx, document_id: int) -> tuple[int | None, str | None]:
    row = db.fetch_one("SELECT upload_id, file_sha256 FROM document_signatures WHERE document_id = ? AND "
                       "outcome = 'valid' ORDER BY upload_id DESC LIMIT 1", [document_id])
    return (None, None) if row is None else (int(row["upload_id"]), str(row["file_sha256"]))


def _verify(store: Store, doc: Mapping[str, Any], data: bytes, required: tuple[RequiredSigner, ...],
            trust: Trust, at: datetime, institutional: bytes | None = None) -> tuple[Verification, int, int | None]:
    """The verification of `data`, the length of what it was verified against, and the id of the last valid
    upload it was read against — also for a file that is not the registered document (issue 45, item 8: it
    was None there, so once the act had a valid signature the write's check took the refusal for a conflict
    with an upload made meanwhile, and nothing was recorded)."""
    size = int(doc["size"])
    previous_upload, previous_sha = _previous(store, int(doc["id"]))
    if len(data) < size or hashlib.sha256(data[:size]).hexdigest() != doc["sha256"]:
        return Verification((NOT_REGISTERED,)), size, previous_upload
    previous = None if previous_sha is None else BlobStore.for_database(store.path).read(previous_sha)
    verification = verify_signed(data, registered=data[:size], expected_cpfs={r.cpf for r in required if r.cpf},
                                 trust=trust, at=at, previous=previous, issued_at=clock.aware(doc["issued_at"]),
                                 institutional=() if institutional is None else (institutional,))
    return verification, len(previous) if previous is not None else size, previous_upload


def _outcomes(v: Verification, base_len: int) -> tuple[list[SignatureCheck], list[SignatureCheck]]:
    """(valid, refused) among the new signatures (those past `base_len`). A new one is valid when the file has no
    problem, it has none, and no earlier signature reports a change of the file after it."""
    new = [s for s in v.signatures if s.revision_end > base_len]
    broken = tuple(f"a assinatura já registrada de {s.signer_name or 'titular não identificado'} não vale neste "
                   f"arquivo: {r}" for s in v.signatures if s.revision_end <= base_len
                   for r in s.reasons if r in FILE_REASONS)
    if broken:      # the earlier signature's complaint is this upload's refusal
        new = [replace(s, reasons=(*s.reasons, *broken)) for s in new]
    valid = [s for s in new if s.valid and not v.problems]
    return valid, [s for s in new if s not in valid]


def _repeats(valid: list[SignatureCheck], refused: list[SignatureCheck], signed: list[int],
             signer_of: Any) -> tuple[list[SignatureCheck], list[SignatureCheck]]:
    """Issue 43, item 10: a new signature of someone who has signed already (before, or earlier in the same file)
    adds nothing: refused with `ALREADY_SIGNED`, so the file does not become the version others must sign on."""
    seen = set(signed)
    kept: list[SignatureCheck] = []
    for check in valid:
        who = signer_of(check)
        if who is not None and who in seen:
            refused = [*refused, replace(check, reasons=(ALREADY_SIGNED,))]
        else:
            kept.append(check)
            if who is not None:
                seen.add(who)
    return kept, refused


def record_signed_upload(store: Store, user: Principal, code: object, data: object, *, trust: Trust | None = None,
                         at: datetime | None = None, institutional: bytes | None = None) -> UploadResult:
    """Verify a signed PDF of the issued document `code` and record it (see the module); refusals are recorded
    too and come back in the result with their pt-BR reasons (never raised), an unknown code is NotFound. Only
    a user who must sign the document may send it (issue 45, item 9: anyone with the permission added permanent
    refused rows to any act and read its signers' CPFs back); anyone else is AccessDenied, nothing written.

    `institutional`: the DER certificate of the service's own A1 (`signatures.issuing`, never a person's upload): a
    signature made with it is the issuing authority's signature of an act that one authority signs (a statement, a
    removal order), whatever CPF the certificate names."""
    require(user, "upload_signed_document")
    if not isinstance(data, bytes | bytearray | memoryview):
        raise InputError(Problem("arquivo", "Envie o PDF assinado."))
    payload = bytes(data)
    doc = _document(store, code)
    required = required_for(store, doc)
    if not required:
        raise ConflictError("Este documento não exige assinatura eletrônica.")
    if not any(r.user_id == user.id for r in required):   # issue 45, item 9: nothing verified, nothing recorded
        raise AccessDenied(NOT_A_SIGNER, user=user.username, action="upload_signed_document")
    moment = clock.aware(at) or clock.now_utc()
    trust = trust or load_trust(trust_dir(db_path=store.path))
    v, base_len, previous_upload = _verify(store, doc, payload, required, trust, moment, institutional)
    valid, refused = _outcomes(v, base_len)
    by_cpf = {r.cpf: r.user_id for r in required if r.cpf}
    authority = required[0].user_id if institutional is not None and len(required) == 1 else None
    valid, refused = _repeats(valid, refused, _signed_user_ids(store, int(doc["id"])),
                              lambda c: authority if c.institutional and authority is not None
                              else by_cpf.get(c.signer_cpf or ""))
    blobs = BlobStore.for_database(store.path)
    with blobs.staging() as staging:
        sha = staging.put(payload) if valid else hashlib.sha256(payload).hexdigest()

        def write(tx: Tx) -> int:
            if _previous(tx, int(doc["id"]))[0] != previous_upload:
                raise ConflictError("Outra versão assinada deste documento foi registrada enquanto este arquivo era "
                                    "conferido: baixe a versão mais recente e envie de novo.")
            upload_id = int(tx.scalar("SELECT nextval('seq_signature_uploads')"))
            rows = [(s, "valid") for s in valid] + [(s, "refused") for s in refused]
            entries: list[tuple[SignatureCheck | None, str]] = [*rows] or [(None, "refused")]
            for check, outcome in entries:
                _insert(tx, doc, upload_id, check, outcome, v, by_cpf, sha, len(payload), user.username, moment,
                        authority)
            tx.audit("document_signed_institutionally" if institutional is not None else "signed_upload_verified",
                     "issued_document", int(doc["id"]), None,
                     {"code": grouped(doc["code"]),
                      "verification": "aceita" if valid and not refused else "recusada",
                      "signed_by": [f"assinatura {s.index}: CPF {masked(s.signer_cpf)} "
                                    f"({'válida' if o == 'valid' else 'recusada'})" for s, o in rows],
                      "reasons": list(v.reasons)[:20], "sha256": sha})
            if valid:
                staging.publish()
            return upload_id

        upload_id = store.write(user.username, write)
    return UploadResult(upload_id, v, tuple(valid), tuple(refused),
                        progress(required, _signed_user_ids(store, int(doc["id"]))))


def _insert(tx: Tx, doc: Mapping[str, Any], upload_id: int, check: SignatureCheck | None, outcome: str,
            v: Verification, by_cpf: Mapping[str, int], sha: str, size: int, actor: str, at: datetime,
            authority: int | None = None) -> None:
    own = () if check is None else check.reasons
    reasons = "; ".join((*v.problems, *own))[:MAX_REASON] or (NO_NEW_SIGNATURE if check is None else None)
    cpf = None if check is None or not check.signer_cpf or len(check.signer_cpf) != 11 else check.signer_cpf
    signer = authority if check is not None and check.institutional and authority is not None \
        else by_cpf.get(cpf or "")
    tx.execute("INSERT INTO document_signatures (document_id, code, upload_id, revision, signer_cpf, signer_name, "
               "signer_user_id, signed_at, outcome, reason, file_sha256, file_size, revision_end, uploaded_by, "
               "uploaded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
               [int(doc["id"]), doc["code"], upload_id, 0 if check is None else check.index, cpf,
                None if check is None else check.signer_name[:200], signer,
                None if check is None or check.signed_at is None else clock.stored(check.signed_at),
                outcome, None if outcome == "valid" else reasons, sha, size,
                size if check is None else check.revision_end, actor, clock.stored(at)])


RECORD_TABLES = ("assessment_rounds", "statements", "removal_orders")    # the records whose acts are signed


def record_refusal(store: Store, user: Principal, table: str, record_id: int, data: bytes, reason: str, *,
                   code: object = None) -> int:
    """Record (and audit) an upload of a signed file for the record (`table`, `record_id`) refused before any of its
    signatures was recorded (issue 43, item 4): the file is none of the record's issued acts, it is too large,
    another signed version was registered while it was being checked, the sender may not upload it. Every refusal
    that `record_signed_upload` does not record itself goes here, so every upload leaves a row. `code`: the act the
    file was taken for, when there was one. No right is asked (a refused sender's attempt is recorded too); the file
    is never stored, only its sha256 and size. Returns the row's id."""
    if table not in RECORD_TABLES or not isinstance(record_id, int) or isinstance(record_id, bool):
        raise InputError(Problem("registro", "Registro inválido para o envio de documento assinado."))
    payload = bytes(data) if isinstance(data, bytes | bytearray | memoryview) else b""
    parsed = parse_code(code) if code is not None else None
    doc = None if parsed is None else store.fetch_one("SELECT id FROM issued_documents WHERE code = ?", [parsed])
    sha = hashlib.sha256(payload).hexdigest()
    text = str(reason)[:MAX_REASON] or "envio recusado"

    def write(tx: Tx) -> int:
        new_id = int(tx.scalar(
            "INSERT INTO signed_upload_refusals (record_table, record_id, document_id, code, reason, file_sha256, "
            "file_size, uploaded_by, uploaded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [table, record_id, None if doc is None else int(doc["id"]), None if doc is None else parsed, text, sha,
             len(payload), user.username, clock.stored(clock.now_utc())]))
        tx.audit("signed_upload_refused", "signed_upload_refusal", new_id, None,
                 {"record": f"{table} {record_id}", "code": None if doc is None else grouped(str(parsed)),
                  "reasons": [text], "sha256": sha})
        return new_id

    return int(store.write(user.username, write))
