"""Logout ends the session on the first click, also right after the service restarted (issue 23 item 5).

In Chromium, on a copy of the full demo: a person logs in (the README's DPC login), the service stops and
starts again on the same address while the tab stays open (the browser reconnects by itself; nobody
reloads), and the person clicks "Sair" once. The login form must come back, the session cookie must be
gone, and neither a reload nor the old cookie in another browser may log in again.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, login, readme_logins
from tests.support.db_copies import copy_database
from tests.support.service import running_service

COOKIE = "valuation_sessao"
SECONDS = 30


def _cookie(ctx: Any) -> dict[str, Any] | None:
    return next((c for c in ctx.cookies() if c["name"] == COOKIE), None)


def _wait_cookie(page: Any, ctx: Any, present: bool) -> bool:
    for _ in range(SECONDS * 4):
        if (_cookie(ctx) is not None) == present:
            return True
        page.wait_for_timeout(250)
    return False


def _logged_in(page: Any) -> bool:
    page.locator("button:has-text('Sair'), input[aria-label='Usuário']").first.wait_for(timeout=60_000)
    return page.get_by_role("button", name="Sair").count() > 0


def test_the_first_click_on_sair_after_a_restart_logs_out(full_demo_db: Path, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    username, password = readme_logins()["dpc"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        ctx = browser.new_context(viewport={"width": 1366, "height": 768}, locale="pt-BR")
        page = ctx.new_page()
        page.set_default_timeout(60_000)
        with running_service(db) as svc:
            login(page, svc.base, username, password)
            assert _wait_cookie(page, ctx, present=True), "no session cookie after the login"
            port = svc.port
        with running_service(db, port=port) as svc:
            # the open tab reconnects by itself and draws the app again, logged in through the cookie
            page.wait_for_function("() => document.querySelector('[data-testid=\"stApp\"]')"
                                   "?.getAttribute('data-test-connection-state') === 'CONNECTED'",
                                   timeout=60_000)
            assert _logged_in(page)
            stale = _cookie(ctx)
            assert stale is not None
            page.get_by_role("button", name="Sair").click()          # once
            page.get_by_label("Usuário").wait_for(timeout=SECONDS * 1000)
            assert _wait_cookie(page, ctx, present=False), "the cookie outlived the first 'Sair'"
            page.reload()
            assert not _logged_in(page), "a reload after 'Sair' logged in again"
            other = browser.new_context()
            other.add_cookies([{"name": COOKIE, "value": stale["value"], "url": svc.base}])
            again = other.new_page()
            again.goto(svc.base)
            assert not _logged_in(again), "the old cookie still logs in"
            other.close()
        browser.close()
