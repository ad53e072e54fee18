"""Institutional signing (issue 27 §2, optional, configured by the admin): the service signs a DPC-issued document
with an A1 certificate, so that a statement leaves the office already signed.

    signer = institutional_signer()              None when not configured (the environment names no file)
    signed = sign_document(data, signer)         `data` plus one PAdES signature, an incremental update
    setup = signing_setup()                      the signer, or the problem that names the variable (never raises):
                                                 what the service reports at start-up, in /saude and on Tarefas, and
                                                 what issuing uses (`valuation.signatures.issuing`, issue 43 item 1)

Configuration, from the environment only (never the database, never the repository):

    VALUATION_SIGNING_P12            the path of the PKCS#12 (.p12/.pfx) file with the key and the certificate
                                     (and, ideally, its CA chain, embedded in every signature)
    VALUATION_SIGNING_P12_PASSWORD   its password

The file is at most `MAX_P12_BYTES`; a file that cannot be read or opened with the password is an InputError
naming the variable (pt-BR), never a traceback, and the password never appears in a message. The signature is
the same PAdES one a member makes (/SubFilter ETSI.CAdES.detached, SHA-256), so `verify.verify_signed` checks
it like any other: the certificate's CPF must be the one of the authority who must sign (`required`), which
makes the A1 the authority's own e-CPF, not a company seal.
"""
from __future__ import annotations

import io
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from valuation.core.errors import InputError, Problem
from valuation.core.money import format_date_br

ENV_FILE = "VALUATION_SIGNING_P12"
ENV_PASSWORD = "VALUATION_SIGNING_P12_PASSWORD"
MAX_P12_BYTES = 64 * 1024
FIELD = "Assinatura_institucional_DPC"


def institutional_signer(env: Mapping[str, str] | None = None) -> Any | None:
    """pyHanko's `SimpleSigner` of the configured A1, or None when VALUATION_SIGNING_P12 is unset."""
    from pyhanko.sign import signers

    source = env if env is not None else os.environ
    name = source.get(ENV_FILE)
    if not name:
        return None
    path = Path(name)
    try:
        if path.stat().st_size > MAX_P12_BYTES:
            raise InputError(Problem(ENV_FILE, f"O arquivo PKCS#12 passa de {MAX_P12_BYTES // 1024} KB: não parece "
                                               "um certificado A1."))
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(Problem(ENV_FILE, f"Não foi possível ler o arquivo PKCS#12 indicado ({str(path)[:300]}): "
                                           "arquivo ausente ou sem permissão de leitura.")) from exc
    password = source.get(ENV_PASSWORD)
    try:
        return signers.SimpleSigner.load_pkcs12_data(data, other_certs=(),
                                                      passphrase=None if password is None else password.encode())
    except ValueError as exc:
        raise InputError(Problem(ENV_PASSWORD, "Não foi possível abrir o arquivo PKCS#12: senha errada ou arquivo "
                                               "danificado.")) from exc


def sign_document(data: bytes, signer: Any, *, field_name: str = FIELD,
                  reason: str = "Ato da Autoridade Naval assinado pela Diretoria de Portos e Costas") -> bytes:
    """`data` with one more PAdES signature by `signer`, appended as an incremental update (pyHanko). A dot in
    `field_name` becomes '_' (in a PDF field name it separates the levels of a field hierarchy)."""
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers

    field_name = field_name.replace(".", "_")
    writer = IncrementalPdfFileWriter(io.BytesIO(bytes(data)), strict=False)
    meta = signers.PdfSignatureMetadata(field_name=field_name, subfilter=fields.SigSeedSubFilter.PADES,
                                        md_algorithm="sha256", reason=reason)
    out = signers.PdfSigner(meta, signer=signer, new_field_spec=fields.SigFieldSpec(field_name)).sign_pdf(writer)
    return bytes(out.getvalue())


@dataclass(frozen=True)
class SigningSetup:
    """The institutional signing this environment configures: a signer, or the problem (naming the variable), or
    neither (not configured: the acts go out for the authority to sign by upload)."""
    signer: Any | None = None
    problem: Problem | None = None

    @property
    def configured(self) -> bool:
        return self.signer is not None or self.problem is not None

    @property
    def certificate(self) -> bytes | None:
        """The DER of the A1's certificate (the one signature the service itself makes)."""
        return None if self.signer is None else bytes(self.signer.signing_cert.dump())

    @property
    def holder(self) -> str:
        """The certificate's Common Name, for the pages ('' when none)."""
        if self.signer is None:
            return ""
        try:
            return str(self.signer.signing_cert.subject.native.get("common_name", ""))[:200]
        except Exception:  # noqa: BLE001 - a name that cannot be read is no name
            return ""


def signing_setup(env: Mapping[str, str] | None = None, *, at: datetime | None = None) -> SigningSetup:
    """The configured signer or why there is none (see `SigningSetup`); never raises. Besides a file that cannot be
    read or opened: a password with no file, and a certificate out of its validity at `at` (default now)."""
    source = env if env is not None else os.environ
    if not source.get(ENV_FILE):
        if source.get(ENV_PASSWORD):
            return SigningSetup(problem=Problem(ENV_FILE, f"não definido, mas {ENV_PASSWORD} está: indique o "
                                                          "caminho do arquivo PKCS#12 (A1) da autoridade."))
        return SigningSetup()
    try:
        signer = institutional_signer(source)
    except InputError as exc:
        return SigningSetup(problem=exc.problems[0])
    if signer is None:
        return SigningSetup()
    moment = at or datetime.now(UTC)
    cert = signer.signing_cert
    if not cert.not_valid_before <= moment <= cert.not_valid_after:
        return SigningSetup(problem=Problem(ENV_FILE, "O certificado do arquivo PKCS#12 não está no seu prazo de "
                                                      f"validade (de {format_date_br(cert.not_valid_before.date())} a "
                                                      f"{format_date_br(cert.not_valid_after.date())})."))
    return SigningSetup(signer=signer)
