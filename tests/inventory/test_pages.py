"""AppTest: the inventory, custody and found-things pages render for every role that may see them,
refuse the others when reached directly, and their forms call the store (issue 4)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ITEMS
from tests.support.ui import each_tab, open_expander, open_tab, page_as, page_direct, refused, texts
from valuation.db import access
from valuation.db.store import Store

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples"
PAGES = ("inventory", "custody", "found_things")
ROLE_KEYS = {"dpc": "dpc", "commission": "commission", "commission_president": "commission_president",
             "explorer": "explorer_a", "admin": "admin"}


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def widget(widgets, label: str):
    return next(w for w in widgets if w.label == label)


@pytest.mark.parametrize("role", sorted(ROLE_KEYS))
@pytest.mark.parametrize("page", PAGES)
def test_page_renders_or_refuses(small_world, role, page):
    user = small_world.principal(ROLE_KEYS[role])
    if page in access.PAGES_BY_ROLE[role]:
        at = page_as(small_world.path, user, page)
        assert not at.exception, at.exception
        assert not refused(at)
        assert at.title
        for tab in each_tab(at, page):   # every tab renders (only the open one is drawn)
            assert not at.exception, (tab, at.exception)
    else:
        at = page_direct(small_world.path, user, page)
        assert not at.exception, at.exception
        assert refused(at), f"{role} must be refused on {page}"
        assert not at.metric and not at.dataframe      # nothing of the page was shown


@pytest.mark.parametrize("key, items, may_import", [
    ("commission", len(ITEMS), False),
    ("explorer_b", sum(1 for it in ITEMS if it[0] == "B-1"), True),
])
def test_inventory_shows_the_role_scope(small_world, key, items, may_import):
    at = page_as(small_world.path, small_world.principal(key), "inventory")
    assert metric(at, "Itens") == str(items)
    assert ("Importar" in [t.label for t in at.tabs]) is may_import


def test_inventory_upload_refused_then_accepted(small_world):
    at = page_as(small_world.path, small_world.principal("explorer_a"), "inventory")
    before = int(metric(at, "Itens"))                                          # the Consultar tab's count
    open_tab(at, "inventory", "Importar")
    assert widget(at.selectbox, "Contrato vigente").options == ["A-1"]         # not the survey A-2
    assert widget(at.selectbox, "Contrato vigente").value is None              # never chosen for the person
    widget(at.selectbox, "Contrato vigente").set_value("A-1")
    at.file_uploader[0].set_value(("com_erros.csv", (SAMPLES / "itens_galeao_santo_antonio_com_erros.csv")
                                   .read_bytes(), "text/csv"))
    at.run()
    widget(at.button, "Importar").click().run()
    assert not at.exception
    assert any("nada foi gravado" in e.value and "13, 74, 150" in e.value for e in at.error)
    table = at.table[0].value
    assert table["Linha"].tolist() == ["13", "74", "150"]
    open_tab(at, "inventory", "Consultar")
    assert int(metric(at, "Itens")) == before
    open_tab(at, "inventory", "Importar")
    at.file_uploader[0].set_value(("itens.csv", (SAMPLES / "itens_galeao_santo_antonio.csv").read_bytes(), "text/csv"))
    at.run()
    widget(at.button, "Importar").click().run()
    assert not at.exception and not at.error
    assert any("200 itens gravados no contrato A-1" in s.value for s in at.success)
    open_tab(at, "inventory", "Consultar")
    assert int(metric(at, "Itens")) == before + 200


def delivery_contract(at):
    """The delivery form's contract (the list's filter above it is labelled "Contrato" too)."""
    return [s for s in at.selectbox if s.label == "Contrato"][-1]


def test_custody_form_records_a_delivery(small_world):
    at = page_as(small_world.path, small_world.principal("dpc"), "custody")
    undelivered = int(metric(at, "Não entregues"))
    assert undelivered == sum(1 for it in ITEMS if it[7] is None)
    delivery_contract(at).set_value("A-1")
    widget(at.text_area, "Códigos dos itens (um por linha ou separados por vírgula)").set_value("A1-003\nA1-004")
    widget(at.text_input, "Recebido por (posto e nome)").set_value("CT Souza")
    widget(at.text_input, "Local da entrega").set_value("CPBA, Salvador")
    widget(at.button, "Registrar entrega").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("2 itens do contrato A-1" in s.value for s in at.success)
    assert int(metric(at, "Não entregues")) == undelivered - 2


def test_custody_form_shows_every_problem(small_world):
    at = page_as(small_world.path, small_world.principal("dpc"), "custody")
    widget(at.text_area, "Códigos dos itens (um por linha ou separados por vírgula)").set_value("A1-001, ZZ-9")
    widget(at.button, "Registrar entrega").click().run()     # no contract chosen: named, nothing else tried
    assert [e.value for e in at.error] == ["Nada foi gravado. Corrija no formulário acima:\n\n- Contrato\\: escolha o "
                                           "contrato."]
    delivery_contract(at).set_value("A-1")
    widget(at.button, "Registrar entrega").click().run()
    message = " ".join(e.value for e in at.error)
    assert "Nada foi gravado" in message and "ZZ-9" in message and "já entregues" in message
    assert "Recebido por" in message and "Local da entrega" in message


def test_explorer_custody_is_read_only_and_own(small_world):
    at = page_as(small_world.path, small_world.principal("explorer_b"), "custody")
    assert int(metric(at, "Não entregues")) == sum(1 for it in ITEMS if it[0] == "B-1" and it[7] is None)
    assert "Registrar entrega" not in texts(at)
    assert not [b for b in at.button if b.label == "Registrar entrega"]


def test_found_things_form_registers_and_lists(small_world):
    at = page_as(small_world.path, small_world.principal("dpc"), "found_things")
    assert metric(at, "Sob custódia") == "0"
    open_expander(at, "Registrar coisa achada e entregue por terceiro")
    widget(at.text_area, "Descrição").set_value("Âncora de ferro do séc. XIX")
    widget(at.text_input, "Local do achado").set_value("Baía de Guanabara")
    widget(at.text_input, "Quem achou").set_value("Pedro Mergulhador")
    widget(at.button, "Registrar").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("registrada" in s.value for s in at.success)
    assert metric(at, "Sob custódia") == "1"
    assert "aguardando o responsável" in " ".join(at.markdown[i].value for i in range(len(at.markdown)))
    small_world.store.close()
    with Store(small_world.path) as s:
        assert s.fetch_one("SELECT finder_name, origin FROM found_things") == \
            {"finder_name": "Pedro Mergulhador", "origin": "a_identificar"}


def test_found_things_detail_shows_history_and_records_the_next_event(small_world):
    from datetime import date

    from valuation.inventory import found_things as ft

    dpc = small_world.principal("dpc")
    found_id = ft.register_found_thing(small_world.store, dpc, {
        "office_code": "CPRJ", "description": "Barril de madeira", "place": "Praia", "finder_name": "Ana",
        "collected_on": date(2026, 10, 1)}, today=date(2026, 11, 30))
    ft.record_found_event(small_world.store, dpc, found_id, {
        "kind": "sold", "event_date": date(2026, 11, 10), "amount": "99,90", "reference": "Leilão 2",
        "note": "madeira apodrecendo"}, today=date(2026, 11, 30))
    at = page_as(small_world.path, dpc, "found_things")
    assert not at.exception
    labels = [e.label for e in at.expander]
    assert any("Produto (R$ 99,90) guardado até 10/05/2027" in label for label in labels)
    assert widget(at.selectbox, "Registro").options == [ft.EVENT_LABELS["proceeds_claimed"],
                                                         ft.EVENT_LABELS["proceeds_to_union"]]
    widget(at.selectbox, "Registro").set_value("proceeds_to_union")
    widget(at.button, "Registrar").click().run()
    assert any("10/05/2027" in e.value for e in at.error)          # still held for the owner: refused
