"""Protocolo (AppTest): the representative's form has no date field — the system dates the filing — and nothing is
pre-selected; the office's queue lists a filing not examined with its period (Lei 9.784/1999 art. 24) and the exam
recorded through the form takes it off; another company's filing never shows."""
from __future__ import annotations

from typing import Any

from tests.support.attachments import pdf
from tests.support.ui import open_tab, page_as, texts
from valuation.attachments.records import Upload
from valuation.proceedings import filings as records


def _filed(world: Any) -> records.Filed:
    return records.file_electronic(world.store, world.principal("explorer_b"), {
        "kind": "requerimento", "subject": "Pedido de pesquisa do Vapor Bahia", "wreck_code": "NAU-1890-02",
        "matter": "pesquisa"}, [Upload("pedido.pdf", pdf())])


def test_the_representative_dates_nothing_and_chooses_everything(small_world: Any) -> None:
    filed = _filed(small_world)
    small_world.store.close()
    at = page_as(small_world.path, small_world.principal("explorer_b"), "filings")
    assert not at.exception, at.exception
    assert all(t.placeholder != "dd/mm/aaaa" for t in at.text_input)
    assert all(s.value is None for s in at.selectbox)
    assert "A data do protocolo é a do sistema" in texts(at)
    at.button[0].click().run()      # submitted with nothing chosen: the fields are named, nothing written
    shown = texts(at)
    assert "O que é protocolado" in shown and "envie ao menos um arquivo" in shown
    at = open_tab(at, "filings", "Meus protocolos")
    assert not at.exception, at.exception
    listed = at.dataframe[0].value
    assert listed["Protocolo"].tolist() == [filed.filing_id]
    assert listed["Assunto"].tolist() == ["Pedido de pesquisa do Vapor Bahia"]
    other = page_as(small_world.path, small_world.principal("explorer_a"), "filings")
    other = open_tab(other, "filings", "Meus protocolos")
    assert not other.dataframe and "Nenhum protocolo registrado." in texts(other)


def test_the_office_examines_its_queue(small_world: Any) -> None:
    filed = _filed(small_world)
    small_world.store.close()
    at = page_as(small_world.path, small_world.principal("office_rj"), "filings")
    assert not at.exception, at.exception
    queue = at.dataframe[0].value
    assert queue["Protocolo"].tolist() == [f"protocolo nº 1 do requerimento nº {filed.request_id}"]
    assert "Examinar até" in queue.columns
    box = next(s for s in at.selectbox if s.label == "Protocolo examinado")
    assert box.value is None
    box.set_value(filed.filing_id)
    next(t for t in at.text_input if t.label == records.LABELS["note"]).set_value("Juntado ao processo")
    next(b for b in at.button if b.label == "Registrar exame").click().run()
    assert not at.exception, at.exception
    assert f"Exame do protocolo nº {filed.filing_id} registrado." in texts(at)
    at = page_as(small_world.path, small_world.principal("office_rj"), "filings")
    assert "Nenhum protocolo a examinar." in texts(at)


def test_the_office_intimates_and_the_representative_opens_it(small_world: Any) -> None:
    from valuation.proceedings import intimations

    filed = _filed(small_world)
    small_world.store.close()
    at = page_as(small_world.path, small_world.principal("office_rj"), "filings")
    at = open_tab(at, "filings", "Intimar")
    assert not at.exception, at.exception
    boxes = {s.label: s for s in at.selectbox}
    assert all(b.value is None for b in boxes.values())
    boxes[intimations.LABELS["request_id"]].set_value(filed.request_id)
    boxes[intimations.LABELS["act"]].set_value("information_requested")
    boxes[intimations.LABELS["delivery"]].set_value("sistema")
    next(t for t in at.text_area if t.label == intimations.LABELS["text"]).set_value("Apresente as plantas.")
    next(b for b in at.button if b.label == "Emitir a intimação").click().run()
    assert not at.exception, at.exception
    assert "Intimação nº 1 emitida" in texts(at)
    assert at.dataframe[0].value["Ciência"].tolist()[0].startswith("aguardando ciência (tácita em ")
    rep = page_as(small_world.path, small_world.principal("explorer_b"), "filings")
    rep = open_tab(rep, "filings", "Intimações")
    next(s for s in rep.selectbox if s.label == "Intimação").set_value(1).run()
    next(b for b in rep.button if b.label == "Abrir a intimação").click().run()
    assert not rep.exception, rep.exception
    assert rep.dataframe[0].value["Ciência"].tolist()[0].startswith("ciência expressa em ")
    assert any(b.label == "Baixar a intimação (PDF)" for b in rep.get("download_button"))
