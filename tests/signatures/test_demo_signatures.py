"""The demo's signed acts (issue 27 §2): made at seed time with the demo PKI and verified by the product."""
from __future__ import annotations

from pathlib import Path

from cryptography import x509

from valuation.db.blobs import BlobStore
from valuation.db.shared import using
from valuation.demo.signatures import DEMO_ROOT
from valuation.signatures import records
from valuation.signatures.trust import load_trust
from valuation.signatures.verify import verify_signed


def test_the_demo_has_signed_minutes_a_signed_statement_and_a_refusal(full_demo_db: Path) -> None:
    with using(full_demo_db, read_only=True) as s:
        docs = s.fetch("SELECT d.code, d.kind, d.sha256, d.size, count(*) FILTER (WHERE g.outcome = 'valid') AS ok, "
                       "count(*) FILTER (WHERE g.outcome = 'refused') AS refused, max(g.reason) AS reason "
                       "FROM document_signatures g JOIN issued_documents d ON d.id = g.document_id "
                       "GROUP BY ALL ORDER BY d.kind, ok DESC")
        status = {(d["kind"], d["ok"]): records.signature_status(s, d["code"]) for d in docs}
        last = s.fetch_one("SELECT g.file_sha256, d.sha256, d.size FROM document_signatures g JOIN issued_documents d "
                           "ON d.id = g.document_id WHERE d.kind = 'minutes' AND g.outcome = 'valid' "
                           "ORDER BY g.id DESC LIMIT 1")
        cpfs = {r["cpf"] for r in s.fetch("SELECT cpf FROM users WHERE cpf IS NOT NULL")}
    assert [(d["kind"], d["ok"], d["refused"]) for d in docs] == [("minutes", 3, 0), ("minutes", 0, 1),
                                                                    ("statement", 1, 0)]
    assert status[("minutes", 3)].text == "assinado por 3 de 6"          # type: ignore[union-attr]
    assert status[("statement", 1)].text == "assinado por 1 de 1"        # type: ignore[union-attr]
    assert "não é o de quem deve assinar este documento" in docs[1]["reason"]
    trust = load_trust(full_demo_db.parent / "trust")
    (anchor,) = trust.anchors
    assert DEMO_ROOT in x509.load_der_x509_certificate(anchor).subject.rfc4514_string()
    assert last is not None
    signed = BlobStore.for_database(full_demo_db).read(last["file_sha256"])     # re-verified from the stored file
    again = verify_signed(signed, registered=signed[:last["size"]], expected_cpfs=cpfs, trust=trust)
    assert again.valid and len(again.signatures) == 3, again.reasons
