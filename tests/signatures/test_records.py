"""Signed uploads of the real minutes, recorded, sealed and audited (issue 27 §2), on a real DuckDB file.

The minutes are issued by the product (`commission.minutes.round_minutes_pdf`, registered with their code);
members sign them with the test PKI (pyHanko), one after another, and send them back."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from tests.signatures.conftest import issued_pdf
from tests.support.commission import run_round
from tests.support.pki import TestPki, overwrite_first_page, sign
from valuation.accounts import users
from valuation.cli.main import main
from valuation.commission import minutes
from valuation.core.errors import AccessDenied, NotFound
from valuation.db import seals
from valuation.db.blobs import BlobStore
from valuation.signatures import records, required
from valuation.signatures.trust import Trust, load_trust
from valuation.signatures.verify import NOT_PREVIOUS, NOT_REGISTERED


@pytest.fixture
def issued(small_world: Any, pki: TestPki) -> dict[str, Any]:
    """A published round's minutes, issued; the president and navy1 have the CPFs of ana and bruno."""
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


def test_the_minutes_require_the_president_and_every_member_who_took_part(issued: dict[str, Any]) -> None:
    status = records.signature_status(issued["store"], issued["code"])
    assert status is not None
    assert status.text == "assinado por 0 de 6" and not status.complete
    assert status.required[0].role == "Presidente da Comissão"
    assert {r.user_id for r in status.required} == {p.id for p in issued["panel"].values()}
    assert "sem CPF cadastrado" in status.missing_text
    assert records.signature_status(issued["store"], "ZZZZZ-ZZZZZ") is None
    assert records.signature_status(issued["store"], "not a code") is None


def test_two_members_sign_one_after_the_other(issued: dict[str, Any], pki: TestPki, trust_here: Trust) -> None:
    store, panel = issued["store"], issued["panel"]
    first = sign(issued["pdf"], pki.person("ana"))
    done = records.record_signed_upload(store, panel["pres"], issued["code"], first, trust=trust_here)
    assert done.valid, done.verification.reasons
    assert done.progress.text == "assinado por 1 de 6"
    second = sign(first, pki.person("bruno"), visible=True)
    done2 = records.record_signed_upload(store, panel["navy1"], issued["code"], second, trust=trust_here)
    assert done2.valid and [s.signer_cpf for s in done2.accepted] == [pki.person("bruno").cpf]
    assert done2.progress.text == "assinado por 2 de 6"
    rows = store.fetch("SELECT revision, signer_cpf, signer_user_id, outcome, reason, file_sha256, revision_end "
                       "FROM document_signatures ORDER BY id")
    assert [(r["revision"], r["signer_user_id"], r["outcome"], r["reason"]) for r in rows] == [
        (1, panel["pres"].id, "valid", None), (2, panel["navy1"].id, "valid", None)]
    blobs = BlobStore.for_database(store.path)
    assert blobs.read(rows[0]["file_sha256"]) == first and blobs.read(rows[1]["file_sha256"]) == second
    audits = store.fetch("SELECT after_json FROM audit_log WHERE action = 'signed_upload_verified' ORDER BY id")
    assert [json.loads(a["after_json"])["verification"] for a in audits] == ["aceita", "aceita"]
    assert "52998224725" not in audits[0]["after_json"]           # the CPF is masked in the audit log


def test_a_refused_upload_is_recorded_with_its_reason_and_its_file_is_not_stored(
        issued: dict[str, Any], pki: TestPki, trust_here: Trust) -> None:
    store, panel = issued["store"], issued["panel"]
    wrong = sign(issued["pdf"], pki.person("carla"))
    done = records.record_signed_upload(store, panel["pres"], issued["code"], wrong, trust=trust_here)
    assert not done.valid and done.progress.text == "assinado por 0 de 6"
    row = store.fetch_one("SELECT outcome, reason, file_sha256 FROM document_signatures")
    assert row is not None and row["outcome"] == "refused"
    assert "não é o de quem deve assinar este documento" in row["reason"]
    assert not BlobStore.for_database(store.path).exists(row["file_sha256"])
    forged = sign(issued["pdf"], pki.person("ana"), change=overwrite_first_page)
    done = records.record_signed_upload(store, panel["pres"], issued["code"], forged, trust=trust_here)
    assert not done.valid and "o arquivo foi alterado depois de emitido" in done.verification.reasons[0]


def test_another_document_or_a_skipped_revision_is_refused(issued: dict[str, Any], pki: TestPki,
                                                           trust_here: Trust) -> None:
    store, panel = issued["store"], issued["panel"]
    other = issued_pdf(code="ZZZZZ99999")      # another document (an act of another record, another code)
    done = records.record_signed_upload(store, panel["pres"], issued["code"], sign(other, pki.person("ana")),
                                        trust=trust_here)
    assert done.verification.problems == (NOT_REGISTERED,)
    first = sign(issued["pdf"], pki.person("ana"))
    assert records.record_signed_upload(store, panel["pres"], issued["code"], first, trust=trust_here).valid
    parallel = sign(issued["pdf"], pki.person("bruno"))          # signed the unsigned file, not the signed one
    done = records.record_signed_upload(store, panel["navy1"], issued["code"], parallel, trust=trust_here)
    assert done.verification.problems == (NOT_PREVIOUS,)


def test_who_may_upload_and_unknown_codes(issued: dict[str, Any], small_world: Any, pki: TestPki,
                                          trust_here: Trust) -> None:
    signed = sign(issued["pdf"], pki.person("ana"))
    with pytest.raises(AccessDenied):
        records.record_signed_upload(issued["store"], small_world.principal("explorer"), issued["code"], signed,
                                     trust=trust_here)
    with pytest.raises(NotFound):
        records.record_signed_upload(issued["store"], issued["panel"]["pres"], "ZZZZZ-ZZZZZ", signed,
                                     trust=trust_here)


def test_a_recorded_signature_changed_behind_the_applications_back_is_named(
        issued: dict[str, Any], pki: TestPki, trust_here: Trust, capsys: pytest.CaptureFixture[str]) -> None:
    store = issued["store"]
    records.record_signed_upload(store, issued["panel"]["pres"], issued["code"], sign(issued["pdf"], pki.person("ana")),
                                 trust=trust_here)
    row_id = int(store.scalar("SELECT id FROM document_signatures"))
    path = store.path
    store.close()
    import duckdb

    con = duckdb.connect(str(path))
    con.execute("UPDATE document_signatures SET outcome = 'refused' WHERE id = ?", [row_id])
    con.close()
    capsys.readouterr()
    assert main(["audit", "verify", "--db", str(path)]) == 1
    named = seals.BY_TABLE["document_signatures"].subject.format(table="document_signatures", id=row_id)
    assert named in json.loads(capsys.readouterr().out)["message"]


@pytest.mark.parametrize(("kind", "expected", "text"), [
    ("minutes", ["Presidente da Comissão", "Membro da Comissão", "Membro da Comissão"], "assinado por 1 de 3"),
    ("statement", ["Autoridade (DPC)"], "assinado por 1 de 1"),
    ("removal_order", ["Autoridade (DPC)"], "assinado por 1 de 1"),
    ("wreck_map", [], "sem assinaturas exigidas"),
])
def test_required_signers_per_kind(kind: str, expected: list[str], text: str) -> None:
    pres = required.Person(1, "Presidente", "52998224725")
    members = [required.Person(1, "Presidente", "52998224725"), required.Person(2, "A", None),
               required.Person(3, "B", "11144477735")]
    found = required.required_signers(kind, president=pres, members=members, authority=required.Person(9, "D", None))
    assert [r.role for r in found] == expected
    status = required.progress(found, [1, 9])             # the president and the authority signed
    assert status.text == text
    assert status.complete == (kind in ("statement", "removal_order"))
    if kind == "minutes":
        assert status.missing_text == "falta: A (Membro da Comissão, sem CPF cadastrado), B (Membro da Comissão)"


def test_a_repeated_signer_adds_nothing_and_blocks_no_one(issued: dict[str, Any], pki: TestPki,
                                                          trust_here: Trust) -> None:
    """Issue 43, item 10: the president's second signature was accepted and became the latest version, so the member
    who was signing the first one meanwhile was refused ('assine o PDF que já traz as assinaturas anteriores')."""
    store, panel, code = issued["store"], issued["panel"], issued["code"]
    first = sign(issued["pdf"], pki.person("ana"))
    assert records.record_signed_upload(store, panel["pres"], code, first, trust=trust_here).valid
    twice = sign(first, pki.person("ana"), field_name="Assinatura_de_novo")
    again = records.record_signed_upload(store, panel["pres"], code, twice, trust=trust_here)
    assert not again.valid and again.progress.text == "assinado por 1 de 6"
    assert [s.reasons for s in again.refused] == [(records.ALREADY_SIGNED,)]
    assert not BlobStore.for_database(store.path).exists(hashlib.sha256(twice).hexdigest())    # not the latest
    meanwhile = sign(first, pki.person("bruno"))                     # signed the first signed version
    done = records.record_signed_upload(store, panel["navy1"], code, meanwhile, trust=trust_here)
    assert done.valid and done.progress.text == "assinado por 2 de 6", done.verification.reasons
