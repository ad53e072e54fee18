"""Filings (issue 42, items 1 and 6) on a real DuckDB file: a company's representative files in the system and gets
a verifiable receipt, dated by the service's clock — it can type no date —; an office records a paper filing with
the day it reached it; the office's queue owes each filing an act in the days of Lei 9.784/1999 art. 24 until the
office examines it.

Reproduction (issue 42): an explorer backdated its own delivery ("Relatório mensal entregue" dated a month earlier
was accepted); a request could only reach the product re-keyed by DPC, with the day DPC typed."""
from __future__ import annotations

import hashlib
from datetime import date, timedelta
from typing import Any

import pytest

from tests.support.attachments import PAGE_OBJECTS, pdf, pdf_of
from valuation.attachments.records import Upload
from valuation.authenticity import registry
from valuation.core.errors import AccessDenied, InputError
from valuation.db import seals
from valuation.proceedings import filing_receipt as receipt
from valuation.proceedings import filings as records
from valuation.proceedings import requests as rq

JS_PDF = pdf_of([b"<</Type/Catalog/Pages 2 0 R/OpenAction 4 0 R>>", *PAGE_OBJECTS[1:],
                 b"<</S/JavaScript/JS(app.alert('DPC'))>>"])


def _new_request(world: Any, key: str = "explorer_b", wreck: str = "NAU-1890-02") -> records.Filed:
    return records.file_electronic(world.store, world.principal(key), {
        "kind": "requerimento", "subject": "Pedido de autorização de pesquisa no Vapor Bahia", "wreck_code": wreck,
        "matter": "pesquisa"}, [Upload("pedido.pdf", pdf())])


def test_a_representative_files_a_request_and_gets_a_verifiable_receipt(small_world: Any) -> None:
    s = small_world.store
    filed = _new_request(small_world)
    req = s.fetch_one("SELECT organisation_id, filed_on, office_code FROM requests WHERE id = ?", [filed.request_id])
    assert req == {"organisation_id": small_world.ids["org_b"], "filed_on": s.today(), "office_code": "CPRJ"}
    assert filed.document_no == 1
    row = s.fetch_one("SELECT channel, received_on, filed_by FROM filings WHERE id = ?", [filed.filing_id])
    assert row == {"channel": "sistema", "received_on": s.today(), "filed_by": "exp.beta"}
    answer = registry.lookup(s, filed.receipt_code)
    assert answer is not None and answer.kind == "filing_receipt" and answer.kind_label == "Recibo de protocolo"
    data = receipt.receipt_file(s, small_world.principal("explorer_b"), filed.filing_id)
    assert hashlib.sha256(data).hexdigest() == answer.sha256
    assert registry.same_bytes(s, filed.receipt_code, data) is True
    # the file as filed, by its digest, and the office's notice
    assert s.scalar("SELECT sha256 FROM filing_files WHERE filing_id = ?", [filed.filing_id]) == \
        hashlib.sha256(pdf()).hexdigest()
    notified = s.fetch("SELECT n.user_id FROM notices n WHERE n.event_key LIKE 'filing_received:%'")
    assert {r["user_id"] for r in notified} >= {small_world.ids["om.rio"]}
    # another company reads nothing of it
    with pytest.raises(Exception, match="não encontrado"):
        receipt.receipt_file(s, small_world.principal("explorer_a"), filed.filing_id)
    assert records.filings_of(s, small_world.principal("explorer_a")) == []


def test_the_filer_can_type_no_date(small_world: Any) -> None:
    s = small_world.store
    before = s.scalar("SELECT count(*) FROM audit_log")
    with pytest.raises(InputError) as err:
        records.file_electronic(s, small_world.principal("explorer_b"), {
            "kind": "requerimento", "subject": "x", "wreck_code": "NAU-1890-02", "matter": "pesquisa",
            "received_on": "03/11/2026"}, [Upload("pedido.pdf", pdf())])
    assert "received_on" in {p.path for p in err.value.problems}
    assert s.scalar("SELECT count(*) FROM audit_log") == before and s.scalar("SELECT count(*) FROM filings") == 0


def test_a_document_with_active_content_or_none_is_refused_by_its_field(small_world: Any) -> None:
    s = small_world.store
    for uploads in ([Upload("pedido.pdf", JS_PDF)], [], [Upload("foto.png", b"\x89PNG\r\n\x1a\n" + b"0" * 64)]):
        with pytest.raises(InputError) as err:
            records.file_electronic(s, small_world.principal("explorer_b"), {
                "kind": "requerimento", "subject": "x", "wreck_code": "NAU-1890-02", "matter": "pesquisa"}, uploads)
        assert {p.path for p in err.value.problems} == {"files"}
        assert all(p.message.startswith("Arquivos (PDF)") for p in err.value.problems)
    assert s.scalar("SELECT count(*) FROM filings") == 0


def test_an_answer_is_numbered_in_its_process_and_ends_the_partys_period(small_world: Any) -> None:
    s = small_world.store
    filed = _new_request(small_world)
    dpc = small_world.principal("dpc")
    rq.record_step(s, dpc, filed.request_id, {"kind": "information_requested", "day": s.today()})
    answer = records.file_electronic(s, small_world.principal("explorer_b"), {
        "kind": "informações", "subject": "Plantas do casco", "request_id": filed.request_id},
        [Upload("plantas.pdf", pdf()), Upload("fotos.pdf", pdf())])
    assert (answer.request_id, answer.document_no, answer.nup) == (filed.request_id, 2, filed.nup)
    steps = rq.request_history(s, dpc, filed.request_id)["steps"]
    assert [(x["kind"], x["day"]) for x in steps][-1] == ("information_provided", s.today())
    # another company's process is not found, as one that does not exist
    with pytest.raises(InputError, match="não encontrado"):
        records.file_electronic(s, small_world.principal("explorer_a"), {
            "kind": "documento", "subject": "x", "request_id": filed.request_id}, [Upload("a.pdf", pdf())])


def test_the_office_records_a_paper_filing_with_the_day_it_reached_it(small_world: Any) -> None:
    s = small_world.store
    officer = small_world.principal("office_rj")
    day = s.today() - timedelta(days=3)
    filed = records.record_received(s, officer, {
        "kind": "requerimento", "subject": "Pedido em papel", "wreck_code": "NAU-1750-04", "matter": "remoção",
        "organisation_id": small_world.ids["org_b"], "channel": "papel", "received_on": day},
        [Upload("digitalizado.pdf", pdf())])
    row = records.filing(s, officer, filed.filing_id)
    assert (row["channel_pt"], row["received_on"], row["filed_by"]) == ("Papel, na Organização Militar", day, "om.rio")
    with pytest.raises(InputError, match="futuro"):
        records.record_received(s, officer, {
            "kind": "documento", "subject": "x", "request_id": filed.request_id, "organisation_id":
            small_world.ids["org_b"], "channel": "e-mail", "received_on": s.today() + timedelta(days=1)},
            [Upload("a.pdf", pdf())])
    # an office records nothing on another office's wrecks
    with pytest.raises(InputError, match="não encontrado"):
        records.record_received(s, officer, {
            "kind": "requerimento", "subject": "x", "wreck_code": "NAU-1668-01", "matter": "pesquisa",
            "organisation_id": small_world.ids["org_a"], "channel": "papel", "received_on": day},
            [Upload("a.pdf", pdf())])


def test_the_queue_owes_each_filing_an_act_until_the_office_examines_it(small_world: Any) -> None:
    s = small_world.store
    filed = _new_request(small_world)
    officer = small_world.principal("office_rj")
    received = s.today()
    rows = [r for r in rq.authority_deadlines(s, officer, as_of=received) if r["rule"] == records.RULE]
    assert len(rows) == 1 and rows[0]["label"] == records.LABEL
    assert rows[0]["case_pt"] == f"protocolo nº 1 do requerimento nº {filed.request_id}"
    assert received + timedelta(days=5) <= rows[0]["due"] <= received + timedelta(days=9)   # moved past a closed day
    assert "art. 24" in rows[0]["basis"]
    assert [r for r in rq.authority_deadlines(s, small_world.principal("explorer_b"), as_of=received)
            if r["rule"] == records.RULE] == []
    with pytest.raises(AccessDenied):
        records.review(s, small_world.principal("explorer_b"), filed.filing_id, "visto")
    records.review(s, officer, filed.filing_id, "Encaminhado à instrução")
    assert [r for r in rq.authority_deadlines(s, officer, as_of=received) if r["rule"] == records.RULE] == []
    with pytest.raises(InputError, match="já foi examinado"):
        records.review(s, small_world.principal("dpc"), filed.filing_id, "de novo")


def test_filings_are_sealed_and_a_changed_row_is_named(small_world: Any) -> None:
    s = small_world.store
    filed = _new_request(small_world)
    assert seals.verify(s)[0] is True
    s.close()
    import duckdb

    con = duckdb.connect(str(small_world.path))
    con.execute("UPDATE filings SET received_on = received_on - 30 WHERE id = ?", [filed.filing_id])
    con.close()
    from valuation.db.store import Store

    with Store(small_world.path) as again:
        ok, text = seals.verify(again)
    expected = f"Protocolo nº {filed.filing_id} (protocolo (peticionamento)): foi alterado"
    assert ok is False and text.startswith(expected), text
    small_world.store = Store(small_world.path)


def test_a_filing_never_accepts_a_day_before_its_process(small_world: Any) -> None:
    s = small_world.store
    filed = _new_request(small_world)
    with pytest.raises(InputError, match="anterior ao protocolo"):
        records.record_received(s, small_world.principal("dpc"), {
            "kind": "documento", "subject": "x", "request_id": filed.request_id, "organisation_id":
            small_world.ids["org_b"], "channel": "SEI", "received_on": date(2020, 1, 2)}, [Upload("a.pdf", pdf())])
