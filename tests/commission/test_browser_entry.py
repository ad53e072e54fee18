"""End to end in Debian's Chromium: a Commission member logs in and enters a value for an item
of the open round; then the president logs in (a new browser context: another person) and closes
the round. The stored round is closed and the member's value is in the stored entries."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tests.support.browser import (
    browser_page,
    check_offline,
    check_page,
    login,
    new_page,
    running_app,
)
from valuation.commission.rounds import open_round
from valuation.db.store import Store

pytestmark = pytest.mark.browser


def open_commission_page(page: Any) -> None:
    page.get_by_role("link", name="Avaliação da Comissão").first.click()
    page.wait_for_url("**/commission")
    page.get_by_role("heading", name="Avaliação da Comissão").wait_for()


def status_metric(page: Any) -> Any:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Situação").first
    return metric.locator('[data-testid="stMetricValue"]')


def test_member_enters_a_value_then_the_president_closes(small_world: Any) -> None:
    from playwright.sync_api import expect

    world = small_world
    member, president = world.principal("commission"), world.principal("commission_president")
    rnd = open_round(world.store, president, "A-1")
    item_id = int(world.store.scalar("SELECT id FROM items WHERE item_code = 'A1-001'"))
    world.store.close()  # one process owns the DuckDB file: hand it to the server
    with running_app(world.path) as base, browser_page() as page:
        login(page, base, member.username, world.passwords[member.username])
        open_commission_page(page)
        expect(status_metric(page)).to_have_text("Aberta")
        page.get_by_role("heading", name="A1-001 — Moeda de prata de 8 reales").wait_for()
        page.get_by_text("Histórico (art. 20 §3)").click()
        page.get_by_label("Valor", exact=True).fill("1.234,56")
        page.get_by_label("Fonte do valor (art. 21 §2)").click()
        page.keyboard.type("catálogo")
        page.keyboard.press("Enter")
        page.get_by_label("Significância (voto histórico)").click()
        page.keyboard.type("4")
        page.keyboard.press("Enter")
        page.get_by_role("button", name="Gravar avaliação").click()
        page.get_by_text("Avaliação do item A1-001 gravada.").wait_for()
        expect(page.locator('[data-testid="stDataFrame"]').first).to_be_visible()

        pres, blocked = new_page(page.context.browser)  # another person: a context of its own, same guard
        try:
            login(pres, base, president.username, world.passwords[president.username])
            open_commission_page(pres)
            pres.get_by_role("tab", name="Presidência").click()
            pres.get_by_text("Confirmo o encerramento").click()
            close = pres.get_by_role("button", name="Encerrar rodada")
            expect(close).to_be_enabled()
            close.click()
            expect(status_metric(pres)).to_have_text("Encerrada")
            # the page states it once, above the tabs (which change with the round: ui/tabs.LazyTabs), after
            # the rerun that follows the write (page_tabs/commission/view.py `done`)
            expect(pres.get_by_text("Rodada 1 encerrada")).to_have_count(1)
            body = pres.inner_text("body")
            assert "Traceback" not in body and "Acesso negado" not in body
            check_page(pres)
            check_offline(blocked)
        finally:
            pres.context.close()

    with Store(world.path) as store:
        row = store.fetch_one("SELECT status, closed_by FROM assessment_rounds WHERE id = ?", [rnd.id])
        assert row == {"status": "encerrada", "closed_by": president.username}
        entry = store.fetch_one(
            "SELECT l.historical, l.amount, l.currency, l.value_brl, l.significance, l.source "
            "FROM assessment_current c JOIN assessment_log l ON l.id = c.log_id "
            "WHERE c.round_id = ? AND c.item_id = ? AND c.member_id = ?", [rnd.id, item_id, member.id])
        assert entry == {"historical": True, "amount": Decimal("1234.56"), "currency": "BRL",
                         "value_brl": Decimal("1234.56000000"), "significance": 4, "source": "catalogo"}
