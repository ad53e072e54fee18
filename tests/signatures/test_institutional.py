"""Institutional signing with an A1 (PKCS#12) from the environment (issue 27 §2), verified like any signature."""
from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, pkcs12

from tests.support.pki import TestPki
from valuation.core.errors import InputError
from valuation.signatures.institutional import ENV_FILE, ENV_PASSWORD, institutional_signer, sign_document
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
