"""The removal order is a registered, signed act (issue 43, item 15): 'removal_order' was listed as signable in four
modules, but nothing issued it, the registry refused the kind and no page showed its panel. Now the order is issued
once as a PDF (code, CRC, QR, NUP), signed by the institutional A1 as it is issued, downloaded as it stands, and its
missing signature is owed like any act's. Real order in the small world, the test PKI, pyHanko."""
from __future__ import annotations

import io
from datetime import date
from pathlib import Path
from typing import Any

import pypdf
import pytest
from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, pkcs12

from tests.support.pki import TestPki
from tests.support.ui import page_as, texts
from valuation.core.errors import AccessDenied
from valuation.proceedings import removal_order_act
from valuation.registry import removal_orders
from valuation.signatures import file_check, pending, records

ORDER = {"wreck_code": "NAU-1890-02", "kind": "remoção", "act": "Ofício nº 7/2026-CPRJ", "ordered_on": "02/03/2026",
         "notice": "pessoal", "notified_on": "05/03/2026", "starts_by": "01/04/2026", "ends_by": "30/09/2026",
         "reason": "Casco no canal de acesso ao porto: obstáculo à navegação."}


@pytest.fixture(scope="module")
def pki() -> TestPki:
    return TestPki.build()


@pytest.fixture
def order(small_world: Any, pki: TestPki, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    a1 = pki.person("carla")
    path = tmp_path / "a1.p12"
    path.write_bytes(pkcs12.serialize_key_and_certificates(b"a1", a1.key, a1.cert, a1.chain,
                                                           BestAvailableEncryption(b"Senha-A1")))
    monkeypatch.setenv("VALUATION_SIGNING_P12", str(path))
    monkeypatch.setenv("VALUATION_SIGNING_P12_PASSWORD", "Senha-A1")
    monkeypatch.setenv("VALUATION_TRUST_DIR", str(pki.install(tmp_path / "trust")))
    order_id = removal_orders.record_removal_order(small_world.store, small_world.principal("dpc"), ORDER)
    return {"world": small_world, "id": order_id, "store": small_world.store, "dpc": small_world.principal("dpc")}


def test_the_order_is_issued_once_signed_and_verifiable(order: dict[str, Any]) -> None:
    store, dpc, oid = order["store"], order["dpc"], order["id"]
    assert removal_order_act.order_act(store, dpc, oid).code is None
    code, signing = removal_order_act.issue_removal_order(store, dpc, oid)
    assert signing.signed and "assinado por 1 de 1" in signing.text, signing.text
    assert records.signature_status(store, code).text == "assinado por 1 de 1"
    again, _ = removal_order_act.issue_removal_order(store, dpc, oid)            # issued once
    assert again == code and store.scalar("SELECT count(*) FROM issued_documents WHERE kind = 'removal_order'") == 1
    data = removal_order_act.removal_order_file(store, dpc, oid)
    assert data is not None
    verdict = file_check.check_file(store, code, data)
    assert verdict is not None and verdict.kind == file_check.SIGNED and verdict.progress is not None
    assert verdict.progress.text == "assinado por 1 de 1"
    text = " ".join(" ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages).split())
    for said in ("Determinação de remoção nº", "NAU-1890-02", "Vapor Bahia", "Companhia de Navegação Bahiana",
                 "art. 5", "art. 10", "01/04/2026", "30/09/2026", code):
        assert said in text, said
    assert "22° 54" not in text and "54,35" not in text                      # never the wreck's position


def test_a_changed_order_is_a_new_act(order: dict[str, Any]) -> None:
    store, dpc, oid = order["store"], order["dpc"], order["id"]
    first, _ = removal_order_act.issue_removal_order(store, dpc, oid)
    removal_orders.change_removal_dates(store, dpc, oid, {"starts_by": date(2026, 5, 1), "ends_by": date(2026, 11, 30)})
    act = removal_order_act.order_act(store, dpc, oid)
    assert act.code == first and not act.current
    second, signing = removal_order_act.issue_removal_order(store, dpc, oid)
    assert second != first and signing.signed and removal_order_act.order_act(store, dpc, oid).current


def test_only_dpc_reads_or_issues_it(order: dict[str, Any]) -> None:
    world = order["world"]
    for who in ("commission", "explorer_a", "admin"):
        with pytest.raises(AccessDenied):
            removal_order_act.issue_removal_order(order["store"], world.principal(who), order["id"])
        with pytest.raises(AccessDenied):
            removal_order_act.removal_order_file(order["store"], world.principal(who), order["id"])


def test_an_unsigned_order_is_owed_like_any_act(order: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VALUATION_SIGNING_P12")
    monkeypatch.delenv("VALUATION_SIGNING_P12_PASSWORD")
    code, signing = removal_order_act.issue_removal_order(order["store"], order["dpc"], order["id"])
    assert not signing.signed and not signing.configured
    rows = pending.deadline_rows(order["store"], order["dpc"], as_of=order["store"].today())
    assert [r["act"] for r in rows] == [f"determinacao-{order['id']}"] and code[:5] in rows[0]["case_pt"]


def test_the_domain_page_issues_it_and_shows_its_signatures(order: dict[str, Any]) -> None:
    order["store"].close()
    at = page_as(order["world"].path, order["dpc"], "domain")
    next(b for b in at.button if b.label == "Emitir determinação (PDF)").click().run()
    assert not at.exception, [e.value for e in at.exception]
    shown = texts(at).replace("\\", "")
    assert "Emitida a determinação nº" in shown and "Assinado com o certificado institucional" in shown, shown[-800:]
    assert "assinado por 1 de 1" in shown and not any(b.label == "Emitir determinação (PDF)" for b in at.button)
