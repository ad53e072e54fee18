"""The signatures on the pages that offer the acts (issue 27 §2): the Commission's minutes tab and the statements
page show 'assinado por N de M', who is missing and each signature; the upload box's handler
(`ui.signatures.submit`) finds which issued act a signed file is, verifies and records it, and answers in
Portuguese. Real minutes, real DuckDB file, the test PKI (pyHanko signatures), trust installed beside the database
as the admin would (`signatures.trust.trust_dir`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.commission import run_round
from tests.support.pki import TestPki, sign
from tests.support.ui import open_tab, page_as, texts
from ui import signatures as signatures_ui
from valuation.accounts import users
from valuation.commission import minutes
from valuation.signatures import listing


@pytest.fixture
def issued(small_world: Any, pki: TestPki, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.delenv("VALUATION_TRUST_DIR", raising=False)
    panel, round_id = run_round(small_world)
    admin = small_world.principal("admin")
    users.set_cpf(small_world.store, admin, panel["pres"].id, pki.person("ana").cpf)
    users.set_cpf(small_world.store, admin, panel["navy1"].id, pki.person("bruno").cpf)
    pki.install(Path(small_world.path).resolve().parent / "trust")
    data = minutes.round_minutes_pdf(small_world.store, panel["pres"], round_id)
    return {"panel": panel, "round_id": round_id, "pdf": data, "store": small_world.store, "world": small_world}


def test_the_minutes_list_their_signing_and_an_upload_is_found_by_its_bytes(issued: dict[str, Any],
                                                                            pki: TestPki) -> None:
    store, panel, rid = issued["store"], issued["panel"], issued["round_id"]
    acts = listing.documents_of(store, panel["pres"], "assessment_rounds", rid)
    assert len(acts) == 1 and acts[0].progress.text == "assinado por 0 de 6" and not acts[0].rows
    signed = sign(issued["pdf"], pki.person("ana"))
    assert listing.matching_code(store, panel["pres"], "assessment_rounds", rid, signed) == acts[0].code
    assert listing.matching_code(store, panel["pres"], "assessment_rounds", rid, b"%PDF-1.7 outro") is None
    ok, lines = signatures_ui.submit(store, panel["pres"], "assessment_rounds", rid, signed)
    assert ok, lines
    assert lines[0] == f"Documento {acts[0].code}: assinado por 1 de 6."
    after = listing.documents_of(store, panel["pres"], "assessment_rounds", rid)[0]
    assert after.progress.text == "assinado por 1 de 6" and after.has_signed_file
    assert [(r.outcome, r.signatures, r.reason) for r in after.rows] == [
        ("aceita", "ANA MARIA DE SOUZA (CPF ***.982.247-**) — válida", "")]
    assert listing.latest_signed(store, panel["navy1"], "assessment_rounds", rid, after.code) == signed
    # the next member signs the signed revision: the signatures add up
    ok2, lines2 = signatures_ui.submit(store, panel["navy1"], "assessment_rounds", rid,
                                       sign(signed, pki.person("bruno")))
    assert ok2 and lines2[0].endswith("assinado por 2 de 6."), lines2


def test_a_refused_upload_says_why_in_portuguese(issued: dict[str, Any], pki: TestPki) -> None:
    store, panel, rid = issued["store"], issued["panel"], issued["round_id"]
    ok, lines = signatures_ui.submit(store, panel["pres"], "assessment_rounds", rid,
                                     sign(issued["pdf"], pki.person("carla")))   # not on the panel
    assert not ok and lines[0].endswith("assinado por 0 de 6.")
    assert any("CPF" in line for line in lines[1:]), lines
    row = listing.documents_of(store, panel["pres"], "assessment_rounds", rid)[0].rows[0]
    assert row.outcome == "recusada" and row.reason
    ok, lines = signatures_ui.submit(store, panel["pres"], "assessment_rounds", rid, b"%PDF-1.4\n" + b"x" * 100)
    assert not ok and lines == [signatures_ui.NOT_THIS]


def test_who_may_not_read_the_minutes_sees_no_act(issued: dict[str, Any]) -> None:
    world = issued["world"]
    assert listing.documents_of(issued["store"], world.principal("explorer_a"), "assessment_rounds",
                                issued["round_id"]) == []
    assert listing.documents_of(issued["store"], world.principal("dpc"), "nowhere", issued["round_id"]) == []
    assert listing.documents_of(issued["store"], world.principal("dpc"), "assessment_rounds", "1") == []


def test_the_minutes_tab_shows_the_status_who_is_missing_and_each_signature(issued: dict[str, Any],
                                                                            pki: TestPki) -> None:
    store, panel, rid = issued["store"], issued["panel"], issued["round_id"]
    signatures_ui.submit(store, panel["pres"], "assessment_rounds", rid, sign(issued["pdf"], pki.person("ana")))
    store.close()
    at = page_as(issued["world"].path, panel["pres"], "commission")
    open_tab(at, "commission", "Ata")
    assert not at.exception, [e.value for e in at.exception]
    shown = texts(at).replace("\\", "")      # md() escapes the punctuation
    assert "assinado por 1 de 6" in shown and "falta:" in shown
    assert "Enviar PDF assinado" in [b.label for b in at.button] or "Enviar PDF assinado" in shown
    frames = [df.value for df in at.dataframe if "Assinaturas novas" in df.value.columns]
    assert frames and frames[0]["Resultado"].tolist() == ["aceita"]
    assert frames[0]["Assinaturas novas"].tolist() == ["ANA MARIA DE SOUZA (CPF ***.982.247-**) — válida"]


def test_verificar_answers_the_signature_count_and_nothing_of_the_signers(issued: dict[str, Any],
                                                                          pki: TestPki) -> None:
    from service.verify import with_signatures
    from valuation.authenticity import registry

    store, panel, rid = issued["store"], issued["panel"], issued["round_id"]
    code = listing.documents_of(store, panel["pres"], "assessment_rounds", rid)[0].code
    assert with_signatures(store, registry.lookup(store, code)).signature == "assinado por 0 de 6"   # type: ignore
    signatures_ui.submit(store, panel["pres"], "assessment_rounds", rid, sign(issued["pdf"], pki.person("ana")))
    answer = with_signatures(store, registry.lookup(store, code))
    assert answer is not None and answer.signature == "assinado por 1 de 6"
    assert with_signatures(store, None) is None


def test_the_statements_page_shows_the_issuers_signature_to_dpc_and_to_the_explorer(small_world: Any) -> None:
    from tests.support.partition import AS_OF, T1, prepare, ready_a1
    from valuation.partition import statements

    prepare(small_world)
    ready_a1(small_world)
    dpc = small_world.principal("dpc")
    draft = statements.create_draft(small_world.store, dpc, "A-1", as_of=AS_OF, now=T1)
    doc = statements.issue_statement(small_world.store, dpc, draft, now=T1)
    acts = listing.documents_of(small_world.store, dpc, "statements", doc.id)
    assert [a.progress.text for a in acts] == ["assinado por 0 de 1"]
    assert listing.documents_of(small_world.store, small_world.principal("explorer_b"), "statements", doc.id) == []
    small_world.store.close()
    for who in ("dpc", "explorer_a"):
        at = page_as(small_world.path, small_world.principal(who), "statements")
        assert not at.exception, [e.value for e in at.exception]
        shown = texts(at).replace("\\", "")
        assert "Assinatura eletrônica" in shown and "assinado por 0 de 1" in shown, who
        assert "Autoridade (DPC)" in shown, who
        uploads = [b for b in at.button if b.label == "Enviar PDF assinado"]
        assert bool(uploads) == (who == "dpc"), who           # an explorer reads the status, never signs here
