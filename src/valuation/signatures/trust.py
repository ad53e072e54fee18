"""The trust the verifier works from: the anchors and CRLs the admin installed, as files (issue 27 §2).

    trust = load_trust()                      the folder of VALUATION_TRUST_DIR (default data/trust/)
    trust = load_trust(trust_dir(db_path=store.path))   …or, unset, trust/ beside the database (what records uses)
    trust = load_trust(Path("/etc/valuation/trust"))

The folder holds

    anchors/   *.crt, *.pem, *.cer    root certificates trusted as anchors (ICP-Brasil's AC Raiz v5…v10,
                                      the gov.br signing CA "Autoridade Certificadora Raiz do Governo Federal
                                      do Brasil v1"); PEM (one or more certificates) or DER
    intermediates/  *.crt, *.pem, *.cer   intermediate CA certificates (never anchors): links of a path, for
                                      signatures that do not carry their whole chain
    crls/      *.crl                  certificate revocation lists (LCR), DER or PEM, as the CAs publish them,
                                      refreshed by the admin (the CA's distribution point is never fetched)

Nothing is bundled: an empty or missing folder trusts nobody, and every signature is refused for it.
A file that is unreadable, too large or of the wrong kind is skipped and named in `Trust.problems`
(pt-BR, for the admin), never fatal. Bounds: at most `MAX_FILES` files per subfolder; an anchor file up
to `MAX_ANCHOR_BYTES`, a CRL up to `MAX_CRL_BYTES` (gov.br's LCR is ~3 MB with ~71 000 entries), all
CRLs together up to `MAX_CRL_TOTAL_BYTES`. An anchor must be a CA certificate (basicConstraints cA).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization

ENV_VAR = "VALUATION_TRUST_DIR"
DEFAULT_DIR = Path("data") / "trust"
ANCHOR_SUFFIXES = (".crt", ".pem", ".cer")
CRL_SUFFIXES = (".crl",)
MAX_FILES = 200
MAX_ANCHOR_BYTES = 256 * 1024
MAX_CRL_BYTES = 64 * 1024 * 1024
MAX_CRL_TOTAL_BYTES = 256 * 1024 * 1024
_PEM_CERT = b"-----BEGIN CERTIFICATE-----"
_PEM_CRL = b"-----BEGIN X509 CRL-----"


@dataclass(frozen=True)
class Trust:
    """DER bytes of the trusted anchors and of the installed CRLs, and what was skipped."""
    anchors: tuple[bytes, ...] = ()
    crls: tuple[bytes, ...] = ()
    problems: tuple[str, ...] = ()
    folder: str = ""
    anchor_names: tuple[str, ...] = field(default=())
    intermediates: tuple[bytes, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.anchors


def trust_dir(env: Mapping[str, str] | None = None, *, db_path: str | Path | None = None) -> Path:
    """The trust folder: VALUATION_TRUST_DIR of `env` (default: the process's environment), else `trust/` beside the
    database file `db_path` (data/trust/ for the default data/valuation.duckdb), else data/trust/."""
    value = (env if env is not None else os.environ).get(ENV_VAR)
    if value:
        return Path(value)
    if db_path is not None and str(db_path) not in ("", ":memory:"):
        return Path(db_path).resolve().parent / "trust"
    return DEFAULT_DIR


def _files(folder: Path, suffixes: tuple[str, ...], problems: list[str]) -> list[Path]:
    if not folder.is_dir():
        return []
    found = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in suffixes)
    if len(found) > MAX_FILES:
        problems.append(f"{folder.name}/: {len(found)} arquivos, acima do limite de {MAX_FILES}; "
                        f"só os {MAX_FILES} primeiros (em ordem alfabética) foram lidos")
    return found[:MAX_FILES]


def _thousands(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def _read(path: Path, limit: int, problems: list[str]) -> bytes | None:
    try:
        size = path.stat().st_size
        if size > limit:
            problems.append(f"{path.parent.name}/{path.name}: {_thousands(size)} bytes, acima do limite de "
                            f"{_thousands(limit)}; ignorado")
            return None
        return path.read_bytes()
    except OSError:
        problems.append(f"{path.parent.name}/{path.name}: não foi possível ler o arquivo; ignorado")
        return None


def _anchor_certs(path: Path, data: bytes, problems: list[str]) -> list[x509.Certificate]:
    """The CA certificates of one file of anchors/ or intermediates/ (PEM, one or more, or DER)."""
    where = path.parent.name
    try:
        certs = x509.load_pem_x509_certificates(data) if _PEM_CERT in data else [x509.load_der_x509_certificate(data)]
    except ValueError:
        problems.append(f"{where}/{path.name}: não é um certificado X.509 legível (PEM ou DER); ignorado")
        return []
    out = []
    for cert in certs:
        try:
            is_ca = cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
        except (x509.ExtensionNotFound, ValueError):
            is_ca = False
        if not is_ca:
            problems.append(f"{where}/{path.name}: o certificado {cert.subject.rfc4514_string()[:120]} não é de "
                            "uma autoridade certificadora (basicConstraints); ignorado")
            continue
        out.append(cert)
    return out


def _crl(path: Path, data: bytes, problems: list[str]) -> bytes | None:
    try:
        crl = x509.load_pem_x509_crl(data) if _PEM_CRL in data else x509.load_der_x509_crl(data)
    except ValueError:
        problems.append(f"crls/{path.name}: não é uma LCR (lista de certificados revogados) legível; ignorado")
        return None
    return crl.public_bytes(serialization.Encoding.DER)


def load_trust(folder: Path | None = None, *, env: Mapping[str, str] | None = None) -> Trust:
    """The anchors and CRLs installed under `folder` (default `trust_dir(env)`)."""
    root = Path(folder) if folder is not None else trust_dir(env)
    problems: list[str] = []
    anchors: list[bytes] = []
    names: list[str] = []
    for path in _files(root / "anchors", ANCHOR_SUFFIXES, problems):
        data = _read(path, MAX_ANCHOR_BYTES, problems)
        for cert in _anchor_certs(path, data, problems) if data is not None else []:
            der = cert.public_bytes(serialization.Encoding.DER)
            if der not in anchors:
                anchors.append(der)
                names.append(cert.subject.rfc4514_string())
    intermediates: list[bytes] = []
    for path in _files(root / "intermediates", ANCHOR_SUFFIXES, problems):
        data = _read(path, MAX_ANCHOR_BYTES, problems)
        for cert in _anchor_certs(path, data, problems) if data is not None else []:
            der = cert.public_bytes(serialization.Encoding.DER)
            if der not in intermediates and der not in anchors:
                intermediates.append(der)
    crls: list[bytes] = []
    total = 0
    for path in _files(root / "crls", CRL_SUFFIXES, problems):
        data = _read(path, MAX_CRL_BYTES, problems)
        if data is None:
            continue
        if total + len(data) > MAX_CRL_TOTAL_BYTES:
            problems.append(f"crls/{path.name}: as LCRs somadas passariam de {MAX_CRL_TOTAL_BYTES // (1 << 20)} MB; "
                            "ignorado")
            continue
        crl_der = _crl(path, data, problems)
        if crl_der is not None:
            total += len(data)
            crls.append(crl_der)
    return Trust(tuple(anchors), tuple(crls), tuple(problems), str(root), tuple(names), tuple(intermediates))
