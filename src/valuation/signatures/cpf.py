"""Who a signing certificate names: its holder's CPF and name (issue 27 §2). Pure: DER in, text out.

Where the CPF is:

- **ICP-Brasil** (DOC-ICP-04, "Requisitos Mínimos para as Políticas de Certificados na ICP-Brasil",
  item 7.1.2.3, approved by Resolução CG ICP-Brasil nº 179/2020): a person's certificate carries in its
  subject alternative name an otherName with OID 2.16.76.1.3.1 whose content is, "nas primeiras 8 (oito)
  posições, a data de nascimento do titular, no formato ddmmaaaa; nas 11 (onze) posições subsequentes, o
  Cadastro de Pessoa Física (CPF) do titular", followed by the NIS (11), the RG (15) and its issuing body
  and state (6). The same layout is used by the otherNames of ICP-Brasil's attribute certificates
  (2.16.76.1.10.1, DOU 27/12/2018, seção 1, p. 34) and by the RFB's e-CPF ("Leiaute dos Certificados
  Digitais da Secretaria da Receita Federal do Brasil", e-CPF extensions). The ACs encode the value as an
  OCTET STRING, a PrintableString, a UTF8String or an IA5String: all are read.
- **gov.br's signer** (certificates of the "AC Final do Governo Federal do Brasil v1", hierarchy of the
  "Autoridade Certificadora Raiz do Governo Federal do Brasil v1", policy 2.16.76.3.2.1.x): no normative
  text was found that says where the CPF goes. A public report of a real gov.br-signed sample (a
  project's documentation, read in the code corpus) shows the same otherName 2.16.76.1.3.1, an OCTET
  STRING of 45 digits in the ICP-Brasil layout, with a subject that holds only the name. This module
  therefore reads gov.br certificates exactly as ICP-Brasil ones. NOT confirmed against an ITI document.
- **Fallback**, only when no otherName 2.16.76.1.3.1 exists: the ICP-Brasil convention of a Common Name
  "NOME DO TITULAR:12345678901" (the e-CPF's CN, name and CPF separated by a colon).

`certificate_cpf` returns the 11 digits or None; whether they pass their check digits is the caller's
question (`valuation.core.ids.cpf_is_valid`), so a broken CPF can be named as such.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from cryptography import x509
from cryptography.x509.oid import NameOID

ICP_PERSON_OID = x509.ObjectIdentifier("2.16.76.1.3.1")
_STRING_TAGS = {0x04, 0x0C, 0x13, 0x16, 0x1A}      # OCTET, UTF8, Printable, IA5, Visible
_CN_CPF = re.compile(r"^(?P<name>.*?)\s*:\s*(?P<cpf>\d{11})$")
MAX_NAME = 200


@dataclass(frozen=True)
class Holder:
    cpf: str | None                  # 11 digits as found (check digits not verified here)
    name: str                        # the holder's name (CN without a ':CPF' suffix)
    source: str                      # 'otherName 2.16.76.1.3.1' / 'CN' / ''


def _tlv_content(der: bytes) -> bytes | None:
    """The content octets of one DER string value (tag, length, content); None when it is not one."""
    if len(der) < 2 or der[0] not in _STRING_TAGS:
        return None
    length, offset = der[1], 2
    if length & 0x80:
        count = length & 0x7F
        if count == 0 or count > 2 or len(der) < 2 + count:
            return None
        length, offset = int.from_bytes(der[2:2 + count], "big"), 2 + count
    content = der[offset:offset + length]
    return content if len(content) == length else None


def icp_person_cpf(value_der: bytes) -> str | None:
    """The CPF (positions 9–19) of an otherName 2.16.76.1.3.1 value; None when they are not 11 digits."""
    content = _tlv_content(value_der)
    if content is None:
        return None
    text = content.decode("latin-1")
    cpf = text[8:19]
    return cpf if len(cpf) == 11 and cpf.isdigit() and cpf.isascii() else None


def _common_name(cert: x509.Certificate) -> str:
    try:
        values = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    except ValueError:
        return ""
    return str(values[0].value) if values else ""


def holder(cert_der: bytes) -> Holder:
    """The CPF and name a certificate (DER) gives its holder."""
    try:
        cert = x509.load_der_x509_certificate(cert_der)
    except ValueError:
        return Holder(None, "", "")
    cn = _common_name(cert)[:MAX_NAME]
    match = _CN_CPF.match(cn)
    name = match.group("name") if match else cn
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        others = [gn for gn in san if isinstance(gn, x509.OtherName) and gn.type_id == ICP_PERSON_OID]
    except (x509.ExtensionNotFound, ValueError):
        others = []
    if others:
        return Holder(icp_person_cpf(others[0].value), name, "otherName 2.16.76.1.3.1")
    if match:
        return Holder(match.group("cpf"), name, "CN")
    return Holder(None, name, "")


def masked(cpf: str | None) -> str:
    """'52998224725' → '***.982.247-**' (the federal government's public mask of a CPF)."""
    digits = "".join(c for c in (cpf or "") if c.isdigit())
    if len(digits) != 11:
        return "(sem CPF)"
    return f"***.{digits[3:6]}.{digits[6:9]}-**"
