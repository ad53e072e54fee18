"""Institutional signing with an A1 (PKCS#12) from the environment (issue 27 §2), verified like any signature."""
from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, Encoding, pkcs12
from pyhanko.pdf_utils.reader import PdfFileReader

from tests.support.partition import AS_OF, T1, prepare, ready_a1
from tests.support.pki import TestPki
from valuation.core.errors import InputError
from valuation.jobs.configuration import configuration_problems
from valuation.partition import statement_reads, statements
from valuation.signatures import issuing, listing, records
from valuation.signatures.institutional import (
    ENV_FILE,
    ENV_PASSWORD,
    institutional_signer,
    sign_document,
    signing_setup,
)
from valuation.signatures.trust import Trust
from valuation.signatures.verify import verify_signed


def p12(pki: TestPki, folder: Path, password: bytes = b"segredo") -> Path:
    ana = pki.person("ana")
    path = folder / "a1.p12"
    path.write_bytes(pkcs12.serialize_key_and_certificates(b"ana", ana.key, ana.cert, ana.chain,
                                                           BestAvailableEncryption(password)))
    return path


def test_not_configured_means_no_institutional_signature() -> None:
    assert institutional_signer({}) is None


def test_a_statement_leaves_the_office_signed_and_verifies(pki: TestPki, registered: bytes, trust: Trust,
                                                           tmp_path: Path) -> None:
    signer = institutional_signer({ENV_FILE: str(p12(pki, tmp_path)), ENV_PASSWORD: "segredo"})
    signed = sign_document(registered, signer)
    assert signed.startswith(registered)
    result = verify_signed(signed, registered=registered, expected_cpfs={"52998224725"}, trust=trust)
    assert result.valid, result.reasons
    assert result.signatures[0].field == "Assinatura_institucional_DPC"


@pytest.mark.parametrize(("env", "field", "text"), [
    ({ENV_FILE: "/nao/existe.p12"}, ENV_FILE, "Não foi possível ler o arquivo PKCS#12"),
    ({ENV_PASSWORD: "errada"}, ENV_PASSWORD, "senha errada ou arquivo danificado"),
])
def test_a_bad_file_or_password_names_the_variable(pki: TestPki, tmp_path: Path, env: dict[str, str], field: str,
                                                   text: str) -> None:
    full = {ENV_FILE: str(p12(pki, tmp_path)), **env}
    with pytest.raises(InputError) as exc:
        institutional_signer(full)
    (problem,) = exc.value.problems
    assert problem.path == field and text in problem.message and "segredo" not in problem.message


# -- issue 43, item 1: the running service signs what it issues ------------------------------------------------
def _env(path: Path, password: str = "segredo") -> dict[str, str]:
    return {ENV_FILE: str(path), ENV_PASSWORD: password}


def _issue(world: Any, env: dict[str, str], trust: Trust) -> tuple[Any, Any, bytes]:
    prepare(world)
    ready_a1(world)
    dpc = world.principal("dpc")
    draft = statements.create_draft(world.store, dpc, "A-1", as_of=AS_OF, now=T1)
    doc, signing = issuing.issue_statement(world.store, dpc, draft, setup=signing_setup(env), trust=trust)
    registered = statement_reads.statement_pdf(world.store, dpc, doc.id)
    return doc, signing, registered


def test_issuing_a_statement_signs_it_with_the_institutional_a1(small_world: Any, pki: TestPki, trust: Trust,
                                                                tmp_path: Path) -> None:
    """Before, nothing but a test called the signer: DP-2026/0001 went out '0 de 1'. The A1 here names a person who
    is not the issuing officer: it signs for the institution."""
    doc, signing, registered = _issue(small_world, _env(p12(pki, tmp_path)), trust)
    dpc = small_world.principal("dpc")
    assert signing.signed and "assinado por 1 de 1" in signing.text, signing.text
    code = statement_reads.statement_code(small_world.store, dpc, doc.id)
    assert code is not None and records.signature_status(small_world.store, code).text == "assinado por 1 de 1"
    served = listing.current_copy(small_world.store, dpc, "statements", doc.id, registered)
    assert served != registered and served.startswith(registered)      # the registered bytes stay the first revision
    assert hashlib.sha256(registered).hexdigest() == small_world.store.scalar(
        "SELECT sha256 FROM issued_documents WHERE record_table = 'statements' AND record_id = ?", [doc.id])
    (sig,) = PdfFileReader(io.BytesIO(served)).embedded_signatures    # pyHanko: signed by the A1's certificate
    assert sig.signer_cert.dump() == pki.person("ana").cert.public_bytes(Encoding.DER)
    again = verify_signed(served, registered=registered, expected_cpfs=(), trust=trust,
                          institutional=(sig.signer_cert.dump(),))
    assert again.valid and again.signatures[0].institutional, again.reasons
    audit = small_world.store.fetch_one("SELECT actor FROM audit_log WHERE action = 'document_signed_institutionally'")
    assert audit is not None and audit["actor"] == dpc.username


@pytest.mark.parametrize(("broken", "variable"), [
    (lambda path: {ENV_FILE: str(path), ENV_PASSWORD: "Trocada-987"}, ENV_PASSWORD),
    (lambda path: {ENV_FILE: str(path.with_name("nao-existe.p12")), ENV_PASSWORD: "segredo"}, ENV_FILE),
    (lambda path: {ENV_PASSWORD: "segredo"}, ENV_FILE),
])
def test_a_broken_a1_is_named_and_the_act_goes_out_unsigned(small_world: Any, pki: TestPki, trust: Trust,
                                                             tmp_path: Path, broken: Any, variable: str) -> None:
    env = broken(p12(pki, tmp_path))
    (problem,) = configuration_problems(env)             # the start-up log, /saude and Tarefas
    assert problem.variable == variable and variable in problem.text and "segredo" not in problem.text
    assert "Trocada-987" not in problem.text
    doc, signing, _ = _issue(small_world, env, trust)
    assert doc.is_issued and not signing.signed and signing.configured
    assert signing.text.startswith(issuing.UNSIGNED) and variable in signing.text and "Trocada-987" not in signing.text
    code = statement_reads.statement_code(small_world.store, small_world.principal("dpc"), doc.id)
    assert records.signature_status(small_world.store, code).text == "assinado por 0 de 1"


def test_without_an_a1_the_statement_waits_for_the_authoritys_upload(small_world: Any, trust: Trust) -> None:
    doc, signing, _ = _issue(small_world, {}, trust)
    assert not signing.signed and not signing.configured and signing.text == issuing.NOT_CONFIGURED
    assert configuration_problems({}) == ()


def test_an_a1_outside_the_trust_folder_is_refused_and_says_why(small_world: Any, pki: TestPki, trust: Trust,
                                                                tmp_path: Path) -> None:
    stranger = pki.person("stranger")
    path = tmp_path / "alheio.p12"
    path.write_bytes(pkcs12.serialize_key_and_certificates(b"x", stranger.key, stranger.cert, stranger.chain,
                                                           BestAvailableEncryption(b"segredo")))
    doc, signing, _ = _issue(small_world, _env(path), trust)
    assert not signing.signed and "cadeia de certificação confiável" in signing.text, signing.text
