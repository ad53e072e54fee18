"""Issue 24, item 1 in the browser — a session planted in a backup opens nothing.

Reproduction (failed before the fix): a row added to the backup's `sessions.parquet` (with the manifest
updated, as whoever can write the folder can do) restored, `audit verify` passed, and Chromium with
that session's cookie opened DPC's navigation on the restored database — access without a password.
Now sessions are never restored: the same cookie meets the login form, through the real service
(uvicorn + Streamlit) and Debian's Chromium.
"""
from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.support import backup as B
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS
from tests.support.service import cli, running_service
from valuation.db import backup

pytestmark = pytest.mark.browser
TOKEN = "plantado-" + "x" * 34          # the attacker's cookie; only its sha256 is in the planted row


def _signed_in(page: Any) -> bool:
    """Wait for the app to render: signed in (the Sair button) or not (the login form)?"""
    page.locator("button:has-text('Sair'), input[aria-label='Usuário']").first.wait_for(timeout=60_000)
    return page.get_by_role("button", name="Sair").count() > 0


def test_a_planted_session_cookie_opens_nothing_in_chromium(small_world: Any, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    dpc_id = small_world.ids["dpc.silva"]
    backup.backup(small_world.store, tmp_path / "b")
    small_world.store.close()
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")           # fresh: not idle-expired
    B.plant_session(tmp_path / "b", dpc_id, TOKEN, stamp)
    (tmp_path / "r").mkdir()
    restored = tmp_path / "r" / "restored.duckdb"
    done = cli("db", "restore", "--from", str(tmp_path / "b"), "--db", str(restored))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["not_restored"] == {"sessions": 1}
    verified = cli("audit", "verify", "--db", str(restored))
    assert verified.returncode == 0, verified.stdout
    shutil.rmtree(tmp_path / "b")
    with sync_playwright() as p, running_service(restored) as svc:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            ctx = browser.new_context(locale="pt-BR")
            ctx.add_cookies([{"name": "valuation_sessao", "value": TOKEN, "url": svc.base}])
            page = ctx.new_page()
            page.set_default_timeout(60_000)
            for path in ("/", "/deadlines", "/wrecks"):
                page.goto(svc.base + path)
                assert not _signed_in(page), path                     # the login form, not DPC's navigation
        finally:
            browser.close()
