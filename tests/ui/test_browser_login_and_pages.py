"""End to end in Debian's Chromium: log in and open each page the role is offered."""
from __future__ import annotations

import pytest

from tests.support.browser import browser_page, check_page, login, running_app
from ui.registry import BY_KEY
from valuation.db import access

pytestmark = pytest.mark.browser


def test_dpc_logs_in_and_opens_each_page(small_world):
    username = small_world.username("dpc")
    password = small_world.passwords[username]
    small_world.store.close()  # one process owns the DuckDB file: hand it to the server
    keys = [k for k in access.PAGES_BY_ROLE["dpc"] if BY_KEY[k].exists()]
    with running_app(small_world.path) as base, browser_page() as page:
        login(page, base, username, password)
        for i, key in enumerate(keys):
            spec = BY_KEY[key]
            page.get_by_role("link", name=spec.title, exact=True).first.click()
            if i:  # the first page is the default one, served at the root URL
                page.wait_for_url(f"**/{key}")
            page.locator("h1").first.wait_for()
            page.wait_for_load_state("networkidle")
            check_page(page, key)
            body = page.inner_text("body")
            assert "Acesso negado" not in body, key
            assert "Traceback" not in body and "Error" not in page.title(), key
        # the wreck map's outlines come from the app itself (no CDN on a closed network)
        outline = page.request.get(f"{base}/app/static/topojson/south-america_50m.json")
        assert outline.ok and outline.json()["type"] == "Topology"


def test_explorer_guessing_a_url_is_refused(small_world):
    username = small_world.username("explorer_a")
    password = small_world.passwords[username]
    small_world.store.close()
    with running_app(small_world.path) as base, browser_page() as page:
        login(page, base, username, password)
        page.goto(f"{base}/users")
        page.wait_for_timeout(1500)
        page.get_by_role("heading").first.wait_for()
        body = page.inner_text("body")
        assert "Usuários e perfis" not in body
        assert "admin" not in [r.strip() for r in body.split("\n")]
