"""Acts the service signs itself as it issues them (issue 43, item 1): with the institutional A1 configured
(`institutional.signing_setup`: VALUATION_SIGNING_P12 and its password), an act that the issuing authority signs
alone — a partition statement (and a removal order) — leaves the office signed.

    doc, signing = issue_statement(store, user, draft_id, correction_reason=…)   partition's issue, then signed
    signing = sign_issued(store, user, code)                                    sign an act already issued

The registered bytes stay the first revision (the code, the CRC and the sha256 of /verificar are theirs); the
signature is an incremental update of them, verified by the product's own verifier against the admin's trust
folder (`records.record_signed_upload(institutional=…)`) and recorded as the authority's signature, so the act
reads "assinado por 1 de 1" and later downloads serve the signed file. When the A1 is missing, unreadable, out of
date or its signature is refused, the act is issued all the same, unsigned, and `Signing.text` says so and why
(naming the variable, never the password): the authority can still sign it by upload.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from valuation.core.errors import ValuationError
from valuation.db.access import Principal
from valuation.db.blobs import BlobStore
from valuation.db.store import Store
from valuation.partition import statement_reads, statements
from valuation.partition.documents import StatementDoc
from valuation.signatures import institutional, records
from valuation.signatures.institutional import ENV_FILE, SigningSetup
from valuation.signatures.trust import Trust
from valuation.signatures.verify import refusal_lines

INSTITUTIONAL_KINDS = ("statement", "removal_order")
UNSIGNED = "O ato saiu SEM assinatura eletrônica"
NOT_CONFIGURED = (f"Assinatura institucional não configurada ({ENV_FILE}): o ato saiu sem assinatura; a autoridade "
                  "que o emitiu assina o PDF e o envia em “Enviar PDF assinado”.")


@dataclass(frozen=True)
class Signing:
    signed: bool
    text: str                      # pt-BR, for the page that issued the act
    configured: bool = True


def _registered(store: Store, doc: dict[str, Any]) -> bytes | None:
    """The registered bytes of an issued act: a statement's stored PDF, else the kept copy (db/blobs.py)."""
    if doc["record_table"] == "statements":
        data = store.scalar("SELECT pdf FROM statements WHERE id = ? AND pdf_sha256 = ?",
                            [doc["record_id"], doc["sha256"]])
        return None if data is None else bytes(data)
    blobs = BlobStore.for_database(store.path)
    return blobs.read(str(doc["sha256"])) if blobs.exists(str(doc["sha256"])) else None


def sign_issued(store: Store, user: Principal, code: str, *, setup: SigningSetup | None = None,
                trust: Trust | None = None) -> Signing:
    """Sign the issued act `code` with the institutional A1 and record the signature (see the module)."""
    setup = setup if setup is not None else institutional.signing_setup()
    if not setup.configured:
        return Signing(False, NOT_CONFIGURED, configured=False)
    if setup.problem is not None:
        return Signing(False, f"{UNSIGNED}: a assinatura institucional não pôde ser feita — {setup.problem.path}: "
                              f"{setup.problem.message}")
    doc = store.fetch_one("SELECT id, code, kind, record_table, record_id, sha256 FROM issued_documents WHERE code = ?",
                          [code.replace("-", "")])
    data = None if doc is None or doc["kind"] not in INSTITUTIONAL_KINDS else _registered(store, doc)
    if data is None:
        return Signing(False, f"{UNSIGNED}: o documento registrado não foi encontrado para assinar.")
    try:
        signed = institutional.sign_document(data, setup.signer)
        result = records.record_signed_upload(store, user, code, signed, trust=trust, institutional=setup.certificate)
    except ValuationError as exc:
        return Signing(False, f"{UNSIGNED}: {exc}")
    except Exception as exc:  # noqa: BLE001 - pyHanko refused to sign: the act stays issued, unsigned
        return Signing(False, f"{UNSIGNED}: o certificado institucional não conseguiu assinar ({type(exc).__name__}).")
    if not result.valid:
        reasons = "; ".join(refusal_lines(result.verification.problems, result.refused)) or "assinatura não aceita"
        return Signing(False, f"{UNSIGNED}: a assinatura do certificado institucional foi recusada na conferência "
                              f"— {reasons}")
    who = f" ({setup.holder})" if setup.holder else ""
    return Signing(True, f"Assinado com o certificado institucional{who}: {result.progress.text}.")


def issue_statement(store: Store, user: Principal, draft_id: int, *, correction_reason: str | None = None,
                    setup: SigningSetup | None = None, trust: Trust | None = None) -> tuple[StatementDoc, Signing]:
    """`partition.statements.issue_statement`, then the statement signed with the institutional A1."""
    doc = statements.issue_statement(store, user, draft_id, correction_reason=correction_reason)
    code = statement_reads.statement_code(store, user, doc.id)
    if code is None:
        return doc, Signing(False, f"{UNSIGNED}: o demonstrativo não tem registro de emissão.")
    return doc, sign_issued(store, user, code, setup=setup, trust=trust)


__all__ = ["INSTITUTIONAL_KINDS", "NOT_CONFIGURED", "UNSIGNED", "Signing", "issue_statement", "sign_issued"]
