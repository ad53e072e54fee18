"""End to end in Debian's Chromium (issue 27 §2): a Commission member logs in to the real service on the demo, opens
the published round's "Ata", downloads the minutes (a new issue: "assinado por 0 de 6"), signs the downloaded bytes
with the test PKI (a certificate with the member's CPF in the ICP-Brasil otherName; the test root installed as the
service's trust anchor through VALUATION_TRUST_DIR), uploads them with "Enviar PDF assinado" and reads
"assinado por 1 de 6"; then /verificar with the code printed on the PDF shows the same status."""
from __future__ import annotations

import io
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pypdf
import pytest

from tests.support.browser import browser_page, login, open_from_sidebar, readme_logins, wait_idle
from tests.support.db_copies import copy_database
from tests.support.pki import TestPki, sign
from tests.support.service import running_service
from valuation.accounts import users
from valuation.db.access import Principal
from valuation.db.store import Store

pytestmark = pytest.mark.browser
CODE = re.compile(r"\b([0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5})\b")


def _admin(store: Store) -> Principal:
    row = store.fetch_one("SELECT id, username, full_name, role FROM users WHERE role = 'admin' ORDER BY id LIMIT 1")
    assert row is not None
    return Principal(int(row["id"]), row["username"], row["full_name"], row["role"], None, None)


def test_a_member_signs_the_minutes_and_verificar_shows_it(full_demo_db: Path, tmp_path: Path, pki: TestPki) -> None:
    path = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    username, password = readme_logins()["commission"]
    member = pki.person("bruno")
    with Store(path) as store:      # the member's CPF is the test certificate's (as the admin registers it)
        member_id = int(store.scalar("SELECT id FROM users WHERE username = ?", [username]))
        users.set_cpf(store, _admin(store), member_id, member.cpf)
    trust = pki.install(tmp_path / "trust")
    with running_service(path, env={"VALUATION_TRUST_DIR": str(trust)}) as svc, browser_page() as page:
        login(page, svc.base, username, password)
        open_from_sidebar(page, "Avaliação da Comissão", "commission")
        page.get_by_test_id("stSelectbox").filter(has_text="Rodada").first.click()
        page.get_by_role("option", name=re.compile(r"^Rodada 1 — Publicada")).first.click()
        wait_idle(page)
        page.get_by_role("tab", name="Ata", exact=True).first.click()
        wait_idle(page)
        with page.expect_download() as info:
            page.get_by_test_id("stDownloadButton").filter(has_text="Baixar ata (PDF)").locator("button").click()
        data = Path(info.value.path()).read_bytes()
        wait_idle(page)
        text = " ".join(" ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages).split())
        found = CODE.search(text)
        assert data.startswith(b"%PDF-") and found, text[:500]
        code = found.group(1)
        for tab in ("Concordância", "Ata"):            # the tab drawn again lists the new issue
            page.get_by_role("tab", name=tab, exact=True).first.click()
            wait_idle(page)
        page.get_by_text(f"Código {code}").wait_for()
        page.get_by_text("assinado por 0 de 6").first.wait_for()

        signed = tmp_path / "ata_assinada.pdf"
        with ThreadPoolExecutor(1) as pool:      # pyHanko runs its own event loop: not in Playwright's thread
            signed.write_bytes(pool.submit(sign, data, member).result())
        page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(signed))
        page.get_by_role("button", name="Enviar PDF assinado").click()
        page.get_by_text("Assinatura aceita.").wait_for(timeout=120_000)
        wait_idle(page)
        outcome = page.get_by_test_id("stAlert").filter(has_text="Assinatura aceita.").inner_text()
        assert f"Documento {code}: assinado por 1 de 6." in outcome, outcome
        page.get_by_text(f"Código {code}").scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / "minutes_signed.png"), full_page=True)

        page.goto(f"{svc.base}/verificar?codigo={code}")
        table = page.locator("table").inner_text()
        page.screenshot(path=str(tmp_path / "verificar.png"), full_page=True)
    assert "Ata da Comissão de Avaliação" in table and code in table
    assert re.search(r"Assinatura eletrônica\s+assinado por 1 de 6", table), table
    assert member.name not in table          # /verificar tells the count, never who signed
