"""One upload of a signed file on the page of a record (issue 43, item 4): which act it is, its verification, and
a record of it whatever the outcome.

    outcome = submit(store, user, table, record_id, data)     Submission(accepted, lines): what the sender reads

Every upload leaves a row: the ones whose signatures were verified in `document_signatures`
(`records.record_signed_upload`, accepted or refused), every other refusal in `signed_upload_refusals`
(`records.record_refusal`): a file too large, a file that is none of the record's issued acts ("não é um documento
emitido para este registro": an altered issued part, another document, a re-saved file — the substitution
attempts), and any refusal `record_signed_upload` raises (another signed version registered meanwhile, a sender who
may not upload, an unknown act).
"""
from __future__ import annotations

from dataclasses import dataclass

from valuation.attachments.kinds import MAX_FILE_BYTES, megabytes
from valuation.core.errors import AccessDenied, ConflictError, InputError, NotFound, StoreError
from valuation.db.access import Principal
from valuation.db.store import Store
from valuation.signatures import listing, records
from valuation.signatures.verify import refusal_lines

REFUSALS = (AccessDenied, ConflictError, InputError, NotFound, StoreError)
NOT_THIS = ("O arquivo enviado não é um documento emitido para este registro: baixe o PDF nesta página (ou a "
            "versão assinada mais recente), assine-o sem alterá-lo e envie o arquivo assinado.")


@dataclass(frozen=True)
class Submission:
    accepted: bool
    lines: tuple[str, ...]          # pt-BR, one per line of the answer


def _too_large(size: int) -> str:
    return f"arquivo: o arquivo tem {megabytes(size)}, acima do limite de {megabytes(MAX_FILE_BYTES)}."


def submit(store: Store, user: Principal, table: str, record_id: int, data: bytes) -> Submission:
    """Verify and record one upload for the record (see the module); never raises for a refusal."""
    if len(data) > MAX_FILE_BYTES:
        reason = _too_large(len(data))
        records.record_refusal(store, user, table, record_id, data, reason)
        return Submission(False, (reason,))
    code = listing.matching_code(store, user, table, record_id, data)
    if code is None:
        records.record_refusal(store, user, table, record_id, data, NOT_THIS)
        return Submission(False, (NOT_THIS,))
    try:
        result = records.record_signed_upload(store, user, code, data)
    except REFUSALS as exc:
        records.record_refusal(store, user, table, record_id, data, str(exc), code=code)
        return Submission(False, (str(exc),))
    head = f"Documento {code}: {result.progress.text}."
    if result.valid:
        return Submission(True, (head, *(f"assinatura de {s.signer_name or 'titular não identificado'}: válida"
                                        for s in result.accepted)))
    reasons = refusal_lines(result.verification.problems, result.refused)      # one line per refusal (item 9)
    return Submission(False, (head, *(reasons or (records.NO_NEW_SIGNATURE,))))


__all__ = ["NOT_THIS", "Submission", "submit"]
