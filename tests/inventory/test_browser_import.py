"""End to end in Debian's Chromium: an explorer uploads the sample file with three bad rows (refused,
the error table names the lines) and then the good one (accepted, the item count grows)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.browser import browser_page, login, running_app, wait_idle

pytestmark = pytest.mark.browser

SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"


def items_metric(page) -> int:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Itens").first
    return int(metric.locator('[data-testid="stMetricValue"]').inner_text().replace(".", ""))


def upload(page, path: Path, *, previous_result=None) -> None:
    """Choose the file and press Importar once the page has re-run with it: the button is enabled
    (first file), or the previous import's message is gone (the upload re-ran the page)."""
    from playwright.sync_api import expect

    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    if previous_result is not None:
        expect(previous_result).to_have_count(0)
    button = page.get_by_role("button", name="Importar", exact=True)
    expect(button).to_be_enabled()
    button.click()


def test_upload_refused_then_accepted(small_world):
    from playwright.sync_api import expect

    username = small_world.username("explorer_a")
    password = small_world.passwords[username]
    small_world.store.close()  # one process owns the DuckDB file: hand it to the server
    bad = SAMPLES / "itens_galeao_santo_antonio_com_erros.csv"
    good = SAMPLES / "itens_galeao_santo_antonio.csv"
    with running_app(small_world.path) as base, browser_page() as page:
        login(page, base, username, password)
        page.get_by_role("link", name="Inventário de bens").first.click()
        page.wait_for_url("**/inventory")
        page.get_by_role("heading", name="Inventário de bens resgatados").wait_for()
        before = items_metric(page)

        page.get_by_role("tab", name="Importar").click()
        page.get_by_label("Contrato vigente", exact=True).click()     # no form chooses a contract for the person
        page.keyboard.type("A-1")
        page.keyboard.press("Enter")
        wait_idle(page)
        upload(page, bad)
        refusal = page.get_by_text("Arquivo recusado")
        refusal.wait_for()
        assert "13, 74, 150" in refusal.inner_text()
        table = page.locator('[data-testid="stTable"]').first.inner_text()
        for line in ("13", "74", "150"):
            assert line in table
        assert "Quantidade" in table and "Data de recuperação" in table and "Descrição" in table

        upload(page, good, previous_result=refusal)
        page.get_by_text("Importação nº").wait_for()
        assert "200 itens gravados no contrato A-1" in page.get_by_text("Importação nº").inner_text()
        page.get_by_role("tab", name="Consultar").click()
        expect(page.locator('[data-testid="stMetric"]').filter(has_text="Itens").first
               .locator('[data-testid="stMetricValue"]')).to_have_text(str(before + 200))
        body = page.inner_text("body")
        assert "Traceback" not in body and "Acesso negado" not in body
