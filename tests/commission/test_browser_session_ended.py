"""In Debian's Chromium against the real service: a member's session ended elsewhere ("Sair" in another tab of
the same browser, which shares the session cookie) stops the Commission page at once.

The Itens tab reruns alone (a fragment: ui/fragments.py) and the entry form writes in its button's callback,
which Streamlit runs before the script: neither passes through app.py's session check. A save clicked after the
session ended must write nothing and show the login form; so must choosing another item."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, check_page, login
from tests.support.service import running_service
from valuation.commission.rounds import open_round
from valuation.db.store import Store

pytestmark = pytest.mark.browser


def _open_commission(page: Any) -> None:
    page.get_by_role("link", name="Avaliação da Comissão").first.click()
    page.wait_for_url("**/commission")
    page.get_by_role("heading", name="A1-001 — Moeda de prata de 8 reales").wait_for()


def _fill_value(page: Any, value: str) -> None:
    page.get_by_label("Valor", exact=True).fill(value)
    page.get_by_label("Fonte do valor (art. 21 §2)").click()
    page.keyboard.type("catálogo")
    page.keyboard.press("Enter")


def _sair_in_another_tab(context: Any, base: str) -> None:
    other = context.new_page()
    other.goto(base)
    other.get_by_role("button", name="Sair").click()
    other.get_by_label("Usuário").wait_for()
    other.close()


def _runs_after(log: Path, before: int, timeout_s: float = 10) -> list[dict[str, Any]]:
    """The run log's records after the first `before` lines, once there is one: a run's record is appended
    when its script ends, which may be just after the browser drew its last element."""
    deadline = time.monotonic() + timeout_s
    while True:
        lines = log.read_text().splitlines()[before:]
        if lines or time.monotonic() > deadline:
            time.sleep(0.3)   # and any other record of the same moment
            return [json.loads(line) for line in log.read_text().splitlines()[before:]]
        time.sleep(0.05)


def _entries(path: Path, round_id: int, member_id: int) -> int:
    with Store(path) as store:
        return int(store.scalar("SELECT count(*) FROM assessment_log WHERE round_id = ? AND member_id = ?",
                                [round_id, member_id]))


def test_a_save_after_the_session_ended_elsewhere_writes_nothing(small_world: Any, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    world = small_world
    member, president = world.principal("commission"), world.principal("commission_president")
    rnd = open_round(world.store, president, "A-1")
    world.store.close()        # one process owns the DuckDB file: hand it to the service
    log = tmp_path / "runs.jsonl"
    with running_service(world.path, env={"VALUATION_RUN_LOG": str(log)}) as svc, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="pt-BR")
            page = context.new_page()
            page.set_default_timeout(60_000)
            login(page, svc.base, member.username, world.passwords[member.username])
            _open_commission(page)

            # a save while the session lives: the tab reruns alone, recorded in the run log as the page's run
            _fill_value(page, "1.234,56")
            runs_before = len(log.read_text().splitlines())
            page.get_by_role("button", name="Gravar avaliação").click()
            page.get_by_text("Avaliação do item A1-001 gravada.").wait_for()
            page.get_by_role("heading", name="A1-002 — Moeda de ouro de 4 escudos").wait_for()
            check_page(page)
            runs = _runs_after(log, runs_before)
            assert [(r["page"], r["outcome"], r["user"]) for r in runs] == [("commission", "ok", member.username)]

            # "Sair" in another tab of the same browser ends the session; then a save on the first tab
            _fill_value(page, "99,00")
            _sair_in_another_tab(context, svc.base)
            page.get_by_role("button", name="Gravar avaliação").click()
            page.get_by_label("Usuário").wait_for()
            assert page.get_by_text("Sua sessão foi encerrada. Entre novamente.").count() == 1

            # again, choosing an item (the tab's own rerun, no callback) after the session ended
            login(page, svc.base, member.username, world.passwords[member.username])
            _open_commission(page)
            _sair_in_another_tab(context, svc.base)
            page.get_by_label("Item", exact=True).click()
            page.keyboard.press("ArrowDown")               # opens the list
            page.get_by_role("option").nth(2).click()
            page.get_by_label("Usuário").wait_for()
            assert page.get_by_role("button", name="Gravar avaliação").count() == 0
        finally:
            browser.close()
    assert _entries(world.path, rnd.id, member.id) == 1     # the first save only: nothing after "Sair"
