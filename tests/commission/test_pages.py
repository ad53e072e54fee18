"""The Commission's pages (issue 3) under AppTest: commission, rates, decisions.

Every page renders for the roles `access.PAGES_BY_ROLE` offers it to and refuses the
others when reached directly; the Delphi rule holds on screen (before the close a
member sees no other member's value, after it the anonymous median); a member enters
a value through the form, the president closes the round, adds a rate; an explorer
sees only its own contract's published decisions. Setup goes through the store API
(tests/support/commission.py).
"""
from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tests.support.commission import ROUND_PLAN, run_round
from tests.support.ui import each_tab, open_expander, open_tab, page_as, page_direct, refused, texts
from valuation.commission.rounds import get_round, open_round
from valuation.commission.sheet_import import import_assessments
from valuation.core.money import format_brl
from valuation.db import access

ROLE_KEYS = ("dpc", "commission", "commission_culture", "commission_president", "explorer_a", "explorer_b", "admin")
PANEL_ORDER = ("pres", "navy1", "navy2", "cult1", "cult2", "cult3")


def cells(at: Any) -> set[str]:
    """Every cell and header of every table shown, as text."""
    out: set[str] = set()
    for df in at.dataframe:
        frame = df.value
        out.update(str(c) for c in frame.columns)
        for col in frame.columns:
            out.update(str(v) for v in frame[col].tolist())
    return out


def widget(items: Any, label: str) -> Any:
    found = [w for w in items if w.label == label]
    assert found, f"no widget {label!r}"
    return found[0]


@pytest.mark.parametrize("key", ["commission", "rates", "decisions"])
def test_pages_render_for_their_roles_and_refuse_the_others(small_world: Any, key: str) -> None:
    run_round(small_world, until="published")
    for role_key in ROLE_KEYS:
        user = small_world.principal(role_key)
        if access.may_view_page(user, key):
            at = page_as(small_world.path, user, key)
            assert not refused(at), role_key
            for tab in each_tab(at, key):   # every tab renders (only the open one is drawn)
                assert not at.exception, (role_key, tab, [e.value for e in at.exception])
                assert not at.error, (role_key, tab, [e.value for e in at.error])
        else:
            at = page_direct(small_world.path, user, key)
            assert refused(at), role_key
            assert not at.dataframe and not at.metric


def test_before_the_close_a_member_sees_only_own_values(small_world: Any) -> None:
    panel, round_id = run_round(small_world, until="open")
    me = PANEL_ORDER.index("navy1")
    at = page_as(small_world.path, panel["navy1"], "commission")
    assert not at.exception and not at.error
    shown = cells(at) | set(texts(at).split("\n"))
    own = {format_brl(Decimal(values[me])) for _, values in ROUND_PLAN.values()}
    others = {format_brl(Decimal(v)) for _, values in ROUND_PLAN.values() for k, v in enumerate(values)
              if k != me} - own
    assert own <= shown                       # the member's own values are listed
    assert "Rodada aberta: você vê apenas as suas avaliações" in texts(at)
    for tab in each_tab(at, "commission"):    # in no tab (only the open one is drawn) …
        shown = cells(at) | set(texts(at).split("\n"))
        assert not others & shown, tab        # … nobody else's
        assert "Mediana (R$)" not in shown and "Concordância" not in texts(at), tab


def test_after_the_close_a_member_sees_the_anonymous_median(small_world: Any) -> None:
    panel, round_id = run_round(small_world, until="closed")
    at = page_as(small_world.path, panel["cult1"], "commission")
    assert not at.exception and not at.error
    items = at.dataframe[0].value
    assert "Mediana (R$)" in items.columns
    row = items[items["Código"] == "A1-001"].iloc[0]
    assert row["Mediana (R$)"] == "R$ 1.025,00"
    assert row["Sinalizado"] == "não"
    assert items[items["Código"] == "A1-003"].iloc[0]["Sinalizado"] == "sim"
    # The selected item's entries appear under pseudonyms, never names.
    entries = at.dataframe[2].value
    assert set(entries["Membro"]) <= {"Você"} | {f"Membro {n}" for n in range(1, 7)}
    assert len(entries) == 6 and "Você" in set(entries["Membro"])
    assert not any(p.full_name in str(entries.values) for p in panel.values())


def test_a_member_enters_a_value_with_the_form(small_world: Any) -> None:
    pres = small_world.principal("commission_president")
    rnd = open_round(small_world.store, pres, "A-1")
    member = small_world.principal("commission")
    at = page_as(small_world.path, member, "commission")
    assert not at.exception
    widget(at.radio, "Voto").set_value(True)
    widget(at.text_input, "Valor").input("1.234,56")
    widget(at.selectbox, "Fonte do valor (art. 21 §2)").set_value("catalogo")
    widget(at.selectbox, "Significância (voto histórico)").set_value(4)
    widget(at.button, "Gravar avaliação").click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("A1-001 gravada" in s.value for s in at.success)
    row = small_world.store.fetch_one(
        "SELECT l.historical, l.amount, l.currency, l.value_brl, l.significance, l.source FROM assessment_log l "
        "JOIN items i ON i.id = l.item_id WHERE l.round_id = ? AND l.member_id = ?", [rnd.id, member.id])
    assert row == {"historical": True, "amount": Decimal("1234.56"), "currency": "BRL",
                   "value_brl": Decimal("1234.56000000"), "significance": 4, "source": "catalogo"}
    # A bad value: every problem shown, nothing written.
    widget(at.text_input, "Valor").input("doze")
    widget(at.button, "Gravar avaliação").click()
    at.run()
    assert any("Valor" in e.value and "valor em reais como 1.234,56" in e.value for e in at.error)
    assert small_world.store.scalar("SELECT count(*) FROM assessment_log WHERE round_id = ?", [rnd.id]) == 1


def test_the_president_closes_the_round_on_the_page(small_world: Any) -> None:
    panel, round_id = run_round(small_world, until="open")
    at = open_tab(page_as(small_world.path, panel["pres"], "commission"), "commission", "Presidência")
    assert not at.exception
    open_expander(at, "Andamento por membro (itens avaliados)")
    progress = at.dataframe[-1].value
    assert set(progress["Itens avaliados"]) == {str(len(ROUND_PLAN))}     # counts only, never values
    close = widget(at.button, "Encerrar rodada")
    assert close.disabled
    next(c for c in at.checkbox if c.label.startswith("Confirmo o encerramento da rodada")).check()
    at.run()
    widget(at.button, "Encerrar rodada").click()
    at.run()
    assert not at.exception and not at.error
    assert get_round(small_world.store, panel["pres"], round_id).status == "encerrada"
    assert any("encerrada" in s.value for s in at.success)


def test_rates_entry_for_the_president_and_reading_for_members(small_world: Any) -> None:
    pres = small_world.principal("commission_president")
    at = page_as(small_world.path, pres, "rates")
    widget(at.text_input, "Moeda (código ISO)").input("EUR")
    widget(at.text_input, "Taxa (R$ por unidade)").input("6,2850")
    widget(at.button, "Gravar taxa").click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert small_world.store.scalar("SELECT brl FROM fx_rates WHERE currency = 'EUR'") == Decimal("6.285")
    widget(at.text_input, "Taxa (R$ por unidade)").input("-1")
    widget(at.button, "Gravar taxa").click()
    at.run()
    assert any("Taxa" in e.value for e in at.error)
    # A series with two bad lines is refused whole, each line listed with its reason.
    series = "data;moeda;taxa\n01/09/2025;USD;5,4120\n31/02/2025;USD;5,50\n02/09/2025;US;5,43\n03/09/2025;USD;5,44\n"
    widget(at.file_uploader, "Arquivo").set_value(("ptax.csv", series.encode(), "text/csv"))
    at.run()
    widget(at.button, "Importar série").click()
    at.run()
    assert any("Arquivo recusado: nada foi gravado. 2 problema(s)" in e.value for e in at.error)
    problems = next(d.value for d in at.dataframe if "Motivo" in d.value.columns)
    assert list(problems["Linha"]) == ["3", "4"]
    assert small_world.store.scalar("SELECT count(*) FROM fx_rates WHERE currency = 'USD'") == 0
    member = page_as(small_world.path, small_world.principal("commission"), "rates")
    assert "Somente o presidente da Comissão e a DPC" in texts(member)
    assert not [b for b in member.button if b.label == "Gravar taxa"]
    assert "6,2850" in cells(member)   # rates with four decimals, as the PTAX


def test_decisions_show_only_the_explorers_own_contract(small_world: Any) -> None:
    run_round(small_world, until="published")
    at = page_as(small_world.path, small_world.principal("explorer_a"), "decisions")
    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Itens decididos"] == "5" and metrics["Históricos"] == "4" and metrics["Demais itens"] == "1"
    assert metrics["Valor históricos"] == "R$ 326.250,00" and metrics["Valor demais"] == "R$ 700.000,00"
    table = at.dataframe[0].value
    assert set(table["Item"]) == {"A1-001", "A1-002", "A1-003", "A1-004", "A1-006"}
    other = page_as(small_world.path, small_world.principal("explorer_b"), "decisions")
    assert "Nenhuma decisão publicada" in texts(other) and not other.dataframe


def test_a_sheet_is_all_or_nothing_and_the_template_round_trips(small_world: Any) -> None:
    from valuation.commission import views as cv

    pres = small_world.principal("commission_president")
    rnd = open_round(small_world.store, pres, "A-1")
    member = small_world.principal("commission")
    header = "codigo;historico;valor;moeda;data_do_preco;significancia;manter;fonte;observacao\n"
    bad = header + ("A1-001;sim;1.000,00;BRL;10/03/2025;4;não;catalogo;\n"
                    "A1-002;sim;abc;BRL;10/03/2025;4;não;catalogo;\n"
                    "A1-999;não;10,00;BRL;10/03/2025;;;catalogo;\n"
                    "A1-003;talvez;10,00;USD;10/03/2025;;;avaliacao_externa;\n")
    at = open_tab(page_as(small_world.path, member, "commission"), "commission", "Planilha")
    widget(at.file_uploader, "Planilha preenchida (CSV ou XLSX)").set_value(("ruim.csv", bad.encode(), "text/csv"))
    at.run()
    widget(at.button, "Importar avaliações").click()
    at.run()
    assert not at.exception
    assert any("Planilha recusada: nada foi gravado" in e.value for e in at.error)
    problems = next(d.value for d in at.dataframe if "Motivo" in d.value.columns)
    assert set(problems["Linha"]) >= {"3", "4", "5"} and "2" not in set(problems["Linha"])
    reasons = " ".join(problems["Motivo"])
    assert "número" in reasons and "não encontrado" in reasons and "sim, não" in reasons
    assert small_world.store.scalar("SELECT count(*) FROM assessment_log WHERE round_id = ?", [rnd.id]) == 0

    good = header + "".join(f"A1-00{k};sim;{k}.234,56;BRL;10/03/2025;{k % 5 + 1};não;catalogo;\n"
                            for k in range(1, 7))
    widget(at.file_uploader, "Planilha preenchida (CSV ou XLSX)").set_value(("boa.csv", good.encode(), "text/csv"))
    at.run()
    widget(at.button, "Importar avaliações").click()
    at.run()
    assert any("6 avaliação(ões) gravada(s): 6 nova(s), 0 correção(ões)" in s.value for s in at.success)
    # The template holds the round's items with the member's entries; sent back, it corrects all six.
    template = cv.round_template(small_world.store, member, rnd.id, "csv").decode("utf-8-sig")
    assert template.startswith("Código;Descrição;Histórico;Valor;Moeda;Data do preço;Significância;Manter;Fonte;")
    assert "A1-004;Canhão de bronze;sim;4234,56;BRL;10/03/2025;5;não;catálogo;" in template
    again = import_assessments(small_world.store, member, rnd.id, template.encode(), "modelo.csv")
    assert (again.rows, again.new, again.corrections) == (6, 0, 6)
    assert [c.lower() for c in again.ignored_columns] == ["descrição"] or again.ignored_columns == ("descricao",)


def test_the_president_decides_overrides_publishes_and_reopens_on_the_page(small_world: Any) -> None:
    panel, round_id = run_round(small_world, until="closed")
    s = small_world.store
    at = open_tab(page_as(small_world.path, panel["pres"], "commission"), "commission", "Presidência")
    widget(at.button, "Adotar o consenso dos itens decididos").click()
    at.run()
    assert any("5 decisão(ões) registrada(s); 1 item(ns) sem decisão" in m.value for m in at.success)
    # Override A1-003 (values far apart) with a reason; a missing reason is refused first.
    widget(at.text_input, "Código do item").input("A1-003")
    widget(at.text_input, "Valor (R$)").input("1.500,00")
    widget(at.button, "Registrar decisão").click()
    at.run()
    assert any("Motivo" in e.value for e in at.error)
    widget(at.text_area, "Motivo (vai para o fundamento da decisão e para a ata)").input("Laudo do museu")
    widget(at.button, "Registrar decisão").click()
    at.run()
    assert any("A1-003 registrada" in m.value for m in at.success), [e.value for e in at.error]
    valuation = s.fetch_one("SELECT iv.value_brl, d.basis FROM item_valuation iv JOIN decisions d "
                            "ON d.id = iv.decision_id JOIN items i ON i.id = iv.item_id WHERE i.item_code = 'A1-003'")
    assert valuation["value_brl"] == Decimal("1500.00") and "Laudo do museu" in valuation["basis"]
    widget(at.button, "Publicar decisões").click()
    at.run()
    assert get_round(s, panel["pres"], round_id).status == "publicada"
    # A new round over the flagged items of round 1.
    open_expander(at, "Abrir nova rodada")
    widget(at.radio, "Itens").set_value(round_id)
    at.run()
    widget(at.button, "Abrir rodada").click()
    at.run()
    assert any("Rodada 2 aberta com 3 itens" in m.value for m in at.success), [e.value for e in at.error]


def _decisions_page(small_world: Any, **state: Any) -> Any:
    at = page_as(small_world.path, small_world.principal("explorer_a"), "decisions")
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception and not at.error
    return at


def test_decisions_group_search_and_pages(small_world: Any) -> None:
    run_round(small_world, until="published")
    at = _decisions_page(small_world, dec_group="demais")
    assert set(at.dataframe[0].value["Item"]) == {"A1-006"}
    assert {m.label: m.value for m in at.metric}["Itens decididos"] == "5"   # the totals stay the contract's
    at = _decisions_page(small_world, dec_search="a1-00")
    assert len(at.dataframe[0].value) == 5
    at = _decisions_page(small_world, dec_search="A1-003")
    assert set(at.dataframe[0].value["Item"]) == {"A1-003"}
    assert "1 item(ns) na seleção; página 1 de 1." in texts(at)
    at = _decisions_page(small_world, dec_search="A1-00", dec_page=3)   # beyond the one page there is
    assert "página 1 de 1." in texts(at) and len(at.dataframe[0].value) == 5
