"""End to end in Debian's Chromium: an explorer logs in, opens its issued statement, downloads the
PDF, and the PDF holds the net amount exactly as the page shows it."""
from __future__ import annotations

import io

import pytest

from tests.support.browser import browser_page, login, running_app
from tests.support.partition import A1_NET, issued_a1, prepare
from valuation.core.money import format_brl

pytestmark = pytest.mark.browser


def test_explorer_downloads_its_statement_pdf(small_world):
    import pypdf

    prepare(small_world)
    issued = issued_a1(small_world)
    username = small_world.username("explorer_a")
    password = small_world.passwords[username]
    small_world.store.close()  # one process owns the DuckDB file: hand it to the server
    with running_app(small_world.path) as base, browser_page() as page:
        login(page, base, username, password)
        page.get_by_role("link", name="Demonstrativos").first.click()
        page.wait_for_url("**/statements")
        page.get_by_text("Valor líquido a receber").wait_for()
        shown = page.get_by_test_id("stMetricValue").first.inner_text().strip()
        assert shown == format_brl(A1_NET)
        body = page.inner_text("body")
        assert issued.label in body and "Traceback" not in body
        button = page.get_by_test_id("stDownloadButton").filter(has_text="Baixar PDF").locator("button")
        with page.expect_download() as info:
            button.click()
        download = info.value
        assert download.suggested_filename.endswith(".pdf")
        data = open(download.path(), "rb").read()
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)
    assert shown in text
    assert issued.label in text and "Valor líquido em favor do concessionário" in text
