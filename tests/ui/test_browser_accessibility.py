"""Accessibility in Debian's Chromium (issue 23 item 18; Lei 13.146/2015 art. 63, eMAG, WCAG 2.1 AA).

axe-core (the npm package, tests/support/axe.py; no CDN) runs over the login page and over every page —
every tab of it — of three roles reached as a person reaches them (README's demo logins, the sidebar):
the DPC, a Commission member and an explorer, in one server and one browser. Any violation fails the
test unless ALLOWED lists it: Streamlit's own markup, which the app cannot change, each with its reason.
The Commission's entry form is walked with the keyboard alone: Tab to the value, the date, the vote;
Enter saves.
"""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.axe import run_axe
from tests.support.browser import browser_page, login, open_from_sidebar, readme_logins, running_app, wait_idle
from tests.support.db_copies import copy_database
from ui.registry import PAGES
from valuation.db import access

pytestmark = pytest.mark.browser

ROLES = ("dpc", "commission", "explorer")
# (rule id, regex on "data-testid ancestry | CSS target", why the app cannot fix it): Streamlit's own markup.
# README "Accessibility" says the same to users.
ALLOWED: tuple[tuple[str, str, str], ...] = (
    # st.navigation's sidebar draws each section ("Painel", "Cadastro"…) as a <div> holding its header and
    # its <li> links inside the one <ul data-testid="stSidebarNavItems"> (streamlit/static …SidebarNav):
    # <ul> then holds <div>s, and the <li>s have no list parent. The markup is Streamlit's frontend; the app
    # passes only the pages and their sections (no option changes it). The links stay a named navigation
    # landmark ("App pages") that screen readers list, each link with its page's name.
    ("list", r"stSidebarNav>stSidebarNavItems \|", "Streamlit's sidebar navigation: sections as <div> in <ul>"),
    ("listitem", r"stSidebarNav>stSidebarNavItems\b", "Streamlit's sidebar navigation: <li> inside a section <div>"),
)


def _allowed(rule: str, node: str) -> bool:
    return any(rule == r and re.search(t, node) for r, t, _ in ALLOWED)


def _check(page: Any, where: str, found: dict[str, set[str]], *, sidebar: bool = False) -> None:
    for rule, impact, help_, targets in run_axe(page, sidebar=sidebar):
        for target in targets:
            if not _allowed(rule, target):
                found.setdefault(f"{rule} ({impact}): {help_}", set()).add(f"{where}: {target}")


def _tabs(page: Any, where: str, found: dict[str, set[str]]) -> None:
    from playwright.sync_api import expect

    labels = [t.strip() for t in page.get_by_role("tab").all_inner_texts()]
    for label in labels[1:]:
        tab = page.get_by_role("tab", name=label, exact=True).first
        tab.click()
        expect(tab).to_have_attribute("aria-selected", "true")
        wait_idle(page)
        _check(page, f"{where} › {label}", found)


def _report(found: dict[str, set[str]]) -> str:
    out = []
    for rule, places in sorted(found.items()):
        out.append(f"{rule} — {len(places)} place(s):")
        out.extend(f"    {p}" for p in sorted(places)[:6])
    return "\n".join(out)


def test_axe_finds_nothing_the_app_can_fix(full_demo_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "demo.duckdb"
    copy_database(full_demo_db, db)
    logins = readme_logins()
    found: dict[str, set[str]] = {}
    views = 0
    started = time.monotonic()
    with running_app(db) as base, browser_page() as page:
        page.goto(base)
        page.get_by_label("Usuário").wait_for()
        wait_idle(page)
        _check(page, "login", found)
        for role in ROLES:
            user, password = logins[role]
            login(page, base, user, password)
            offered = [p for p in PAGES if p.exists() and access.may_view_page(
                access.Principal(0, user, user, role, None, None), p.key)]
            for i, spec in enumerate(offered):
                open_from_sidebar(page, spec.title, spec.key if i else None)
                _check(page, f"{role}/{spec.key}", found, sidebar=i == 0)   # a role's sidebar: checked once
                _tabs(page, f"{role}/{spec.key}", found)
                views += 1
            if role == "commission":                    # a member's entry, with the keyboard alone
                open_from_sidebar(page, "Avaliação da Comissão", "commission")
                code = keyboard_entry(page, found)
                _check(page, f"{role}/commission, {code} gravado pelo teclado", found)
            page.get_by_role("button", name="Sair").click()
            page.get_by_label("Usuário").wait_for()
    print(f"axe: {views} pages of {len(ROLES)} roles in {time.monotonic() - started:.0f} s")
    assert views >= 30, views                         # every page of the three roles was reached
    assert not found, "axe-core violations the app can fix:\n" + _report(found)


FOCUSED = """() => { const e = document.activeElement; if (!e) return ['', ''];
  const g = e.closest('[role=radiogroup]');
  return [e.getAttribute('aria-label') || (e.labels && e.labels[0] ? e.labels[0].innerText : '') || '',
          g ? (g.getAttribute('aria-label') || '') : '']; }"""


CHOICE = "() => (document.activeElement?.closest('label')?.innerText || '').trim()"


def tab_to(page: Any, label: str, *, group: bool = False, limit: int = 80) -> None:
    """Press Tab until the focused control is `label` (a radio group's name with group=True)."""
    for _ in range(limit):
        own, radio_group = page.evaluate(FOCUSED)
        if (radio_group if group else own).strip() == label:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {label!r} (last focus: {page.evaluate(FOCUSED)})")


def keyboard_entry(page: Any, found: dict[str, set[str]]) -> str:
    """On the Commission's entry form: the item's photo is named by the item's code and description; Tab to
    the value, the price date and the vote, Enter saves. Returns the item's code."""
    heading = page.locator('[data-testid="stHeadingWithActionElements"] h3').first.inner_text().strip()
    code = heading.split(" — ")[0]
    alt = page.locator('[data-testid="stImage"] img').first.get_attribute("alt")
    if alt != f"Foto: {heading}":
        found.setdefault("the item's photo is not named by its code and description", set()).add(f"alt={alt!r}")
    page.evaluate("() => document.activeElement && document.activeElement.blur()")   # Tab from the page's top
    tab_to(page, "Valor")
    page.keyboard.press("Control+A")
    page.keyboard.type("1.234,56")
    tab_to(page, "Data do preço")
    page.keyboard.press("Control+A")
    page.keyboard.type("10/11/2026")
    tab_to(page, "Voto", group=True)
    for _ in range(3):                                              # arrows move the choice, as in any radio group
        if page.evaluate(CHOICE) == "Histórico (art. 20 §3)":
            break
        page.keyboard.press("ArrowRight")
    assert page.evaluate(CHOICE) == "Histórico (art. 20 §3)"
    tab_to(page, "Data do preço")
    page.keyboard.press("Enter")
    page.get_by_text(f"Avaliação do item {code} gravada.").wait_for()
    wait_idle(page)
    return code
