"""The demo's signed acts (issue 27 §2), made at seed time with a demo PKI, verified by the product's verifier.

- a demo PKI made with `cryptography`: a root clearly named "AC Raiz de DEMONSTRAÇÃO do valuation (sem valor
  legal)", an intermediate, one certificate per signer with the ICP-Brasil otherName 2.16.76.1.3.1 (birth date +
  the user's demo CPF); the private keys live only while the demo seeds and are never written anywhere;
- the demo installs its root and CRLs as the admin would, in `<database folder>/trust/` (the verifier's default
  folder for that database: `signatures.trust.trust_dir`), so uploads keep verifying in the demo — always there,
  even when VALUATION_TRUST_DIR names another folder (a demo root never reaches an admin's real folder);
- the published round's minutes are issued and signed by the president and two members, one after the other
  (three incremental signatures, each upload verified against the previous one): "assinado por 3 de 6";
- the latest issued statement is signed institutionally (`signatures.institutional.sign_document`) with the
  issuing DPC authority's certificate;
- the closed round's minutes come back signed by a person who is not on the panel: refused, with its reason.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from valuation.commission import minutes
from valuation.db.access import Principal
from valuation.signatures import institutional, records
from valuation.signatures.cpf import ICP_PERSON_OID
from valuation.signatures.trust import load_trust, trust_dir

if TYPE_CHECKING:
    from valuation.db.store import Store

DEMO_ROOT = "AC Raiz de DEMONSTRAÇÃO do valuation (sem valor legal)"
DEMO_CA = "AC de DEMONSTRAÇÃO do valuation (sem valor legal)"
OUTSIDER = ("PESSOA ALHEIA À COMISSÃO", "39053344705")


@dataclass
class _Ca:
    key: ec.EllipticCurvePrivateKey
    cert: x509.Certificate


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "BR"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "valuation — demonstração"),
                      x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _cert(subject: x509.Name, key: Any, issuer: _Ca | None, now: datetime, *, ca: bool,
          cpf: str | None = None) -> x509.Certificate:
    usage = dict(digital_signature=not ca, content_commitment=not ca, key_encipherment=False, data_encipherment=False,
                 key_agreement=False, key_cert_sign=ca, crl_sign=ca, encipher_only=False, decipher_only=False)
    builder = (x509.CertificateBuilder().subject_name(subject)
               .issuer_name(issuer.cert.subject if issuer else subject).public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - timedelta(days=400)).not_valid_after(now + timedelta(days=3650))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=1 if ca and issuer is None else 0 if ca
                                                    else None), critical=True)
               .add_extension(x509.KeyUsage(**usage), critical=True))
    if cpf is not None:      # DOC-ICP-04: birth date (8) + CPF (11) + NIS (11) + RG (15) + issuing body (6)
        value = ("01011980" + cpf + "0" * 26 + "SSPDF ").encode("ascii")
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.OtherName(ICP_PERSON_OID, bytes([0x04, len(value)]) + value)]), critical=False)
    return builder.sign(issuer.key if issuer else key, hashes.SHA256())


def _crl(ca: _Ca, now: datetime) -> bytes:
    crl = (x509.CertificateRevocationListBuilder().issuer_name(ca.cert.subject).last_update(now - timedelta(hours=1))
           .next_update(now + timedelta(days=3650)).add_extension(x509.CRLNumber(1), critical=False)
           .sign(ca.key, hashes.SHA256()))
    return crl.public_bytes(serialization.Encoding.DER)


class DemoPki:
    """Root → intermediate → one certificate per (name, CPF); `signer(cpf)` is pyHanko's SimpleSigner."""

    def __init__(self, now: datetime) -> None:
        self.now = now
        root_key = ec.generate_private_key(ec.SECP256R1())
        self.root = _Ca(root_key, _cert(_name(DEMO_ROOT), root_key, None, now, ca=True))
        ca_key = ec.generate_private_key(ec.SECP256R1())
        self.ca = _Ca(ca_key, _cert(_name(DEMO_CA), ca_key, self.root, now, ca=True))
        self._people: dict[str, tuple[Any, x509.Certificate]] = {}

    def person(self, name: str, cpf: str) -> None:
        key = ec.generate_private_key(ec.SECP256R1())
        self._people[cpf] = (key, _cert(_name(name[:64]), key, self.ca, self.now, ca=False, cpf=cpf))

    def install(self, folder: Path) -> Path:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        (folder / "anchors").mkdir(mode=0o700, exist_ok=True)
        (folder / "crls").mkdir(mode=0o700, exist_ok=True)
        (folder / "anchors" / "demo-ac-raiz-DEMONSTRACAO.crt").write_bytes(
            self.root.cert.public_bytes(serialization.Encoding.PEM))
        (folder / "crls" / "demo-ac-raiz-DEMONSTRACAO.crl").write_bytes(_crl(self.root, self.now))
        (folder / "crls" / "demo-ac-DEMONSTRACAO.crl").write_bytes(_crl(self.ca, self.now))
        return folder

    def signer(self, cpf: str) -> Any:
        from asn1crypto import keys as asn1_keys
        from asn1crypto import x509 as asn1_x509
        from pyhanko.sign import signers
        from pyhanko_certvalidator.registry import SimpleCertificateStore

        key, cert = self._people[cpf]
        der = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())

        def load(c: x509.Certificate) -> Any:
            return asn1_x509.Certificate.load(c.public_bytes(serialization.Encoding.DER))

        return signers.SimpleSigner(signing_cert=load(cert), signing_key=asn1_keys.PrivateKeyInfo.load(der),
                                    cert_registry=SimpleCertificateStore.from_certs([load(self.ca.cert),
                                                                                     load(self.root.cert)]))


def _principal(store: Store, username: str) -> Principal:
    row = store.fetch_one("SELECT id, username, full_name, role, organisation_id, commission_body FROM users "
                          "WHERE username = ?", [username])
    assert row is not None
    return Principal(int(row["id"]), row["username"], row["full_name"], row["role"], row["organisation_id"],
                     row["commission_body"])


def _code(store: Store, table: str, record_id: int) -> str:
    return str(store.scalar("SELECT code FROM issued_documents WHERE record_table = ? AND record_id = ? "
                            "ORDER BY id DESC LIMIT 1", [table, record_id]))


def seed_signature_demo(store: Store) -> dict[str, int]:
    """Sign the demo's acts (module docstring); returns the signature rows added."""
    if int(store.scalar("SELECT count(*) FROM document_signatures")):
        return {"document_signatures": 0}
    published = store.fetch_one("SELECT id, president_id FROM assessment_rounds WHERE status = 'publicada' "
                                "ORDER BY id LIMIT 1")
    if published is None:
        return {"document_signatures": 0}      # not the demo data set
    now = datetime.now(UTC)
    pki = DemoPki(now)
    panel = store.fetch("SELECT username, full_name, cpf FROM users WHERE cpf IS NOT NULL ORDER BY id")
    for row in panel:
        pki.person(row["full_name"], row["cpf"])
    pki.person(*OUTSIDER)
    # beside the demo's own database, never VALUATION_TRUST_DIR: a demo root must not reach an admin's real folder
    trust = load_trust(pki.install(trust_dir({}, db_path=store.path)))
    cpf_of = {r["username"]: r["cpf"] for r in panel}
    president = _principal(store, str(store.scalar("SELECT username FROM users WHERE id = ?",
                                                   [published["president_id"]])))
    data = minutes.round_minutes_pdf(store, president, int(published["id"]))
    code = _code(store, "assessment_rounds", int(published["id"]))
    signers_ = [president.username] + [str(r["username"]) for r in store.fetch(
        "SELECT DISTINCT u.username FROM assessment_log a JOIN users u ON u.id = a.member_id WHERE a.round_id = ? "
        "AND u.id <> ? ORDER BY u.username LIMIT 2", [published["id"], published["president_id"]])]
    for username in signers_:
        data = institutional.sign_document(data, pki.signer(cpf_of[username]), field_name=f"Assinatura_{username}",
                                           reason="Ata da Comissão assinada pelo membro")
        records.record_signed_upload(store, _principal(store, username), code, data, trust=trust)
    _statement(store, pki, trust, cpf_of)
    _refused(store, pki, trust, president)
    return {"document_signatures": int(store.scalar("SELECT count(*) FROM document_signatures"))}


def _statement(store: Store, pki: DemoPki, trust: Any, cpf_of: dict[str, str]) -> None:
    row = store.fetch_one("SELECT s.id, s.pdf, d.issued_by FROM statements s JOIN issued_documents d ON "
                          "d.record_table = 'statements' AND d.record_id = s.id AND d.sha256 = s.pdf_sha256 "
                          "WHERE s.pdf IS NOT NULL ORDER BY s.id DESC LIMIT 1")
    if row is None or row["issued_by"] not in cpf_of:
        return
    signed = institutional.sign_document(bytes(row["pdf"]), pki.signer(cpf_of[row["issued_by"]]))
    records.record_signed_upload(store, _principal(store, row["issued_by"]),
                                 _code(store, "statements", int(row["id"])), signed, trust=trust)


def _refused(store: Store, pki: DemoPki, trust: Any, president: Principal) -> None:
    closed = store.fetch_one("SELECT id FROM assessment_rounds WHERE status IN ('encerrada', 'decidida') "
                             "ORDER BY id LIMIT 1")
    if closed is None:
        return
    data = minutes.round_minutes_pdf(store, president, int(closed["id"]))
    signed = institutional.sign_document(data, pki.signer(OUTSIDER[1]), field_name="Assinatura_alheia",
                                         reason="Assinatura de quem não é da Comissão")
    records.record_signed_upload(store, president, _code(store, "assessment_rounds", int(closed["id"])), signed,
                                 trust=trust)


__all__ = ["DEMO_ROOT", "DemoPki", "seed_signature_demo"]
