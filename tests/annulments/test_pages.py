"""Issue 42 item 5 on the pages (AppTest on the small world): "Registrar etapa" no longer pre-selects a request —
sent without a choice it names the field and writes nothing —; "Anular etapa registrada por engano" annuls a step
with its reason (refused without one, nothing written), the deadline it started leaves "O que a Autoridade deve";
"Anular evento registrado por engano" does the same for a deadline event, the list of events shows its
annulment; a company is offered no annulment."""
from __future__ import annotations

from datetime import date
from typing import Any

from tests.support.ui import clean_tab, selectbox
from valuation.deadlines import events
from valuation.proceedings import requests

TAB = "O que a Autoridade deve"
REASON = "Lançada no requerimento errado."


def _tab(world: Any, who: str, tab: str = TAB) -> Any:
    return clean_tab(world.path, world.principal(who), "deadlines", tab)


def _click(at: Any, label: str) -> Any:
    next(b for b in at.button if b.label == label).click()
    at.run()
    assert not at.exception, at.exception
    return at


def _errors(at: Any) -> str:
    return " ".join(str(e.value) for e in at.error).replace("\\", "")


def _two_requests(world: Any) -> tuple[int, int]:
    dpc = world.principal("dpc")
    ids = tuple(requests.file_request(world.store, dpc, {"wreck_code": code, "organisation_id": world.ids[org],
                                                          "filed_on": date(2026, 9, 1), "matter": "pesquisa"})
                for code, org in (("NAU-1890-02", "org_b"), ("NAU-1750-04", "org_a")))
    return ids[0], ids[1]


def test_registrar_etapa_preselects_no_request_and_names_the_field(small_world: Any) -> None:
    _two_requests(small_world)
    at = _tab(small_world, "dpc")
    assert selectbox(at, "Requerimento").value is None
    at.text_input(key="step_day").set_value("03/09/2026")
    at = _click(at, "Registrar etapa")
    assert "Requerimento: escolha o requerimento." in _errors(at), _errors(at)
    assert not at.success
    assert small_world.store.scalar("SELECT count(*) FROM request_steps") == 0


def test_a_step_is_annulled_on_the_page_with_its_reason(small_world: Any) -> None:
    _right, wrong = _two_requests(small_world)
    dpc = small_world.principal("dpc")
    step = requests.record_step(small_world.store, dpc, wrong, {"kind": "opinion_requested", "day": date(2026, 9, 10)})
    at = _tab(small_world, "dpc")
    assert selectbox(at, "Etapa a anular").value is None
    at.text_input(key="annul_step_reason").set_value(REASON)
    at = _click(at, "Anular etapa")                                   # no step chosen
    assert "Etapa a anular: escolha a etapa." in _errors(at), _errors(at)
    selectbox(at, "Etapa a anular").set_value(step)
    at.text_input(key="annul_step_reason").set_value("")
    at = _click(at, "Anular etapa")                                   # no reason
    assert "Motivo da anulação: campo obrigatório." in _errors(at), _errors(at)
    assert small_world.store.scalar("SELECT count(*) FROM annulments") == 0
    selectbox(at, "Etapa a anular").set_value(step)
    at.text_input(key="annul_step_reason").set_value(REASON)
    at = _click(at, "Anular etapa")
    assert not at.error, _errors(at)
    assert any(f"Etapa nº {step} anulada" in s.value for s in at.success)
    assert small_world.store.fetch("SELECT record_table, record_id, reason, annulled_by FROM annulments") == [
        {"record_table": "request_steps", "record_id": step, "reason": REASON, "annulled_by": "dpc.silva"}]
    assert not [r for r in requests.authority_deadlines(small_world.store, dpc, as_of=date(2026, 11, 30))
                if r["request_id"] == wrong and r["rule"] == "process_opinion"]


def test_an_event_is_annulled_on_the_page_and_the_list_shows_it(small_world: Any) -> None:
    small_world.store.write("test", lambda tx: tx.execute(
        "UPDATE contracts SET starts_on = DATE '2025-01-06', expires_on = DATE '2026-01-05' WHERE code = 'A-1'"))
    event = events.record_event(small_world.store, small_world.principal("dpc"), {
        "kind": "relatório_mensal_entregue", "contract_code": "A-1", "reference": "2025-02",
        "event_date": date(2025, 3, 10)})
    at = _tab(small_world, "dpc", "Registrar")
    assert selectbox(at, "Contrato").value is None                          # the event form chooses no contract either
    selectbox(at, "Evento a anular").set_value(event)
    at.text_input(key="annul_event_reason").set_value(REASON)
    at = _click(at, "Anular evento")
    assert not at.error, _errors(at)
    assert any(f"Evento nº {event} anulado" in s.value for s in at.success)
    shown = "\n".join(d.value.to_string() for d in at.dataframe)
    assert REASON in shown and "Ana Silva (DPC)" in shown
    assert small_world.store.scalar("SELECT count(*) FROM annulments WHERE record_table = 'deadline_events'") == 1


def test_a_company_is_offered_no_annulment(small_world: Any) -> None:
    for tab in (TAB, "Registrar entrega"):
        at = _tab(small_world, "explorer_b", tab)
        labels = [e.label for e in at.expander] + [b.label for b in at.button]
        assert not [x for x in labels if "Anular" in x], labels
