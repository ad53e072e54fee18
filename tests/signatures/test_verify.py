"""The verifier of signed PDFs (issue 27 §2), on real signatures: a test PKI made with `cryptography`,
PDFs issued by the product's report builder, signed with pyHanko as a signer would. No mocks."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.signatures.conftest import issued_pdf
from tests.support.pki import NOW, TestPki, add_embedded_file, add_javascript, overwrite_first_page, sign, updated
from valuation.attachments.kinds import MAX_FILE_BYTES, megabytes
from valuation.signatures import verify as v
from valuation.signatures.trust import Trust, load_trust
from valuation.signatures.verify import verify_signed

ANA, BRUNO = "52998224725", "11144477735"
DATE = re.compile(r"\d{2}/\d{2}/\d{4}")


def check(data: bytes, registered: bytes, trust: Trust, expected: set[str] | None = None,
          **kw: Any) -> v.Verification:
    return verify_signed(data, registered=registered, expected_cpfs=expected or {ANA, BRUNO}, trust=trust, **kw)


def only_reason(result: v.Verification) -> str:
    assert not result.valid
    assert len(result.reasons) == 1, result.reasons
    return result.reasons[0]


# -- valid --------------------------------------------------------------------------------------------------
def test_one_signature_by_the_expected_person_is_valid(pki: TestPki, registered: bytes, trust: Trust) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    result = check(sign(registered, pki.person("ana")), registered, trust)
    after = datetime.now(UTC)
    assert result.valid and result.reasons == ()
    (sig,) = result.signatures
    assert (sig.signer_cpf, sig.signer_name, sig.status) == (ANA, "ANA MARIA DE SOUZA", "válida")
    # the signing time the signature states: when it was made (not when the suite began: it may run 30 min)
    assert sig.signed_at is not None and before <= sig.signed_at <= after


def test_two_successive_incremental_signatures_are_both_valid(pki: TestPki, registered: bytes, trust: Trust) -> None:
    first = sign(registered, pki.person("ana"))
    both = sign(first, pki.person("bruno"), visible=True)
    assert both.startswith(first)
    result = check(both, registered, trust, previous=first)
    assert result.valid, result.reasons
    assert [s.signer_cpf for s in result.signatures] == [ANA, BRUNO]
    assert result.signatures[0].revision_end == len(first)
    assert result.signatures[1].revision_end == len(both)
    # the first file alone is still valid on its own
    assert check(first, registered, trust).valid


# -- the file ------------------------------------------------------------------------------------------------
def test_a_file_tampered_after_signing_is_refused(pki: TestPki, registered: bytes, trust: Trust) -> None:
    signed = sign(registered, pki.person("ana"))
    at = signed.rindex(b"/Creator (valuation)")             # the signature's revision, inside its byte range
    assert at > len(registered)
    tampered = signed[:at] + b"/Creator (valuatioN)" + signed[at + len(b"/Creator (valuation)"):]
    assert only_reason(check(tampered, registered, trust)).endswith(v.NOT_INTACT)


def test_a_change_to_the_registered_bytes_is_refused(pki: TestPki, registered: bytes, trust: Trust) -> None:
    signed = sign(registered, pki.person("ana"))
    at = signed.index(b"/Title") + 8
    tampered = signed[:at] + bytes([signed[at] ^ 1]) + signed[at + 1:]
    assert only_reason(check(tampered, registered, trust)) == v.NOT_REGISTERED


def test_content_changed_in_an_incremental_update_after_the_signature_is_refused(
        pki: TestPki, registered: bytes, trust: Trust) -> None:
    forged = updated(sign(registered, pki.person("ana")), overwrite_first_page)
    result = check(forged, registered, trust)
    assert not result.valid
    assert set(result.signatures[0].reasons) == {v.CHANGED_AFTER, v.NOT_WHOLE_FILE}


def test_content_changed_in_the_update_that_brings_the_signature_is_refused(
        pki: TestPki, registered: bytes, trust: Trust) -> None:
    """pyHanko's per-signature diff cannot see this one (the change is inside the signed revision)."""
    forged = sign(registered, pki.person("ana"), change=overwrite_first_page)
    result = check(forged, registered, trust)
    assert result.problems == (v.CHANGED,) and result.signatures[0].valid
    assert not result.valid and result.reasons == (v.CHANGED,)


def test_a_signature_that_covers_only_part_of_the_file_is_refused(
        pki: TestPki, registered: bytes, trust: Trust) -> None:
    extended = sign(registered, pki.person("ana")) + b"\n% acrescentado depois da assinatura\n"
    assert only_reason(check(extended, registered, trust)).endswith(
        "a assinatura não cobre o arquivo inteiro: há conteúdo acrescentado depois dela")


def test_a_pdf_that_is_not_the_registered_document_is_refused(pki: TestPki, registered: bytes, trust: Trust) -> None:
    other = sign(issued_pdf("Outro documento", code="ZZZZZ99999"), pki.person("ana"))
    assert only_reason(check(other, registered, trust)) == v.NOT_REGISTERED


def test_a_file_without_the_previous_signed_revision_is_refused(
        pki: TestPki, registered: bytes, trust: Trust) -> None:
    first = sign(registered, pki.person("ana"))
    parallel = sign(registered, pki.person("bruno"))
    assert only_reason(check(parallel, registered, trust, previous=first)) == v.NOT_PREVIOUS


def test_the_registered_document_unsigned_is_refused(registered: bytes, trust: Trust) -> None:
    assert only_reason(check(registered, registered, trust)) == "o arquivo não tem assinatura eletrônica"


@pytest.mark.parametrize(("change", "what"), [(add_javascript, "ação JavaScript"),
                                              (add_embedded_file, "arquivo embutido")])
def test_a_signed_pdf_with_active_content_is_refused(pki: TestPki, registered: bytes, trust: Trust,
                                                     change: object, what: str) -> None:
    for data in (sign(registered, pki.person("ana"), change=change),
                 updated(sign(registered, pki.person("ana")), change)):
        reason = only_reason(check(data, registered, trust))
        assert reason == f"PDF com conteúdo ativo ({what}), que pode executar algo ao ser aberto: não é aceito"


def test_a_huge_pdf_is_refused_by_its_size(registered: bytes, trust: Trust) -> None:
    huge = registered + b"%" * (MAX_FILE_BYTES - len(registered) + 1)
    assert only_reason(check(huge, registered, trust)) == (
        f"o arquivo tem {megabytes(len(huge))}, acima do limite de {megabytes(MAX_FILE_BYTES)}")


@pytest.mark.parametrize("cut", [0.3, 0.6, 0.9, 0.99])
def test_a_truncated_or_malformed_pdf_is_a_portuguese_refusal(pki: TestPki, registered: bytes, trust: Trust,
                                                             cut: float) -> None:
    signed = sign(registered, pki.person("ana"))
    data = signed[:len(registered) + int((len(signed) - len(registered)) * cut)]
    result = check(data, registered, trust)
    assert not result.valid and result.reasons
    assert all(isinstance(r, str) and r.strip() for r in result.reasons)


@pytest.mark.parametrize("data", [b"", b"GIF89a", b"%PDF-1.7\n%%EOF", b"%PDF-1.7\n" + b"\x00" * 4096])
def test_garbage_is_a_portuguese_refusal(registered: bytes, trust: Trust, data: bytes) -> None:
    result = check(data, registered, trust)
    assert not result.valid and len(result.reasons) == 1
    assert result.reasons[0] in {"o arquivo não é um PDF", v.NOT_REGISTERED,
                                 "PDF com estrutura danificada: não foi possível conferir o seu conteúdo"}


def test_garbage_appended_to_the_signature_dictionary_is_a_refusal(pki: TestPki, registered: bytes,
                                                                    trust: Trust) -> None:
    signed = sign(registered, pki.person("ana"))
    at = signed.rindex(b"/ByteRange")
    broken = signed[:at] + b"/ByteRange [0 1 2]" + signed[at + len(b"/ByteRange [0 1 2]"):]
    result = check(broken, registered, trust)
    assert not result.valid and result.reasons


# -- the signer ----------------------------------------------------------------------------------------------
def test_a_signature_by_the_wrong_cpf_is_refused(pki: TestPki, registered: bytes, trust: Trust) -> None:
    assert only_reason(check(sign(registered, pki.person("carla")), registered, trust)) == (
        "assinatura 1 (CARLA DIAS): o CPF do signatário (***.533.447-**) não é o de quem deve assinar este documento")


def test_a_certificate_without_cpf_or_with_a_broken_one_is_refused(pki: TestPki, registered: bytes,
                                                                    trust: Trust) -> None:
    assert only_reason(check(sign(registered, pki.person("no_cpf")), registered, trust)).endswith(v.NO_CPF)
    assert only_reason(check(sign(registered, pki.person("bad_cpf")), registered, trust, {"52998224700"})).endswith(
        "o CPF do certificado (***.982.247-**) tem dígitos verificadores inválidos")


def test_a_revoked_certificate_is_refused_with_the_revocation_date(pki: TestPki, registered: bytes,
                                                                   trust: Trust) -> None:
    revoked = pki.person("revoked")
    reason = only_reason(check(sign(registered, revoked), registered, trust, {revoked.cpf or ""}))
    day = (NOW - timedelta(days=10)).astimezone(v.clock.office_zone()).strftime("%d/%m/%Y")
    assert reason == f"assinatura 1 (RAFAEL REVOGADO): o certificado foi revogado em {day}"


def test_a_revocation_after_the_declared_signing_time_but_before_the_upload_is_refused(
        pki: TestPki, registered: bytes, tmp_path: Path) -> None:
    """Nothing vouches for the declared signing time (no timestamp token), so a revocation up to the upload counts."""
    ana = pki.person("ana")
    later = NOW + timedelta(hours=1)
    crl = pki.intermediate.crl(extra=((ana.cert.serial_number, later),))
    trust = load_trust(pki.install(tmp_path, intermediate_crl=crl))
    signed = sign(registered, ana)
    assert check(signed, registered, trust, at=NOW + timedelta(minutes=30)).valid
    reason = only_reason(check(signed, registered, trust, at=NOW + timedelta(hours=2)))
    assert reason.startswith("assinatura 1 (ANA MARIA DE SOUZA): o certificado foi revogado em ")
    assert DATE.search(reason)


def test_an_expired_certificate_is_refused(pki: TestPki, registered: bytes, trust: Trust) -> None:
    expired = pki.person("expired")
    reason = only_reason(check(sign(registered, expired), registered, trust, {expired.cpf or ""}))
    until = (NOW - timedelta(days=30)).astimezone(v.clock.office_zone()).strftime("%d/%m/%Y")
    assert reason == ("assinatura 1 (EDUARDO EXPIRADO): o certificado do signatário estava vencido na data da "
                      f"assinatura (válido até {until})")


def test_a_certificate_from_an_untrusted_root_is_refused(pki: TestPki, registered: bytes, trust: Trust) -> None:
    stranger = pki.person("stranger")
    assert only_reason(check(sign(registered, stranger), registered, trust, {stranger.cpf or ""})).endswith(v.UNTRUSTED)


def test_without_an_installed_crl_revocation_cannot_be_checked_and_the_signature_is_not_valid(
        pki: TestPki, registered: bytes, tmp_path: Path) -> None:
    trust = load_trust(pki.install(tmp_path, crls=False))
    assert trust.anchors and not trust.crls
    assert only_reason(check(sign(registered, pki.person("ana")), registered, trust)).endswith(v.NO_REVOCATION)


def test_a_stale_crl_is_as_good_as_none(pki: TestPki, registered: bytes, tmp_path: Path) -> None:
    stale = pki.intermediate.crl(this_update=NOW - timedelta(days=30), next_update=NOW - timedelta(days=23))
    trust = load_trust(pki.install(tmp_path, intermediate_crl=stale))
    assert only_reason(check(sign(registered, pki.person("ana")), registered, trust)).endswith(v.NO_REVOCATION)


def test_without_any_anchor_nothing_is_trusted(pki: TestPki, registered: bytes, tmp_path: Path) -> None:
    trust = load_trust(tmp_path / "nada")
    assert trust.empty
    assert only_reason(check(sign(registered, pki.person("ana")), registered, trust)).endswith(v.NO_ANCHORS)


def test_the_declared_signing_time_must_lie_between_the_issue_and_the_upload(
        pki: TestPki, registered: bytes, trust: Trust) -> None:
    signed = sign(registered, pki.person("ana"))
    assert "é anterior à emissão do documento" in only_reason(
        check(signed, registered, trust, issued_at=NOW + timedelta(hours=1), at=NOW + timedelta(hours=2)))
    assert "é posterior ao envio do arquivo" in only_reason(
        check(signed, registered, trust, at=NOW - timedelta(hours=1)))


def test_an_rsa_signature_with_the_adobe_subfilter_as_gov_br_writes_it_is_valid(
        pki: TestPki, registered: bytes, trust: Trust) -> None:
    """gov.br's signer: RSA, /SubFilter adbe.pkcs7.detached, the CPF in the otherName 2.16.76.1.3.1."""
    signed = sign(registered, pki.person("govbr"), adobe=True, visible=True)
    assert b"/adbe.pkcs7.detached" in signed[len(registered):]
    result = check(signed, registered, trust)
    assert result.valid, result.reasons
    assert (result.signatures[0].signer_cpf, result.signatures[0].signer_name) == (ANA, "GINA GOV BR")


def test_random_damage_to_a_signed_file_never_raises(pki: TestPki, registered: bytes, trust: Trust) -> None:
    """Hostile bytes: one byte changed at 40 spread positions of the signature's revision. Every answer is a
    Verification; one that is still valid changed only the unsigned padding of /Contents."""
    import random

    signed = sign(registered, pki.person("ana"))
    start = len(registered)
    hex_from = signed.rindex(b"/Contents <") + len(b"/Contents <")
    hex_to = signed.index(b">", hex_from)
    rng = random.Random(27)
    for _ in range(40):
        at = rng.randrange(start, len(signed))
        damaged = signed[:at] + bytes([signed[at] ^ rng.randrange(1, 256)]) + signed[at + 1:]
        result = check(damaged, registered, trust)
        assert isinstance(result, v.Verification)
        assert all(isinstance(r, str) and r for r in result.reasons)
        if result.valid:
            assert hex_from <= at < hex_to, at


def test_a_signature_without_its_chain_needs_the_intermediate_installed(
        pki: TestPki, registered: bytes, tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization

    bare = sign(registered, pki.person("ana"), chain=False)
    folder = pki.install(tmp_path)
    assert only_reason(check(bare, registered, load_trust(folder))).endswith(v.UNTRUSTED)
    (folder / "intermediates").mkdir()
    (folder / "intermediates" / "ac-intermediaria.pem").write_bytes(
        pki.intermediate.cert.public_bytes(serialization.Encoding.PEM))
    trust = load_trust(folder)
    assert len(trust.intermediates) == 1 and len(trust.anchors) == 1
    assert check(bare, registered, trust).valid


@pytest.mark.parametrize("byte_range", [b"/ByteRange 12      ", b"/ByteRange (texto) ", b"/ByteRange [0 1 2 x]"])
def test_a_byte_range_that_is_not_four_numbers_is_a_refusal(pki: TestPki, registered: bytes, trust: Trust,
                                                            byte_range: bytes) -> None:
    signed = sign(registered, pki.person("ana"))
    at = signed.rindex(b"/ByteRange")
    end = signed.index(b"]", at) + 1
    broken = signed[:at] + byte_range.ljust(end - at) + signed[end:]
    result = check(broken, registered, trust)
    assert not result.valid and result.reasons


def test_verifying_inside_a_running_event_loop_works_as_outside(pki: TestPki, registered: bytes,
                                                                trust: Trust) -> None:
    """The ASGI service runs an event loop; pyHanko's own asyncio.run would refuse to start inside it."""
    import asyncio

    signed = sign(registered, pki.person("ana"))

    async def inside() -> v.Verification:
        return check(signed, registered, trust)

    result = asyncio.run(inside())
    assert result.valid, result.reasons


# -- what a signed revision may add (issue 43, item 11) ---------------------------------------------------------
def _padding(size: int) -> Any:
    """A signer's update that also writes `size` bytes of an object nothing refers to."""
    def change(writer: Any) -> None:
        import os

        from pyhanko.pdf_utils import generic

        writer.add_object(generic.StreamObject(stream_data=os.urandom(size)))
    return change


def test_a_signature_that_adds_megabytes_of_unreferenced_bytes_is_refused(pki: TestPki, registered: bytes,
                                                                          trust: Trust) -> None:
    """A 21 MB version (20 MB added before the signature) was accepted, and every later signer downloaded it."""
    padded = sign(registered, pki.person("ana"), change=_padding(v.MAX_SIGNATURE_GROWTH + 1024))
    reason = only_reason(check(padded, registered, trust))
    assert f"acima do limite de {megabytes(v.MAX_SIGNATURE_GROWTH)} por assinatura" in reason, reason
    first = sign(registered, pki.person("ana"))
    second = sign(first, pki.person("bruno"), change=_padding(v.MAX_SIGNATURE_GROWTH + 1024))
    result = check(second, registered, trust, previous=first)
    assert result.signatures[0].valid and not result.signatures[1].valid


def test_a_signature_with_an_ordinary_appearance_is_well_within_the_bound(pki: TestPki, registered: bytes,
                                                                          trust: Trust) -> None:
    signed = sign(registered, pki.person("ana"), visible=True, change=_padding(100 * 1024))
    assert check(signed, registered, trust).valid
