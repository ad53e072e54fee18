"""AppTest: the pages of issue 15's second half — a dated NORMAM value with its reference on Políticas,
the appeals on Prazos (DPC and the explorer's own), the preference and the co-signature on Naufrágios,
the removal orders and owner's balances on Domínio. On small_world, plus the rows each case needs."""
from __future__ import annotations

from datetime import date
from typing import Any

from tests.support.ui import open_expander, open_tab, page_as, set_date, texts
from valuation.db.store import Store
from valuation.deadlines import events
from valuation.deadlines import vocabulary as v

REASON = "Revisão da NORMAM-10 publicada no Diário Oficial."


def button(at: Any, label: str) -> Any:
    return next(b for b in at.button if b.label == label)


def test_policies_page_records_a_dated_value_with_its_reference(small_world):
    small_world.store.close()
    at = page_as(small_world.path, small_world.principal("dpc"), "policies")
    next(s for s in at.selectbox if s.label == "Política a alterar").select("final_report_days").run()
    next(n for n in at.number_input if n.label.startswith("Relatório final: prazo")).set_value(120)
    next(t for t in at.text_input if t.label == "Referência legal").input("Portaria DPC nº 12/2026")
    set_date(at, "Vigência a partir de", date(2027, 1, 1))
    at.text_area[0].input(REASON)
    button(at, "Gravar alteração").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = texts(at)
    assert "Relatório final: prazo: 120 dias após o término dos trabalhos a partir de 01/01/2027" in shown
    assert "Alterações agendadas" in shown
    overview = at.table[0].value
    assert overview.loc["Relatório final: prazo", "Valor em vigor"] == "90 dias após o término dos trabalhos"
    history = at.table[1].value
    assert history.index.tolist() == ["01/01/2027"] and history["Referência legal"].tolist() == [
        "Portaria DPC nº 12/2026"]
    law = at.table[2].value
    assert law.loc["Recompensa máxima pelos bens de valor histórico", "Redação em vigor desde"] == "28/12/2000"


def _appeal(world: Any) -> None:
    s = world.store
    s.write("test", lambda tx: tx.execute(
        "UPDATE contracts SET status = 'cancelado', cancelled_on = DATE '2025-03-03', starts_on = DATE '2025-01-06', "
        "expires_on = DATE '2026-01-05' WHERE code = 'B-1'"))
    events.record_event(s, world.principal("dpc"), {"kind": v.DECISION_NOTIFIED, "contract_code": "B-1",
                                                    "event_date": "05/03/2025", "reference": "cancelamento"})


def test_appeals_show_on_the_dashboard_and_in_the_explorers_view(small_world):
    _appeal(small_world)
    small_world.store.close()
    for who, sees in (("dpc", True), ("explorer_b", True), ("explorer_a", False)):
        at = page_as(small_world.path, small_world.principal(who), "deadlines")
        assert not at.exception, [e.value for e in at.exception]
        assert "Recursos" in [t.label for t in at.tabs]
        cells = "\n".join(d.value.to_string() for d in at.dataframe)
        assert ("Pedido de reconsideração ou recurso — Cancelamento da autorização" in cells) is sees, who


def test_the_explorer_files_its_own_appeal_on_the_page(small_world):
    _appeal(small_world)
    small_world.store.close()
    at = open_tab(page_as(small_world.path, small_world.principal("explorer_b"), "deadlines"), "deadlines",
                  "Registrar entrega")
    kind = v.EVENT_KIND_BY_KEY[v.APPEAL_FILED]
    next(s for s in at.selectbox if s.label == "Evento").set_value(kind).run()
    contract = next(s for s in at.selectbox if s.label == "Contrato")
    assert contract.value is None                                        # never chosen for the company
    contract.set_value("B-1").run()
    decision = next(s for s in at.selectbox if s.label == "Decisão")
    assert decision.options == ["Cancelamento da autorização, de 03/03/2025"] and decision.value is None
    decision.set_value("cancelamento")
    assert not [t for t in at.text_input if t.label == "Data do evento"]     # the company dates nothing
    button(at, "Registrar").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    with Store(small_world.path) as s:
        row = s.fetch_one("SELECT kind, reference, organisation_id FROM deadline_events ORDER BY id DESC LIMIT 1")
    assert row == {"kind": v.APPEAL_FILED, "reference": "cancelamento", "organisation_id": small_world.ids["org_b"]}


def test_wreck_page_ranks_competing_requests_and_records_a_co_signature(small_world):
    s, w4 = small_world.store, small_world.ids["w4"]

    def add(tx: Any) -> None:
        tx.execute("UPDATE contracts SET historical_share = 0.30 WHERE code = 'A-1'")
        for code, org in (("R-1", "org_b"), ("R-2", "org_c")):
            tx.execute("INSERT INTO contracts (code, kind, act, organisation_id, wreck_id, office_code, status, "
                       "requested_on) VALUES (?, 'exploração', 'contrato', ?, ?, 'CPRJ', "
                       "'solicitado', DATE '2025-05-01')",
                       [code, small_world.ids[org], w4])

    s.write("test", add)
    s.close()
    at = page_as(small_world.path, small_world.principal("dpc"), "wrecks")
    detail = next(x for x in at.selectbox if x.label == "Naufrágio")
    detail.set_value(w4).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Pedidos de exploração ou remoção e preferência" in texts(at)
    ranking = at.table[-1].value
    assert ranking["Pedido"].tolist() == ["R-1", "R-2"] and set(ranking["Preferência"]) == {"sem preferência legal"}
    detail.set_value(small_world.ids["w1"]).run()
    assert any("sem coassinatura do Ministério da Cultura" in w.value for w in at.warning)
    set_date(at, "Data da coassinatura", date(2024, 2, 5))
    next(x for x in at.selectbox if x.label == "Contrato").set_value("A-1")
    next(t for t in at.text_input if t.label == "Ato (termo de coassinatura)").input("Termo nº 1/2024-MinC")
    next(t for t in at.text_input if t.label == "Representante do Ministério da Cultura").input("Dra. Helena")
    button(at, "Registrar coassinatura").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Coassinatura registrada" in x.value for x in at.success)
    explorer = page_as(small_world.path, small_world.principal("explorer_a"), "wrecks")
    assert "Pedidos de exploração ou remoção" not in texts(explorer)


def test_domain_page_records_a_removal_order_and_lists_it(small_world):
    small_world.store.close()
    at = page_as(small_world.path, small_world.principal("dpc"), "domain")
    assert "Determinações de remoção (Lei 7.542/1986 arts. 5, 9 e 10)" in texts(at)
    open_expander(at, "Registrar determinação de remoção (art. 5)")
    form = [w for w in at.selectbox if w.label == "Naufrágio"]
    form[0].set_value("NAU-1890-02")
    next(t for t in at.text_input if t.label == "Ato da determinação").input("Ofício nº 1/2025-CPRJ")
    for label, day in (("Data da determinação", date(2025, 3, 3)), ("Data da intimação pessoal", date(2025, 3, 5)),
                       ("Início fixado", date(2025, 4, 1)), ("Término fixado", date(2025, 6, 30))):
        set_date(at, label, day)
    next(t for t in at.text_input if t.label == "Motivo (art. 5)").input("Obstáculo à navegação")
    button(at, "Registrar determinação").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.run()
    listed = next(d.value for d in at.dataframe if "Ato" in d.value.columns)
    assert listed["Ato"].tolist() == ["Ofício nº 1/2025-CPRJ"] and listed["Intimação"].tolist() == [
        "intimação pessoal (art. 9 I)"]
