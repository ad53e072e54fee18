"""The admin's trust folder (bounded, nothing bundled) and the CPF a certificate names (DOC-ICP-04)."""
from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from tests.support.pki import TestPki, icp_person_value
from valuation.signatures import trust as trust_mod
from valuation.signatures.cpf import holder, icp_person_cpf, masked
from valuation.signatures.trust import load_trust, trust_dir

PEM = serialization.Encoding.PEM
DER = serialization.Encoding.DER


def test_the_folder_comes_from_the_environment_and_defaults_to_data_trust() -> None:
    assert trust_dir({}) == Path("data") / "trust"
    assert trust_dir({"VALUATION_TRUST_DIR": "/etc/valuation/trust"}) == Path("/etc/valuation/trust")
    assert trust_dir({}, db_path="/srv/dados/valuation.duckdb") == Path("/srv/dados/trust")
    assert trust_dir({"VALUATION_TRUST_DIR": "/etc/t"}, db_path="/srv/dados/valuation.duckdb") == Path("/etc/t")


def test_an_empty_or_missing_folder_trusts_nobody(tmp_path: Path) -> None:
    loaded = load_trust(tmp_path / "absent")
    assert loaded.empty and loaded.crls == () and loaded.problems == ()


def test_anchors_in_pem_bundles_and_der_and_crls_in_pem_are_read(pki: TestPki, tmp_path: Path) -> None:
    (tmp_path / "anchors").mkdir()
    (tmp_path / "crls").mkdir()
    bundle = pki.root.cert.public_bytes(PEM) + pki.stranger_root.cert.public_bytes(PEM)
    (tmp_path / "anchors" / "raizes.pem").write_bytes(bundle)
    (tmp_path / "anchors" / "raiz.cer").write_bytes(pki.root.cert.public_bytes(DER))     # the same again
    (tmp_path / "crls" / "lcr.crl").write_bytes(pki.intermediate.crl().public_bytes(PEM))
    loaded = load_trust(tmp_path)
    assert len(loaded.anchors) == 2 and len(loaded.crls) == 1 and loaded.problems == ()
    assert loaded.anchor_names == ("CN=AC Raiz de Teste,O=ICP-Teste,C=BR", "CN=AC Raiz Desconhecida,O=ICP-Teste,C=BR")


def test_bad_files_are_skipped_and_named(pki: TestPki, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "anchors").mkdir()
    (tmp_path / "crls").mkdir()
    (tmp_path / "anchors" / "lixo.crt").write_bytes(b"nao sou um certificado")
    (tmp_path / "anchors" / "pessoa.pem").write_bytes(pki.person("ana").cert.public_bytes(PEM))
    (tmp_path / "anchors" / "grande.crt").write_bytes(b"0" * (trust_mod.MAX_ANCHOR_BYTES + 1))
    (tmp_path / "anchors" / "leia-me.txt").write_bytes(b"ignored: not an anchor suffix")
    (tmp_path / "crls" / "lixo.crl").write_bytes(b"nao sou uma LCR")
    loaded = load_trust(tmp_path)
    assert loaded.empty and loaded.crls == ()
    text = "\n".join(loaded.problems)
    assert "anchors/lixo.crt: não é um certificado X.509 legível" in text
    assert "anchors/pessoa.pem: o certificado CN=ANA MARIA DE SOUZA" in text and "não é de uma autoridade" in text
    assert "anchors/grande.crt: 262.145 bytes, acima do limite de 262.144; ignorado" in text
    assert "crls/lixo.crl: não é uma LCR" in text and "leia-me" not in text
    monkeypatch.setattr(trust_mod, "MAX_FILES", 2)
    assert "anchors/: 3 arquivos, acima do limite de 2" in "\n".join(load_trust(tmp_path).problems)


@pytest.mark.parametrize(("value", "expected"), [
    (b"\x04\x33" + icp_person_value("52998224725"), "52998224725"),          # OCTET STRING (gov.br)
    (b"\x13\x33" + icp_person_value("52998224725"), "52998224725"),          # PrintableString
    (b"\x0c\x33" + icp_person_value("52998224725"), "52998224725"),          # UTF8String
    (b"\x04\x13" + b"15051980" + b"52998224725", "52998224725"),            # only birth date + CPF
    (b"\x04\x0a" + b"1505198052", None),                                     # too short
    (b"\x04\x13" + b"15051980" + b"5299822472X", None),                     # not digits
    (b"\x02\x01\x05", None),                                                 # an INTEGER
    (b"\x04\x81\x33" + icp_person_value("52998224725"), "52998224725"),      # long-form length
    (b"\x04\x85\xff\xff", None),                                             # absurd length
    (b"", None),
])
def test_the_cpf_is_read_at_positions_9_to_19_of_the_otherName(value: bytes, expected: str | None) -> None:
    assert icp_person_cpf(value) == expected


def test_holder_reads_the_otherName_and_falls_back_to_the_cn_convention(pki: TestPki) -> None:
    ana = holder(pki.person("ana").cert.public_bytes(DER))
    assert (ana.cpf, ana.name, ana.source) == ("52998224725", "ANA MARIA DE SOUZA", "otherName 2.16.76.1.3.1")
    nobody = holder(pki.person("no_cpf").cert.public_bytes(DER))
    assert (nobody.cpf, nobody.name) == (None, "NINGUEM SEM CPF")
    assert holder(b"not a certificate").cpf is None
    assert masked("52998224725") == "***.982.247-**" and masked(None) == "(sem CPF)"


def test_a_cn_with_the_cpf_after_a_colon_is_the_fallback(pki: TestPki) -> None:
    from datetime import timedelta

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import NameOID

    from tests.support.pki import NOW, new_key

    key = new_key()
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "FULANO DE TAL:11144477735")]))
            .issuer_name(pki.intermediate.cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(NOW - timedelta(days=1))
            .not_valid_after(NOW + timedelta(days=1)).sign(pki.intermediate.key, hashes.SHA256()))
    found = holder(cert.public_bytes(DER))
    assert (found.cpf, found.name, found.source) == ("11144477735", "FULANO DE TAL", "CN")
