"""End to end in Debian's Chromium on the full demo database (issue 11): every page of every role,
reached as a person reaches it (README's demo logins, the sidebar), with every request that is
not to 127.0.0.1 blocked — a blocked one fails the test (tab icon, fonts, map outlines are the
app's own) — and no Streamlit exception box or visible None/nan on any page
(`tests/browser_support.check_page`). The first request after the server starts is a deep link:
it answers with the login form, in Portuguese, and after the login opens that page."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import (
    browser_page,
    check_page,
    login,
    open_from_sidebar,
    readme_logins,
    running_app,
    wait_idle,
)
from tests.support.db_copies import copy_database
from ui.registry import PAGES
from valuation.db import access

pytestmark = pytest.mark.browser


def open_each_tab(page: Any, where: str) -> None:
    """Click every tab after the first, as a person does, and check each once its run has drawn it
    (ui/tabs.LazyTabs: a click is a script run that draws that tab only)."""
    from playwright.sync_api import expect

    tabs = page.get_by_role("tab")
    labels = [t.strip() for t in tabs.all_inner_texts()]
    for label in labels[1:]:
        tab = page.get_by_role("tab", name=label, exact=True).first
        tab.click()
        expect(tab).to_have_attribute("aria-selected", "true")
        wait_idle(page)
        check_page(page, f"{where}, aba {label}")


def test_every_page_of_every_role_offline(full_demo_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "demo.duckdb"
    copy_database(full_demo_db, db)   # the server owns its own copy (and its attached files)
    logins = readme_logins()
    assert set(logins) == set(access.ROLES)
    problems: list[str] = []
    with running_app(db) as base, browser_page() as page:
        page.goto(f"{base}/audit")                      # a bookmark, first request after the start
        page.get_by_label("Usuário").wait_for()
        wait_idle(page)
        body = page.inner_text("body")
        assert "Naufrágios e bens resgatados" in body and "Page not found" not in body
        assert page.get_by_role("link", name="found things").count() == 0   # no folder-based navigation
        user, password = logins["admin"]
        page.get_by_label("Usuário").fill(user)
        page.get_by_label("Senha").fill(password)
        page.get_by_role("button", name="Entrar").click()
        page.get_by_role("heading", name="Auditoria").wait_for()   # the bookmarked page, after the login
        wait_idle(page)
        page.get_by_role("button", name="Sair").click()
        page.get_by_label("Usuário").wait_for()
        for role in access.ROLES:
            user, password = logins[role]
            login(page, base, user, password)
            offered = [p for p in PAGES if p.exists() and access.may_view_page(
                access.Principal(0, user, user, role, None, None), p.key)]
            for i, spec in enumerate(offered):
                try:
                    open_from_sidebar(page, spec.title, spec.key if i else None)
                    check_page(page, f"{role}/{spec.key}")
                    open_each_tab(page, f"{role}/{spec.key}")
                except AssertionError as exc:
                    problems.append(str(exc).splitlines()[0])
                except Exception as exc:  # a page that never finished drawing
                    problems.append(f"{role}/{spec.key}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
            page.get_by_role("button", name="Sair").click()
            page.get_by_label("Usuário").wait_for()
    assert not problems, "\n".join(problems)
