"""End to end in Debian's Chromium (issue 26 §4): a DPC user logs in, opens Prazos → "O que a Autoridade deve",
chooses a case and downloads its history; the PDF holds the request's number, NUP text, wreck and office, and is
registered under the code it prints."""
from __future__ import annotations

import io
from datetime import date
from pathlib import Path

import pypdf
import pytest

from page_tabs.deadlines.case_pdf import BUTTON
from tests.support.browser import browser_page, login, open_from_sidebar, readme_logins, running_app, wait_idle
from tests.support.db_copies import copy_database
from tests.support.ui import first_user
from valuation.db.store import Store
from valuation.proceedings import reports, requests

pytestmark = pytest.mark.browser
AS_OF = date(2026, 11, 30)   # the demo's today


def test_the_dpc_walks_from_what_the_authority_owes_to_a_case_history_pdf(full_demo_db: Path, tmp_path: Path
                                                                         ) -> None:
    path = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    username, password = readme_logins()["dpc"]
    with Store(path, migrate=False) as store:
        case = requests.open_requests(store, first_user(path, "dpc"), as_of=AS_OF)[0]   # the first one offered
        _, printed = reports.nup_text(store, int(case["id"]), case["office_code"])
    with running_app(path) as base, browser_page() as page:
        login(page, base, username, password)
        open_from_sidebar(page, "Prazos", "deadlines")
        page.get_by_role("tab", name="O que a Autoridade deve", exact=True).first.click()
        wait_idle(page)
        page.get_by_text("Histórico de um processo (PDF)").wait_for()
        button = page.get_by_test_id("stDownloadButton").filter(has_text=BUTTON).locator("button")
        button.scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / "case_pdf.png"))
        with page.expect_download() as info:
            button.click()
        download = info.value
        assert download.suggested_filename.startswith(f"historico-requerimento-{case['id']}-")
        data = Path(download.path()).read_bytes()
    text = " ".join(" ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages).split())
    assert data.startswith(b"%PDF-")
    assert f"Requerimento nº {case['id']}" in text and f"NUP {printed}" in text and case["wreck"] in text
    assert f"({case['office_code']})" in text and "Etapas do processo" in text
    with Store(path, migrate=False) as store:
        code = store.scalar("SELECT code FROM issued_documents WHERE kind = 'case_history' AND record_id = ? "
                            "ORDER BY id DESC LIMIT 1", [case["id"]])
    assert code and f"{code[:5]}-{code[5:]}" in text
