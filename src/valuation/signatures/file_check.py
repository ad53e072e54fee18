"""What /verificar says of a file dropped beside a code (issue 43, item 2): a valid signed revision of a registered
document IS that document, with its signatures listed — a citizen holding the signed act must not read "may have
been altered".

    verdict = check_file(store, code, data)      None for an unknown code

- `registered`: the file is the registered bytes themselves — the act's first revision, as issued, unsigned;
- `signed`: the file is the registered bytes plus incremental updates that only add signatures: a revision the
  product accepted (its sha256 is an accepted upload's: answered from the records, no cryptography) or, otherwise,
  one the verifier (`verify.verify_signed`, the admin's trust folder, the required signers' CPFs, the service's own
  A1) finds unchanged; `progress` counts the valid signatures of required signers in the file ('assinado por 2 de
  6') and `signatures` lists each one of the file (name and masked CPF as the certificate gives them, time,
  outcome) — what the file itself shows to whoever holds it, nothing the records add;
- `altered`: it starts with the registered bytes but its updates change the content (or are not readable);
- `other`: it does not start with the registered bytes — another document, or an altered one.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from valuation.authenticity.codes import parse_code
from valuation.core import clock
from valuation.core.money import format_datetime_br
from valuation.db.store import Store
from valuation.signatures.cpf import masked
from valuation.signatures.institutional import signing_setup
from valuation.signatures.records import required_for
from valuation.signatures.required import Progress, progress
from valuation.signatures.trust import Trust, load_trust, trust_dir
from valuation.signatures.verify import FILE_REASONS, SignatureCheck, verify_signed

REGISTERED, SIGNED, ALTERED, OTHER = "registered", "signed", "altered", "other"


@dataclass(frozen=True)
class FileVerdict:
    kind: str                          # REGISTERED / SIGNED / ALTERED / OTHER
    sha256: str                        # of the file sent
    progress: Progress | None = None   # SIGNED: the required signatures the file carries
    signatures: tuple[str, ...] = ()   # SIGNED / ALTERED: one line per signature of the file (pt-BR)
    reasons: tuple[str, ...] = ()      # ALTERED: why


def _line(n: int, name: str | None, cpf: str | None, at: datetime | None, outcome: str) -> str:
    who = (name or "titular não informado") + (f" (CPF {masked(cpf)})" if cpf else "")
    when = f", assinada em {format_datetime_br(clock.brasilia(at))}" if at is not None else ""
    return f"{n}. {who}{when} — {outcome}"


def _recorded(store: Store, doc: dict[str, Any], sha: str) -> FileVerdict | None:
    """The verdict of an accepted signed revision, from the records (None: not one)."""
    upload = store.scalar("SELECT max(upload_id) FROM document_signatures WHERE document_id = ? AND file_sha256 = ? "
                          "AND outcome = 'valid'", [doc["id"], sha])
    if upload is None:
        return None
    rows = store.fetch("SELECT revision, signer_name, signer_cpf, signer_user_id, signed_at FROM document_signatures "
                       "WHERE document_id = ? AND outcome = 'valid' AND upload_id <= ? ORDER BY revision, upload_id",
                       [doc["id"], upload])
    signed = {int(r["signer_user_id"]) for r in rows if r["signer_user_id"] is not None}
    lines = tuple(_line(int(r["revision"]), r["signer_name"], r["signer_cpf"], clock.aware(r["signed_at"]), "válida")
                  for r in rows)
    return FileVerdict(SIGNED, sha, progress(required_for(store, doc), signed), lines)


def _verified(store: Store, doc: dict[str, Any], data: bytes, sha: str, trust: Trust | None) -> FileVerdict:
    """The verdict of a revision the records do not know: the verifier's."""
    required = required_for(store, doc)
    own = signing_setup().certificate
    v = verify_signed(data, registered=data[:int(doc["size"])], expected_cpfs={r.cpf for r in required if r.cpf},
                      trust=trust or load_trust(trust_dir(db_path=store.path)), issued_at=clock.aware(doc["issued_at"]),
                      institutional=() if own is None else (own,))
    lines = tuple(_line(s.index, s.signer_name, s.signer_cpf, s.signed_at,
                        "válida" if s.valid else "não reconhecida: " + "; ".join(s.reasons)) for s in v.signatures)
    changed = [r for s in v.signatures for r in s.reasons if r in FILE_REASONS]
    if v.problems or changed:
        return FileVerdict(ALTERED, sha, None, lines, tuple(dict.fromkeys((*v.problems, *changed))))
    by_cpf = {r.cpf: r.user_id for r in required if r.cpf}
    authority = required[0].user_id if len(required) == 1 else None
    signed = {uid for s in v.signatures if s.valid for uid in [_signer_of(s, by_cpf, authority)] if uid is not None}
    return FileVerdict(SIGNED, sha, progress(required, signed), lines)


def _signer_of(s: SignatureCheck, by_cpf: dict[str, int], authority: int | None) -> int | None:
    return authority if s.institutional else by_cpf.get(s.signer_cpf or "")


def check_file(store: Store, code: object, data: bytes, *, trust: Trust | None = None) -> FileVerdict | None:
    """What the file `data` is of the document `code` (see the module); None for a malformed or unknown code."""
    parsed = parse_code(code)
    doc = None if parsed is None else store.fetch_one(
        "SELECT id, code, kind, record_table, record_id, issued_at, sha256, size, issued_by FROM issued_documents "
        "WHERE code = ?", [parsed])
    if doc is None:
        return None
    data = bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    size = int(doc["size"])
    if sha == doc["sha256"]:
        return FileVerdict(REGISTERED, sha)
    if len(data) <= size or hashlib.sha256(data[:size]).hexdigest() != doc["sha256"]:
        return FileVerdict(OTHER, sha)
    return _recorded(store, doc, sha) or _verified(store, doc, data, sha, trust)


__all__ = ["ALTERED", "OTHER", "REGISTERED", "SIGNED", "FileVerdict", "check_file"]
