"""Prazos → "O que a Autoridade deve", the DPC's forms (AppTest on the small world): filing a request through
"Protocolar requerimento" writes one row; a bad field is named in Portuguese and nothing is written; a step is
recorded through "Registrar etapa" (a hearing without its day refused naming the field); an explorer is offered
no form."""
from __future__ import annotations

from datetime import date
from typing import Any

from tests.support.ui import clean_tab, selectbox, set_date, texts
from valuation.proceedings import requests

TAB = "O que a Autoridade deve"
W2 = "NAU-1890-02"   # the small world's CPRJ wreck


def _tab(world: Any, who: str) -> Any:
    return clean_tab(world.path, world.principal(who), "deadlines", TAB)


def _errors(at: Any) -> str:
    return " ".join(str(e.value) for e in at.error).replace("\\", "")


def _file(at: Any, world: Any, filed: str, *, company: bool = True) -> Any:
    selectbox(at, "Naufrágio").set_value(W2)
    selectbox(at, "Assunto").set_value("reclamação")
    selectbox(at, "Empresa requerente").set_value(world.ids["org_b"] if company else None)
    at.text_input(key="request_filed_on").set_value(filed)
    at.text_input(key="request_note").set_value("Protocolado pelo formulário.")
    next(b for b in at.button if b.label == "Protocolar").click()
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_dpc_files_a_request_through_the_form(small_world: Any) -> None:
    from valuation.process import numbers

    numbers.set_protocol_unit(small_world.store, small_world.principal("dpc"), "CPRJ", "54321")
    at = _tab(small_world, "dpc")
    assert "Requerimentos em aberto, por idade (0)" in [h.value for h in at.subheader]
    at = _file(at, small_world, "01/09/2026")
    assert not at.error, _errors(at)
    # the tables below the form are read after the write — kept per store revision (ui/cache), never stale
    assert "Requerimentos em aberto, por idade (1)" in [h.value for h in at.subheader], [h.value for h in at.subheader]
    told = " ".join(s.value for s in at.success).replace("\\", "")
    assert "Requerimento nº" in told and "protocolado — NUP: 54321.000001/2026-06" in told, told
    rows = small_world.store.fetch("SELECT w.code, q.matter, q.requester_id, q.organisation_id, q.filed_on, q.note, "
                                   "q.office_code, q.recorded_by FROM requests q JOIN wrecks w ON w.id = q.wreck_id")
    assert rows == [{"code": W2, "matter": "reclamação", "requester_id": None, "organisation_id": small_world.ids[
        "org_b"], "filed_on": date(2026, 9, 1), "note": "Protocolado pelo formulário.", "office_code": "CPRJ",
        "recorded_by": "dpc.silva"}]


def test_a_bad_field_is_named_and_nothing_is_written(small_world: Any) -> None:
    at = _file(_tab(small_world, "dpc"), small_world, "31/02/2026")            # no such day
    assert "Data do protocolo" in _errors(at), _errors(at)
    at = _file(at, small_world, "01/09/2026", company=False)                      # nobody requests
    assert "Responsável requerente: informe quem requer" in _errors(at), _errors(at)
    assert not at.success
    assert small_world.store.scalar("SELECT count(*) FROM requests") == 0


def test_the_dpc_records_a_step_through_the_form(small_world: Any) -> None:
    dpc = small_world.principal("dpc")
    request_id = requests.file_request(small_world.store, dpc, {
        "wreck_code": W2, "organisation_id": small_world.ids["org_b"], "filed_on": date(2026, 9, 1),
        "matter": "pesquisa"})
    at = _tab(small_world, "dpc")
    selectbox(at, "Requerimento").set_value(request_id)
    selectbox(at, "Etapa").set_value("hearing_set")
    set_date(at, "Data da etapa", date(2026, 11, 20))
    next(b for b in at.button if b.label == "Registrar etapa").click()
    at.run()
    assert "Data marcada (comparecimento, diligência ou prazo fixado): informe o dia" in _errors(at), _errors(at)
    assert small_world.store.scalar("SELECT count(*) FROM request_steps") == 0
    set_date(at, "Data marcada (comparecimento, diligência ou prazo fixado)", date(2026, 12, 4))
    next(b for b in at.button if b.label == "Registrar etapa").click()
    at.run()
    assert not at.exception and not at.error, _errors(at)
    assert small_world.store.fetch("SELECT request_id, kind, day, reference_day FROM request_steps") == [
        {"request_id": request_id, "kind": "hearing_set", "day": date(2026, 11, 20),
         "reference_day": date(2026, 12, 4)}]


def test_an_explorer_is_offered_no_form(small_world: Any) -> None:
    requests.file_request(small_world.store, small_world.principal("dpc"), {
        "wreck_code": W2, "organisation_id": small_world.ids["org_b"], "filed_on": date(2026, 9, 1),
        "matter": "pesquisa"})
    at = _tab(small_world, "explorer_b")
    assert "Requerimentos em aberto" in texts(at)           # the tab is drawn, its own company's request in it
    labels = {b.label for b in at.button} | {e.label for e in at.expander}
    assert not labels & {"Protocolar", "Registrar etapa", "Protocolar requerimento"}, labels
    dpc = _tab(small_world, "dpc")
    assert {"Protocolar", "Registrar etapa"} <= {b.label for b in dpc.button}
