"""Verifying an uploaded signed PDF against the registered document (issue 27 §2). Pure of the database.

    v = verify_signed(data, registered=reg_bytes, expected_cpfs={"52998224725"}, trust=load_trust())
    v.valid                 every check passed (at least one signature, none refused)
    v.problems              the file's refusals (pt-BR): size, active content, not the registered document…
    v.signatures            per signature, in the order applied: CPF, name, signing time, its refusals

What is checked (pyHanko 0.38 and pyhanko-certvalidator 0.33 do the cryptography):

1. the file: at most `MAX_FILE_BYTES` (the attachments' limit), a PDF, free of active content
   (`attachments.active.pdf_problem`: JavaScript, embedded files, launch actions…);
2. its bytes start with the registered document's bytes (and, when given, with the `previous` signed
   revision already accepted), and its revisions grow from the registered document's last revision:
   a signed file is the registered bytes plus incremental updates;
3. those updates only add signatures: the one that brings the first signature is vetted by
   `revisions.first_update_problem` (pyHanko's diff policy cannot: the registered PDF has no form), every
   later one by pyHanko's difference analysis of each signature (`StandardDiffPolicy`): nothing beyond
   form filling (a signature field and its appearance); a changed page, a new annotation, a replaced
   object are refused;
4. each signature: intact (its digest matches its /ByteRange) and cryptographically valid; it covers
   its whole revision, which includes the registered document; after it, only signatures were added
   (pyHanko's per-signature diff); the LAST one covers the whole file;
5. the signer's certificate chains to an installed anchor (`trust.Trust`, the admin's files), valid at
   the signing time, with every certificate of the path checked against an installed CRL
   (revocation_mode "require": when revocation cannot be checked — no CRL, a stale one — the signature
   is NOT valid and the reason says so); its key usage allows signing;
6. the signing time is the one the signature declares (gov.br's signer adds no timestamp token): it
   may not lie after the upload (`at`) nor before the document's issue (`issued_at`); since nothing
   vouches for it, a certificate revoked at any time up to `at` is refused too ("revogado em …");
7. each signature's revision adds at most `MAX_SIGNATURE_GROWTH` bytes to the one before it;
8. the certificate's CPF (`signatures.cpf`) passes its check digits and is one of `expected_cpfs` — except a
   certificate among `institutional` (the DER of the service's own A1, `signatures.institutional`), which signs for
   the institution whoever it names (`SignatureCheck.institutional`).

A malformed file is a Portuguese refusal, never a traceback.
"""
from __future__ import annotations

import asyncio
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from valuation.attachments.active import pdf_problem
from valuation.attachments.kinds import MAX_FILE_BYTES, megabytes
from valuation.core import clock
from valuation.core.ids import cpf_is_valid, normalise_digits
from valuation.core.money import format_date_br, format_datetime_br
from valuation.signatures.cpf import holder, masked
from valuation.signatures.revisions import first_update_problem
from valuation.signatures.trust import Trust

MAX_SIGNATURES = 50
# what one signature's revision may add to the file (issue 43, item 11): a signature, its certificates and its
# appearance take tens of kilobytes; 20 MB of bytes nothing refers to, written before a signature, made every
# later signer download them
MAX_SIGNATURE_GROWTH = 2 * 1024 * 1024
CLOCK_SKEW = timedelta(minutes=5)      # a signer's clock ahead of or behind the server's
KEY_USAGES = frozenset({"digital_signature", "non_repudiation"})   # either is enough

DAMAGED = "PDF com estrutura danificada: não foi possível ler as suas assinaturas"
NO_SIGNATURE = "o arquivo não tem assinatura eletrônica"
NOT_REGISTERED = ("o arquivo não começa pelo documento registrado: o conteúdo assinado não é o do documento "
                  "emitido pelo sistema (baixe o PDF do sistema e assine-o sem alterá-lo)")
NOT_PREVIOUS = ("o arquivo não contém a última versão assinada registrada: assine o PDF que já traz as "
                "assinaturas anteriores")
NOT_FROM_REGISTERED = "as revisões do arquivo não partem da última revisão do documento registrado"
CHANGED = ("o arquivo foi alterado depois de emitido: uma atualização incremental muda o conteúdo do documento, "
           "não apenas acrescenta assinaturas")
NOT_WHOLE_FILE = "a assinatura não cobre o arquivo inteiro: há conteúdo acrescentado depois dela"
NOT_WHOLE_REVISION = "a assinatura não cobre a revisão assinada inteira"
NOT_INTACT = "a assinatura não confere com o conteúdo: o arquivo foi alterado depois de assinado"
NOT_VALID = "a assinatura criptográfica é inválida para o certificado que a acompanha"
CHANGED_AFTER = "depois desta assinatura o arquivo recebeu alterações que não são assinaturas"
NO_ANCHORS = ("nenhuma AC raiz foi instalada como âncora de confiança pelo administrador: não é possível validar "
              "o certificado do signatário")
UNTRUSTED = ("o certificado do signatário não pertence a uma cadeia de certificação confiável instalada "
             "(AC raiz não reconhecida)")
NO_REVOCATION = ("não foi possível verificar a revogação do certificado (nenhuma LCR instalada e atual para a AC "
                 "emissora): a assinatura não é considerada válida")
# the reasons of an earlier signature that say the file changed after it (not that its certificate did)
FILE_REASONS = frozenset({NOT_INTACT, NOT_VALID, NOT_WHOLE_REVISION, CHANGED_AFTER})
KEY_USAGE = "o certificado do signatário não se destina a assinaturas (uso de chave)"
NO_TIME = "a assinatura não informa a data em que foi feita"
NO_CPF = "o certificado do signatário não informa o CPF do titular"


@dataclass(frozen=True)
class SignatureCheck:
    """One signature of the file, in the order applied (index from 1)."""
    index: int
    field: str
    signer_cpf: str | None
    signer_name: str
    signed_at: datetime | None           # aware UTC, as declared by the signature
    revision_end: int                    # the signed revision is data[:revision_end]
    reasons: tuple[str, ...] = ()
    institutional: bool = False          # made with the service's own A1 (`verify_signed(institutional=…)`)

    @property
    def valid(self) -> bool:
        return not self.reasons

    @property
    def status(self) -> str:
        return "válida" if self.valid else "recusada"


@dataclass(frozen=True)
class Verification:
    problems: tuple[str, ...] = ()
    signatures: tuple[SignatureCheck, ...] = field(default=())

    @property
    def valid(self) -> bool:
        return not self.problems and bool(self.signatures) and all(s.valid for s in self.signatures)

    @property
    def reasons(self) -> tuple[str, ...]:
        """Every refusal, the file's first, then each signature's ('assinatura 2 (NOME): …')."""
        own = tuple(f"assinatura {s.index} ({s.signer_name or 'sem nome'}): {r}" for s in self.signatures
                    for r in s.reasons)
        return self.problems + own


def refusal_lines(problems: Sequence[str], refused: Sequence[SignatureCheck]) -> tuple[str, ...]:
    """The refusal of an upload in words a member reads, one line per reason (issue 43, item 9): the file's own
    problems once, then each signature's reasons under its signer's name — a reason several signatures share is one
    line naming them all ('as assinaturas de ANA e BIA: …'); never a signature's number in the file."""
    out = list(dict.fromkeys(problems))
    named: dict[str, list[str]] = {}
    for check in refused:
        for reason in check.reasons:
            if reason not in out:
                named.setdefault(reason, [])
                name = check.signer_name or "titular não identificado"
                if name not in named[reason]:
                    named[reason].append(name)
    for reason, names in named.items():
        who = (f"a assinatura de {names[0]}" if len(names) == 1
               else "as assinaturas de " + ", ".join(names[:-1]) + f" e {names[-1]}")
        out.append(f"{who}: {reason}")
    return tuple(out)


def _when(at: datetime) -> str:
    return format_date_br(clock.brasilia(at).date())


def _file_problem(data: bytes, registered: bytes, previous: bytes | None) -> str | None:
    if len(data) > MAX_FILE_BYTES:
        return f"o arquivo tem {megabytes(len(data))}, acima do limite de {megabytes(MAX_FILE_BYTES)}"
    if not data.startswith(b"%PDF-"):
        return "o arquivo não é um PDF"
    active = pdf_problem(data)
    if active is not None:
        return active
    if not registered or not data.startswith(registered):
        return NOT_REGISTERED
    if previous is not None and not data.startswith(previous):
        return NOT_PREVIOUS
    return None


def _revision_problems(reader: Any, registered: bytes, first_signed_revision: int) -> list[str]:
    """The file's revisions must grow from the registered document's last one, and the update that brings the
    first signature may only add it (`revisions.first_update_problem`); pyHanko's per-signature difference
    analysis vets every later update."""
    from pyhanko.pdf_utils.reader import PdfFileReader

    try:
        base = PdfFileReader(io.BytesIO(registered), strict=False).xrefs
        last = base.total_revisions - 1
        if (reader.xrefs.total_revisions <= last + 1
                or reader.xrefs.get_startxref_for_revision(last) != base.get_startxref_for_revision(last)):
            return [NOT_FROM_REGISTERED]
        if first_signed_revision != last + 1 or first_update_problem(reader, last) is not None:
            return [CHANGED]
    except Exception:  # noqa: BLE001 - a file whose revisions cannot be compared is not accepted
        return [DAMAGED]
    return []


def verify_signed(data: bytes, *, registered: bytes, expected_cpfs: Iterable[str], trust: Trust,
                  at: datetime | None = None, previous: bytes | None = None,
                  issued_at: datetime | None = None, institutional: Iterable[bytes] = ()) -> Verification:
    """Verify the signed PDF `data` against the `registered` bytes of the issued document (see the module).

    pyHanko runs its validation with `asyncio.run`, which an event loop already running in this thread (the
    ASGI service) would refuse: there the verification runs in a thread of its own."""
    kwargs: dict[str, Any] = dict(registered=registered, expected_cpfs=tuple(expected_cpfs), trust=trust, at=at,
                                  previous=previous, issued_at=issued_at,
                                  institutional=frozenset(bytes(c) for c in institutional))
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _verify_signed(data, **kwargs)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_verify_signed, data, **kwargs).result()


def _verify_signed(data: bytes, *, registered: bytes, expected_cpfs: Iterable[str], trust: Trust,
                   at: datetime | None, previous: bytes | None, issued_at: datetime | None,
                   institutional: frozenset[bytes]) -> Verification:
    from pyhanko.pdf_utils.reader import PdfFileReader

    data, registered = bytes(data), bytes(registered)
    moment = clock.aware(at) or clock.now_utc()
    problem = _file_problem(data, registered, None if previous is None else bytes(previous))
    if problem is not None:
        return Verification((problem,))
    try:
        reader = PdfFileReader(io.BytesIO(data), strict=False)
        embedded = list(reader.embedded_signatures)
    except Exception:  # noqa: BLE001 - a malformed file is a refusal, not a traceback
        return Verification((DAMAGED,))
    if not embedded:
        return Verification((NO_SIGNATURE,))
    if len(embedded) > MAX_SIGNATURES:
        return Verification((f"o arquivo tem {len(embedded)} assinaturas, acima do limite de {MAX_SIGNATURES}",))
    try:
        first_revision = int(embedded[0].signed_revision)
    except Exception:  # noqa: BLE001
        return Verification((DAMAGED,))
    problems = _revision_problems(reader, registered, first_revision)
    expected = {normalise_digits(c) for c in expected_cpfs}
    window = (clock.aware(issued_at), moment)
    checks = [_check(i + 1, es, len(registered), expected, trust, window, last=i == len(embedded) - 1,
                     institutional=institutional) for i, es in enumerate(embedded)]
    return Verification(tuple(problems), _bounded(checks, len(registered)))


def _bounded(checks: list[SignatureCheck], registered_len: int) -> tuple[SignatureCheck, ...]:
    """Each signature refused whose revision adds more than `MAX_SIGNATURE_GROWTH` to the one before it."""
    out, start = [], registered_len
    for check in checks:
        grown = check.revision_end - start
        if grown > MAX_SIGNATURE_GROWTH:
            check = replace(check, reasons=(*check.reasons, f"a revisão desta assinatura acrescenta "
                                            f"{megabytes(grown)} ao arquivo, acima do limite de "
                                            f"{megabytes(MAX_SIGNATURE_GROWTH)} por assinatura"))
        out.append(check)
        start = max(start, check.revision_end)
    return tuple(out)


def _identity(es: Any) -> tuple[str | None, str, datetime | None, int]:
    try:
        who = holder(es.signer_cert.dump())
    except Exception:  # noqa: BLE001 - a signature without a readable certificate
        who = holder(b"")
    try:
        declared = es.self_reported_timestamp
        signed_at = None if declared is None else clock.aware(declared)
    except Exception:  # noqa: BLE001 - an unreadable signing time is no signing time
        signed_at = None
    try:
        byte_range = list(es.byte_range)
        end = int(byte_range[2]) + int(byte_range[3]) if len(byte_range) == 4 else 0
    except Exception:  # noqa: BLE001 - a /ByteRange that is not four numbers signs nothing
        end = 0
    return who.cpf, who.name, signed_at, end


def _certificate(es: Any) -> bytes:
    try:
        return bytes(es.signer_cert.dump())
    except Exception:  # noqa: BLE001 - no readable certificate
        return b""


def _check(index: int, es: Any, registered_len: int, expected: set[str], trust: Trust,
           window: tuple[datetime | None, datetime], *, last: bool,
           institutional: frozenset[bytes] = frozenset()) -> SignatureCheck:
    cpf, name, signed_at, end = _identity(es)
    own = bool(institutional) and _certificate(es) in institutional
    try:
        field_name = str(es.field_name)[:200]
    except Exception:  # noqa: BLE001
        field_name = ""
    reasons: list[str] = []
    try:
        moment = signed_at or window[1]
        status = _pyhanko_status(es, registered_len, trust, moment)
        if isinstance(status, str):
            reasons.append(status)
        else:
            reasons += _integrity(status, last=last)
            reasons += _time(signed_at, window)
            chain = _chain(es, trust, moment, window[1])
            reasons += chain or _trusted(status)
    except Exception:  # noqa: BLE001 - whatever pyHanko cannot read is refused, with a reason
        reasons.append("assinatura ilegível ou em formato não reconhecido")
    if not own:          # the institution's A1 signs for the institution, whatever CPF it names
        reasons += _signer(cpf, expected)
    return SignatureCheck(index, field_name, cpf, name, signed_at, end, tuple(dict.fromkeys(reasons)), own)


def _context(trust: Trust, moment: datetime) -> Any:
    """A validation context on the installed files only (never the system's trust store, never the network)."""
    from asn1crypto import x509 as asn1_x509
    from pyhanko_certvalidator import ValidationContext

    return ValidationContext(trust_roots=[asn1_x509.Certificate.load(a) for a in trust.anchors],
                             other_certs=[asn1_x509.Certificate.load(c) for c in trust.intermediates],
                             crls=list(trust.crls), allow_fetching=False, revocation_mode="require",
                             moment=moment.astimezone(UTC), retroactive_revinfo=True)


def _pyhanko_status(es: Any, registered_len: int, trust: Trust, moment: datetime) -> Any:
    """pyHanko's `validate_pdf_signature` of one signature, or the reason it is not even looked at."""
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko.sign.validation.settings import KeyUsageConstraints

    if es.sig_object_type != "/Sig":
        return "carimbo do tempo de documento (DocTimeStamp) não é aceito como assinatura"
    byte_range = list(es.byte_range)
    if len(byte_range) != 4 or byte_range[0] != 0 or byte_range[1] < registered_len:
        return "a assinatura não abrange o documento registrado inteiro"
    usage = KeyUsageConstraints(key_usage=set(KEY_USAGES), match_all_key_usages=False)
    return validate_pdf_signature(es, _context(trust, moment), key_usage_settings=usage)


def _integrity(status: Any, *, last: bool) -> list[str]:
    """pyHanko's integrity verdict of one signature: digest, signature, coverage, what came after it."""
    from pyhanko.sign.diff_analysis import ModificationLevel
    from pyhanko.sign.validation import SignatureCoverageLevel

    out: list[str] = []
    if not status.intact:
        out.append(NOT_INTACT)
    elif not status.valid:
        out.append(NOT_VALID)
    coverage = status.coverage
    if coverage is None or coverage < SignatureCoverageLevel.ENTIRE_REVISION:
        out.append(NOT_WHOLE_REVISION)
    elif last and coverage != SignatureCoverageLevel.ENTIRE_FILE:
        out.append(NOT_WHOLE_FILE)
    level = getattr(status.diff_result, "modification_level", ModificationLevel.OTHER)
    if coverage == SignatureCoverageLevel.ENTIRE_REVISION and (level > ModificationLevel.FORM_FILLING
                                                               or status.docmdp_ok is False):
        out.append(CHANGED_AFTER)
    return out


def _trusted(status: Any) -> list[str]:
    """pyHanko's own trust verdict, when the path check found nothing: key usage, a timestamp token."""
    out = [] if status.trusted or not (status.intact and status.valid) else [KEY_USAGE]
    stamp = status.timestamp_validity
    if stamp is not None and not (stamp.intact and stamp.valid and stamp.trusted):
        out.append("o carimbo do tempo da assinatura não foi validado")
    return out


def _time(signed_at: datetime | None, window: tuple[datetime | None, datetime]) -> list[str]:
    issued, upload = window
    if signed_at is None:
        return [NO_TIME]
    if signed_at > upload + CLOCK_SKEW:
        return [f"a data declarada da assinatura ({format_datetime_br(clock.brasilia(signed_at))}) é posterior ao "
                "envio do arquivo"]
    if issued is not None and signed_at < issued - CLOCK_SKEW:
        return [f"a data declarada da assinatura ({format_datetime_br(clock.brasilia(signed_at))}) é anterior à "
                "emissão do documento"]
    return []


def _signer(cpf: str | None, expected: set[str]) -> list[str]:
    if cpf is None:
        return [NO_CPF]
    if not cpf_is_valid(cpf):
        return [f"o CPF do certificado ({masked(cpf)}) tem dígitos verificadores inválidos"]
    if cpf not in expected:
        return [f"o CPF do signatário ({masked(cpf)}) não é o de quem deve assinar este documento"]
    return []


def _chain(es: Any, trust: Trust, moment: datetime, upload: datetime) -> list[str]:
    """The signer's certificate path to an installed anchor, at `moment`, with revocation required."""
    from pyhanko_certvalidator import CertificateValidator, errors

    if trust.empty:
        return [NO_ANCHORS]
    validator = CertificateValidator(es.signer_cert, intermediate_certs=es.other_embedded_certs,
                                     validation_context=_context(trust, moment))
    cert = es.signer_cert
    try:
        path = asyncio.run(validator.async_validate_path())
    except errors.RevokedError as exc:
        return [f"o certificado foi revogado em {_when(exc.revocation_dt)}"]
    except errors.ExpiredError:
        return [f"o certificado do signatário estava vencido na data da assinatura (válido até "
                f"{_when(cert.not_valid_after)})"]
    except errors.NotYetValidError:
        return [f"o certificado do signatário ainda não era válido na data da assinatura (válido a partir de "
                f"{_when(cert.not_valid_before)})"]
    except errors.InsufficientRevinfoError:
        return [NO_REVOCATION]
    except errors.PathBuildingError:
        return [UNTRUSTED]
    except (errors.PathValidationError, errors.ValidationError):
        return ["a cadeia de certificação do signatário não foi validada"]
    out: list[str] = []
    revoked = _revoked_until([c.dump() for c in path.iter_certs(include_root=True)], trust.crls, upload)
    if revoked is not None:
        out.append(f"o certificado foi revogado em {_when(revoked)}")
    return out


def _revoked_until(path: list[bytes], crls: tuple[bytes, ...], until: datetime) -> datetime | None:
    """The earliest revocation, up to `until`, of a certificate of `path` (root first) on an installed CRL
    signed by its issuer: the declared signing time is not proof that the signature came before it."""
    from cryptography import x509

    certs = [x509.load_der_x509_certificate(d) for d in path]
    found: list[datetime] = []
    for issuer, cert in zip(certs, certs[1:]):
        for der in crls:
            crl = x509.load_der_x509_crl(der)
            if crl.issuer != issuer.subject or not crl.is_signature_valid(issuer.public_key()):  # type: ignore[arg-type]
                continue
            entry = crl.get_revoked_certificate_by_serial_number(cert.serial_number)
            if entry is not None and entry.revocation_date_utc <= until:
                found.append(entry.revocation_date_utc)
    return min(found) if found else None
