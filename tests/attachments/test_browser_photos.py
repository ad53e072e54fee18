"""End to end in Debian's Chromium (issue 16): a Commission member opens an item's photos from
the entry form, looks at one full size, closes the gallery and values the item. The photo
reached the browser through the store (audited downloads), never as a static file or by its
hash, and upright (the EXIF orientation applied; the stored copies' lack of EXIF is checked in
tests/attachments/test_files.py); the value is stored."""
from __future__ import annotations

import urllib.error
import urllib.request
from decimal import Decimal
from typing import Any

import pytest

from tests.support import attachments as F
from tests.support.browser import browser_page, login, running_app
from valuation.attachments import records
from valuation.commission.rounds import open_round
from valuation.db.store import Store

pytestmark = pytest.mark.browser


def test_a_member_opens_the_photos_and_values_the_item(small_world: Any) -> None:
    from playwright.sync_api import expect

    w = small_world
    member, president = w.principal("commission"), w.principal("commission_president")
    item = w.ids["A1-001"]
    records.attach(w.store, w.principal("explorer_a"), "item", item, "photo",
                   [records.Upload("A1-001.jpg", F.jpeg((900, 600))),
                    records.Upload("A1-001_verso.jpg", F.jpeg((900, 600), colour=(200, 200, 190)))], principal=True)
    sha = w.store.scalar("SELECT sha256 FROM attachments ORDER BY id LIMIT 1")
    rnd = open_round(w.store, president, "A-1")
    w.store.close()
    with running_app(w.path) as base, browser_page() as page:
        login(page, base, member.username, w.passwords[member.username])
        page.get_by_role("link", name="Avaliação da Comissão").first.click()
        page.get_by_role("heading", name="A1-001 — Moeda de prata de 8 reales").wait_for()
        thumb = page.get_by_role("img", name="★ A1-001.jpg")   # Streamlit labels the image with its caption
        if not thumb.count():
            thumb = page.locator('[data-testid="stImage"] img').first
        expect(thumb.first).to_be_visible()
        src = thumb.first.get_attribute("src") or ""
        assert "/media/" in src and sha not in src and "static" not in src
        page.get_by_role("button", name="Ver fotos (2)").click()
        dialog = page.get_by_role("dialog")
        expect(dialog).to_be_visible()
        dialog.get_by_text("2", exact=True).click()                       # the second photo
        big = dialog.locator('[data-testid="stImage"] img').first
        expect(big).to_be_visible()
        # EXIF orientation applied: upright, 600 × 900 (retried: a rerun may redraw the image meanwhile)
        expect(big).to_have_js_property("naturalWidth", 600, timeout=30_000)
        src_big = big.evaluate("img => img.src")
        assert "/media/" in src_big and sha not in src_big                 # a per-render media id, not the file
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        page.get_by_text("Histórico (art. 20 §3)").click()
        page.get_by_label("Valor", exact=True).fill("1.111,11")
        page.get_by_label("Fonte do valor (art. 21 §2)").click()
        page.keyboard.type("catálogo")
        page.keyboard.press("Enter")
        page.get_by_label("Significância (voto histórico)").click()
        page.keyboard.type("3")
        page.keyboard.press("Enter")
        page.get_by_role("button", name="Gravar avaliação").click()
        page.get_by_text("Avaliação do item A1-001 gravada.").wait_for()
        body = page.inner_text("body")
        assert "Traceback" not in body and "Acesso negado" not in body
        for guess in (f"/app/static/files/{sha[:2]}/{sha[2:4]}/{sha}", f"/files/{sha[:2]}/{sha[2:4]}/{sha}",
                      f"/media/{sha}.jpg"):        # a guessed path or hash serves no photo
            try:
                with urllib.request.urlopen(base + guess, timeout=5) as r:
                    assert not r.read().startswith(b"\xff\xd8"), guess
            except urllib.error.HTTPError as exc:
                assert exc.code in (403, 404), guess
    with Store(w.path) as store:
        entry = store.fetch_one(
            "SELECT l.historical, l.value_brl, l.significance FROM assessment_current c JOIN assessment_log l "
            "ON l.id = c.log_id WHERE c.round_id = ? AND c.item_id = ? AND c.member_id = ?", [rnd.id, item, member.id])
        assert entry == {"historical": True, "value_brl": Decimal("1111.11000000"), "significance": 3}
        seen = {r["v"] for r in store.fetch(
            "SELECT json_extract_string(after_json, '$.variant') AS v FROM audit_log "
            "WHERE action = 'attachment_download' AND actor = ?", [member.username])}
        assert {"thumb", "preview"} <= seen                                  # every download audited
