"""Issue 45, items 8 and 9 — who may send a signed file, and a refusal after a valid signature is recorded.

Reproductions (each failed before the fix), on the real minutes signed with the test PKI:
- item 9: any Commission member (a member of another round, DPC too) holding an issued act's PDF could send
  "its signed file": each upload added permanent refused rows to the act's signatures, and the result they
  got back listed the required signers with their CPFs. Only those who must sign a document may send its
  signed file; anyone else is refused before anything is verified or written.
- item 8: once the act had a valid signature, a file that is not the registered document was answered
  "Outra versão assinada deste documento foi registrada enquanto…" (the conflict check compared the last valid
  upload with none) and nothing was recorded; it is refused for what it is — not the registered document —
  and recorded like any refusal.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.commission import add_member, run_round
from tests.support.pki import TestPki, sign
from valuation.accounts import users
from valuation.commission import minutes
from valuation.core.errors import AccessDenied
from valuation.exports import PdfReport
from valuation.signatures import records
from valuation.signatures.trust import Trust, load_trust
from valuation.signatures.verify import NOT_REGISTERED


@pytest.fixture
def issued(small_world: Any, pki: TestPki) -> dict[str, Any]:
    panel, round_id = run_round(small_world)
    admin = small_world.principal("admin")
    users.set_cpf(small_world.store, admin, panel["pres"].id, pki.person("ana").cpf)
    users.set_cpf(small_world.store, admin, panel["navy1"].id, pki.person("bruno").cpf)
    data = minutes.round_minutes_pdf(small_world.store, panel["pres"], round_id)
    code = small_world.store.scalar("SELECT code FROM issued_documents WHERE kind = 'minutes' AND record_id = ? "
                                    "ORDER BY id DESC LIMIT 1", [round_id])
    return {"panel": panel, "round_id": round_id, "pdf": data, "code": code, "store": small_world.store}


@pytest.fixture
def trust_here(pki: TestPki, tmp_path: Path) -> Trust:
    return load_trust(pki.install(tmp_path / "trust"))


def _rows(store: Any) -> int:
    return int(store.scalar("SELECT count(*) FROM document_signatures"))


def test_only_who_must_sign_may_send_the_signed_file(issued: dict[str, Any], small_world: Any, pki: TestPki,
                                                     trust_here: Trust) -> None:
    store = issued["store"]
    signed = sign(issued["pdf"], pki.person("ana"))
    outsider = add_member(store, "com.fora", "Cap. Outro Membro", "navy")      # a member outside this round
    audit = store.scalar("SELECT count(*) FROM audit_log")
    for who in (outsider, small_world.principal("dpc")):
        with pytest.raises(AccessDenied) as refused:
            records.record_signed_upload(store, who, issued["code"], signed, trust=trust_here)
        assert "deve assinar" in str(refused.value)
        assert pki.person("ana").cpf not in str(refused.value)
    assert _rows(store) == 0 and store.scalar("SELECT count(*) FROM audit_log") == audit   # nothing written
    done = records.record_signed_upload(store, issued["panel"]["pres"], issued["code"], signed, trust=trust_here)
    assert done.valid and _rows(store) == 1                                    # a signer still may


def test_another_document_after_a_valid_signature_is_refused_for_what_it_is_and_recorded(
        issued: dict[str, Any], pki: TestPki, trust_here: Trust) -> None:
    store, panel = issued["store"], issued["panel"]
    first = sign(issued["pdf"], pki.person("ana"))
    assert records.record_signed_upload(store, panel["pres"], issued["code"], first, trust=trust_here).valid
    other = PdfReport("Outro documento").paragraph("Não é a ata registrada.").bytes()   # another document
    done = records.record_signed_upload(store, panel["navy1"], issued["code"], sign(other, pki.person("bruno")),
                                        trust=trust_here)
    assert done.verification.problems == (NOT_REGISTERED,) and not done.valid
    row = store.fetch_one("SELECT outcome, reason, uploaded_by FROM document_signatures WHERE upload_id = ?",
                          [done.upload_id])
    assert row is not None and row["outcome"] == "refused" and row["uploaded_by"] == panel["navy1"].username
    assert NOT_REGISTERED in row["reason"]
