"""A test PKI made with `cryptography`, shaped like ICP-Brasil's and gov.br's (issue 27 §2).

    pki = TestPki.build()                 a root, an intermediate, their CRLs, end-entity certificates
    pki.person("ana")                     a Person: key, certificate, CPF, name
    pki.install(folder)                   writes anchors/ and crls/ as an admin would (VALUATION_TRUST_DIR)
    sign(pdf_bytes, person, pki)          an incremental PAdES signature made with pyHanko, as a signer would

The end-entity certificates carry the holder's data in the subject alternative name's otherName
2.16.76.1.3.1 (DOC-ICP-04 layout: birth date ddmmaaaa, CPF, NIS, RG, issuing body), encoded as an
OCTET STRING like gov.br's signer; one is revoked (listed on the intermediate's CRL), one expired,
one issued by a root the verifier does not trust, one without any CPF, one with a broken CPF.
Real keys, real signatures: nothing in the verifier is mocked.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

ICP_PERSON_OID = x509.ObjectIdentifier("2.16.76.1.3.1")
NOW = datetime.now(UTC).replace(microsecond=0)
CRL_URL = "http://lcr.teste.invalid/ac-intermediaria.crl"
ROOT_CRL_URL = "http://lcr.teste.invalid/ac-raiz.crl"


def _name(cn: str, org: str = "ICP-Teste") -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "BR"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, org),
                      x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def icp_person_value(cpf: str, birth: str = "15051980") -> bytes:
    """The otherName 2.16.76.1.3.1 content: birth (8) + CPF (11) + NIS (11) + RG (15) + issuing body (6)."""
    return (birth + cpf + "0" * 11 + "0" * 15 + "SSPDF ").encode("ascii")


def _octet_string(content: bytes) -> bytes:
    assert len(content) < 128
    return bytes([0x04, len(content)]) + content


@dataclass
class Authority:
    name: str
    key: ec.EllipticCurvePrivateKey
    cert: x509.Certificate
    crl_url: str | None
    revoked: list[tuple[int, datetime]] = field(default_factory=list)

    def crl(self, *, this_update: datetime | None = None, next_update: datetime | None = None,
            extra: tuple[tuple[int, datetime], ...] = ()) -> x509.CertificateRevocationList:
        """This authority's CRL: its revoked serials (and `extra` ones), valid from an hour ago for 7 days."""
        builder = (x509.CertificateRevocationListBuilder().issuer_name(self.cert.subject)
                   .last_update(this_update or NOW - timedelta(hours=1))
                   .next_update(next_update or NOW + timedelta(days=7)))
        for serial, when in [*self.revoked, *extra]:
            builder = builder.add_revoked_certificate(
                x509.RevokedCertificateBuilder().serial_number(serial).revocation_date(when).build())
        builder = builder.add_extension(x509.CRLNumber(1), critical=False)
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()), critical=False)
        return builder.sign(self.key, hashes.SHA256())


@dataclass
class Person:
    label: str
    name: str
    cpf: str | None
    key: Any                                   # an EC key, or RSA for the gov.br-like signer
    cert: x509.Certificate
    chain: list[x509.Certificate]             # the issuing CAs (intermediate, root), embedded in the signature


def _ca(name: str, key: ec.EllipticCurvePrivateKey, issuer: Authority | None, crl_url: str | None,
        *, path_length: int | None) -> x509.Certificate:
    subject = _name(name)
    builder = (x509.CertificateBuilder().subject_name(subject)
               .issuer_name(issuer.cert.subject if issuer else subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(NOW - timedelta(days=3650)).not_valid_after(NOW + timedelta(days=3650))
               .add_extension(x509.BasicConstraints(ca=True, path_length=path_length), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                            key_encipherment=False, data_encipherment=False, key_agreement=False,
                                            key_cert_sign=True, crl_sign=True, encipher_only=False,
                                            decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False))
    if issuer is not None:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()), critical=False)
        if issuer.crl_url:
            builder = builder.add_extension(x509.CRLDistributionPoints([x509.DistributionPoint(
                [x509.UniformResourceIdentifier(issuer.crl_url)], None, None, None)]), critical=False)
    return builder.sign(issuer.key if issuer else key, hashes.SHA256())


def _end_entity(issuer: Authority, name: str, key: Any, *, other_name: bytes | None,
                not_before: datetime, not_after: datetime, serial: int | None = None) -> x509.Certificate:
    builder = (x509.CertificateBuilder().subject_name(_name(name))
               .issuer_name(issuer.cert.subject).public_key(key.public_key())
               .serial_number(serial or x509.random_serial_number())
               .not_valid_before(not_before).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=True,
                                            key_encipherment=False, data_encipherment=False, key_agreement=False,
                                            key_cert_sign=False, crl_sign=False, encipher_only=False,
                                            decipher_only=False), critical=True)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()),
                              critical=False))
    if issuer.crl_url:
        builder = builder.add_extension(x509.CRLDistributionPoints([x509.DistributionPoint(
            [x509.UniformResourceIdentifier(issuer.crl_url)], None, None, None)]), critical=False)
    names: list[x509.GeneralName] = [x509.RFC822Name(f"{name.split()[0].lower()}@teste.invalid")]
    if other_name is not None:
        names.insert(0, x509.OtherName(ICP_PERSON_OID, _octet_string(other_name)))
    builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(issuer.key, hashes.SHA256())


@dataclass
class TestPki:
    root: Authority
    intermediate: Authority
    stranger_root: Authority
    people: dict[str, Person]

    __test__ = False     # not a pytest class

    @classmethod
    def build(cls) -> TestPki:
        root_key = new_key()
        root = Authority("AC Raiz de Teste", root_key, _ca("AC Raiz de Teste", root_key, None, None,
                                                              path_length=1), ROOT_CRL_URL)
        inter_key = new_key()
        intermediate = Authority("AC Intermediária de Teste", inter_key,
                                 _ca("AC Intermediária de Teste", inter_key, root, None, path_length=0), CRL_URL)
        stranger_key = new_key()
        stranger = Authority("AC Raiz Desconhecida", stranger_key,
                             _ca("AC Raiz Desconhecida", stranger_key, None, None, path_length=1), None)
        pki = cls(root, intermediate, stranger, {})
        valid = (NOW - timedelta(days=365), NOW + timedelta(days=365))
        pki.add_person("ana", "ANA MARIA DE SOUZA", "52998224725", intermediate, valid)
        pki.add_person("bruno", "BRUNO COSTA LIMA", "11144477735", intermediate, valid)
        pki.add_person("carla", "CARLA DIAS", "39053344705", intermediate, valid)
        pki.add_person("revoked", "RAFAEL REVOGADO", "15350946056", intermediate, valid,
                 revoked_at=NOW - timedelta(days=10))
        pki.add_person("expired", "EDUARDO EXPIRADO", "71428793860", intermediate,
                 (NOW - timedelta(days=800), NOW - timedelta(days=30)))
        pki.add_person("stranger", "SILVIO ESTRANHO", "86288366757", stranger, valid)
        pki.add_person("no_cpf", "NINGUEM SEM CPF", None, intermediate, valid)
        pki.add_person("bad_cpf", "CPF QUEBRADO", "52998224700", intermediate, valid)
        pki.add_person("govbr", "GINA GOV BR", "52998224725", intermediate, valid, rsa_key=True)   # ana's CPF, RSA key
        return pki

    def add_person(self, label: str, name: str, cpf: str | None, issuer: Authority, validity: tuple[datetime, datetime],
             *, revoked_at: datetime | None = None, rsa_key: bool = False) -> None:
        key: Any = rsa.generate_private_key(public_exponent=65537, key_size=2048) if rsa_key else new_key()
        cert = _end_entity(issuer, name, key, other_name=None if cpf is None else icp_person_value(cpf),
                           not_before=validity[0], not_after=validity[1])
        if revoked_at is not None:
            issuer.revoked.append((cert.serial_number, revoked_at))
        chain = [issuer.cert] if issuer is self.stranger_root else [issuer.cert, self.root.cert]
        self.people[label] = Person(label, name, cpf, key, cert, chain)

    def person(self, label: str) -> Person:
        return self.people[label]

    def install(self, folder: Path, *, crls: bool = True,
                intermediate_crl: x509.CertificateRevocationList | None = None) -> Path:
        """The files an admin installs: the trusted root in anchors/, the CRLs of root and intermediate in
        crls/ (`intermediate_crl` instead of the current one)."""
        (folder / "anchors").mkdir(parents=True, exist_ok=True)
        (folder / "crls").mkdir(parents=True, exist_ok=True)
        (folder / "anchors" / "ac-raiz-teste.crt").write_bytes(self.root.cert.public_bytes(serialization.Encoding.PEM))
        if crls:
            (folder / "crls" / "ac-raiz.crl").write_bytes(self.root.crl().public_bytes(serialization.Encoding.DER))
            (folder / "crls" / "ac-intermediaria.crl").write_bytes(
                (intermediate_crl or self.intermediate.crl()).public_bytes(serialization.Encoding.DER))
        return folder


def _asn1(cert: x509.Certificate):  # type: ignore[no-untyped-def]
    from asn1crypto import x509 as asn1_x509

    return asn1_x509.Certificate.load(cert.public_bytes(serialization.Encoding.DER))


def sign(data: bytes, person: Person, *, field_name: str | None = None, visible: bool = False,
         change=None, adobe: bool = False, chain: bool = True) -> bytes:  # type: ignore[no-untyped-def]
    """`data` with one more PAdES signature of `person`, appended as an incremental update (pyHanko);
    `change(writer)` alters the document in the signature's own revision first (a forger's signer); `adobe`:
    the /SubFilter adbe.pkcs7.detached gov.br's signer writes, instead of ETSI.CAdES.detached; `chain=False`:
    only the signer's certificate is embedded, not its CAs'."""
    from asn1crypto import keys as asn1_keys
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers
    from pyhanko_certvalidator.registry import SimpleCertificateStore

    key_der = person.key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption())
    signer = signers.SimpleSigner(signing_cert=_asn1(person.cert),
                                  signing_key=asn1_keys.PrivateKeyInfo.load(key_der),
                                  cert_registry=SimpleCertificateStore.from_certs(
                                      [_asn1(c) for c in person.chain] if chain else []))
    writer = IncrementalPdfFileWriter(io.BytesIO(data), strict=False)
    if change is not None:
        change(writer)
    name = field_name or f"Assinatura_{person.label}"
    spec = fields.SigFieldSpec(name, box=(40, 700, 240, 760) if visible else None)
    subfilter = fields.SigSeedSubFilter.ADOBE_PKCS7_DETACHED if adobe else fields.SigSeedSubFilter.PADES
    meta = signers.PdfSignatureMetadata(field_name=name, subfilter=subfilter, md_algorithm="sha256")
    out = signers.PdfSigner(meta, signer=signer, new_field_spec=spec).sign_pdf(writer)
    return bytes(out.getvalue())


# -- changes a forger would make, as incremental updates (pyHanko's writer) --------------------------------
def _writer(data: bytes):  # type: ignore[no-untyped-def]
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    return IncrementalPdfFileWriter(io.BytesIO(data), strict=False)


def overwrite_first_page(writer, text: bytes = b"VALOR ALTERADO") -> None:  # type: ignore[no-untyped-def]
    """Replace page 1's content by a stream drawing `text` (in the writer's pending revision)."""
    from pyhanko.pdf_utils import generic

    page_ref = writer.root["/Pages"].raw_get("/Kids")[0]
    page = page_ref.get_object()
    stream = generic.StreamObject(stream_data=b"BT /F1 24 Tf 72 720 Td (" + text + b") Tj ET")
    page["/Contents"] = writer.add_object(stream)
    writer.update_container(page)


def add_javascript(writer) -> None:  # type: ignore[no-untyped-def]
    from pyhanko.pdf_utils import generic

    action = generic.DictionaryObject({generic.pdf_name("/S"): generic.pdf_name("/JavaScript"),
                                       generic.pdf_name("/JS"): generic.pdf_string("app.alert('oi')")})
    writer.root["/OpenAction"] = writer.add_object(action)
    writer.update_root()


def add_embedded_file(writer) -> None:  # type: ignore[no-untyped-def]
    from pyhanko.pdf_utils import embed

    spec = embed.FileSpec(file_spec_string="anexo.txt",
                          embedded_data=embed.EmbeddedFileObject.from_file_data(writer, data=b"conteudo"))
    embed.embed_file(writer, spec)


def updated(data: bytes, change) -> bytes:  # type: ignore[no-untyped-def]
    """`data` plus one incremental update made by `change(writer)`."""
    writer = _writer(data)
    change(writer)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
