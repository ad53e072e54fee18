"""ONE walk in Debian's Chromium over the full demo (issues 11 and 23): the real service on a copy of it,
one login per role (README's demo logins), every page the role is offered reached from the sidebar as a
person reaches it, every tab of it clicked once — and at every stop all the browser checks at once. Each
check is its own test below, reading the walk's result (built once, `walk`):

- pages: no Streamlit exception box, no visible None/nan/NaT/<NA> (text and grid cells: `check_page`), no
  page that never finishes drawing;
- offline: every request that is not to 127.0.0.1 is blocked, and a blocked one fails (tab icon, fonts, map
  outlines are the app's own); so does one the service's Content Security Policy refused (the console says so);
- bookmark: the first request after the start is a deep link (/audit): it answers with the login form, in
  Portuguese, with no folder-based navigation, and after the login opens that page;
- axe: axe-core (the npm package, tests/support/axe.py; no CDN) over the login page and every page and tab of
  three roles (DPC, Commission, explorer; Lei 13.146/2015 art. 63, eMAG, WCAG 2.1 AA) finds nothing but
  ALLOWED (Streamlit's own markup, each with its reason);
- keyboard: the Commission's entry form is walked with the keyboard alone (Tab to the value, the date, the
  vote; Enter saves) and the item's photo is named by the item's code and description;
- english: no English of Streamlit's or Plotly's own where a person reads it — visible text, tooltips
  (title, data-title), aria-label, placeholder — at every stop; on Câmbio, Documentos e fotos (upload boxes)
  and Prazos (a chart) also after hovering a table's toolbar and the chart (the tooltip and the mode bar);
- upload limit: the attachment box states the store's per-file limit.
"""
from __future__ import annotations

import ast
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.axe import run_axe
from tests.support.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    check_page,
    login,
    new_page,
    open_from_sidebar,
    readme_logins,
    wait_idle,
)
from tests.support.db_copies import copy_database
from tests.support.service import running_service
from ui.registry import PAGES
from valuation.attachments.kinds import MAX_FILE_BYTES, MIB
from valuation.db import access

pytestmark = pytest.mark.browser

# the first role logs in from the bookmark; the others from the login page
WALK_ROLES = ("admin", *(r for r in access.ROLES if r != "admin"))
AXE_ROLES = ("dpc", "commission", "explorer")
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
# Streamlit's (upload box, table toolbar and menu, element toolbar, frame) and Plotly's (mode bar) English.
ENGLISH = ("Drag and drop", "per file", "Upload", "Browse files", "Download as CSV", "Search", "Fullscreen",
           "Show/hide columns", "Download plot", "Zoom in", "Zoom out", "Autoscale", "Reset axes", "Pan",
           "Box Select", "Lasso Select", "Choose an option", "Collapse sidebar", "Skip to main content",
           "Help for", "Link to heading", "Scroll tabs right", "App pages", "Sidebar", "Decrement", "Increment",
           "file upload")
PATTERN = re.compile(r"(?<![\w/])(" + "|".join(re.escape(w) for w in ENGLISH) + r")(?![\w])")
READ = """() => {
  const out = [document.body.innerText];
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder], [data-title]')) {
    for (const a of ['title', 'aria-label', 'placeholder', 'data-title']) {
      const v = el.getAttribute(a); if (v) out.push(a + '=' + v);
    }
  }
  return out;
}"""
CHART = '[data-testid="stPlotlyChart"], .valuation-chart'    # Streamlit's chart, or the service's (ui/charts.py)
# the DPC's pages with an upload box (Câmbio, Documentos e fotos) or a chart (Prazos), and a table: hovered
HOVERED = {"rates": '[data-testid="stFileUploader"]', "documents": '[data-testid="stFileUploader"]',
           "deadlines": CHART}
NARROW, WIDE = {"width": 1366, "height": 768}, {"width": 1400, "height": 1000}   # WIDE: tests/support/browser
CHECKS = ("pages", "offline", "bookmark", "axe", "keyboard", "english", "upload_limit")


@dataclass
class Walk:
    found: dict[str, list[str]] = field(default_factory=lambda: {c: [] for c in CHECKS})
    axe: dict[str, set[str]] = field(default_factory=dict)    # rule → places
    views: dict[str, int] = field(default_factory=dict)       # role → page views (tabs included)
    axe_views: int = 0
    hovered: set[str] = field(default_factory=set)
    limits: list[str] = field(default_factory=list)
    keyboard_code: str = ""


def _allowed(rule: str, node: str) -> bool:
    return any(rule == r and re.search(t, node) for r, t, _ in ALLOWED)


def english_on(page: Any) -> list[str]:
    return sorted({f"{m.group(1)!r} in {t[:80]!r}" for t in page.evaluate(READ) for m in PATTERN.finditer(t)})


def hover_toolbars(page: Any) -> list[str]:
    """Hover a table (its toolbar appears) and its first toolbar button (its tooltip appears), and a chart
    (Plotly's mode bar appears): what the person then reads."""
    seen: list[str] = []
    grid = page.locator('[data-testid="stDataFrame"]').first
    if grid.count():
        grid.hover()
        button = page.locator('[data-testid="stElementToolbar"] button').first
        button.wait_for(state="visible")
        button.hover()
        page.wait_for_timeout(800)          # the tooltip shows after a hover delay
        seen += english_on(page)
    chart = page.locator(CHART).first
    if chart.count():
        chart.hover()
        page.locator(".modebar-btn").first.wait_for(state="attached")
        page.wait_for_timeout(500)
        seen += english_on(page)
    return seen


def _stop(walk: Walk, page: Any, role: str, where: str, *, sidebar: bool = False) -> None:
    """Every check of a page as drawn now (a page, a tab, the login form)."""
    try:
        check_page(page, where)
    except AssertionError as exc:
        walk.found["pages"].append(str(exc).splitlines()[0])
    if role in AXE_ROLES:
        walk.axe_views += 1
        for rule, impact, help_, targets in run_axe(page, sidebar=sidebar):
            for target in targets:
                if not _allowed(rule, target):
                    walk.axe.setdefault(f"{rule} ({impact}): {help_}", set()).add(f"{where}: {target}")
    walk.found["english"] += [f"{where}: {h}" for h in english_on(page)]


def _open_page(walk: Walk, page: Any, role: str, spec: Any, first: bool) -> None:
    from playwright.sync_api import expect

    where = f"{role}/{spec.key}"
    hovered = role == "dpc" and spec.key in HOVERED
    if hovered:          # a laptop's screen: the tabs overflow ("Scroll tabs right") as a person sees them
        page.set_viewport_size(NARROW)
    open_from_sidebar(page, spec.title, None if first else spec.key)
    walk.views[role] = walk.views.get(role, 0) + 1
    if hovered:
        page.locator(HOVERED[spec.key]).first.wait_for()
        page.locator('[data-testid="stDataFrame"]').first.wait_for()
        walk.found["english"] += [f"{where} (hover): {h}" for h in hover_toolbars(page)]
        walk.hovered.add(spec.key)
        if spec.key == "documents":
            instructions = page.locator('[data-testid="stFileUploaderDropzoneInstructions"]')
            instructions.first.wait_for()
            walk.limits = instructions.all_inner_texts()
    _stop(walk, page, role, where, sidebar=first)          # a role's sidebar: checked once
    if hovered:
        page.set_viewport_size(WIDE)
    labels = [t.strip() for t in page.get_by_role("tab").all_inner_texts()]
    for label in labels[1:]:
        tab = page.get_by_role("tab", name=label, exact=True).first
        tab.click()
        expect(tab).to_have_attribute("aria-selected", "true")
        wait_idle(page)
        walk.views[role] += 1
        _stop(walk, page, role, f"{where}, aba {label}")


def _bookmark(walk: Walk, page: Any, base: str, user: str, password: str) -> None:
    """The first request after the start: /audit, the login form, then that page."""
    page.goto(f"{base}/audit")
    page.get_by_label("Usuário").wait_for()
    wait_idle(page)
    body = page.inner_text("body")
    if "Naufrágios e bens resgatados" not in body or "Page not found" in body:
        walk.found["bookmark"].append(f"the bookmark's first answer is not the login form: {body[:200]!r}")
    if page.get_by_role("link", name="found things").count():
        walk.found["bookmark"].append("folder-based navigation offered before the login")
    for role in AXE_ROLES[:1]:                    # the login form, once
        _stop(walk, page, role, "login")
    page.get_by_label("Usuário").fill(user)
    page.get_by_label("Senha").fill(password)
    page.get_by_role("button", name="Entrar").click()
    try:
        page.get_by_role("heading", name="Auditoria").wait_for()   # the bookmarked page, after the login
    except Exception as exc:  # noqa: BLE001 — reported by its test
        walk.found["bookmark"].append(f"after the login the bookmarked page did not open: {type(exc).__name__}")
    wait_idle(page)


@pytest.fixture(scope="module")
def walk(full_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Walk]:
    from playwright.sync_api import sync_playwright

    db = copy_database(full_demo_db, tmp_path_factory.mktemp("walk") / "demo.duckdb")  # the server's own copy
    logins = readme_logins()
    assert set(logins) == set(access.ROLES)
    result = Walk()
    started = time.monotonic()
    with running_service(db) as svc, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page, blocked = new_page(browser)
            # under the service's CSP the browser itself refuses an address not its own before any request:
            # what it refused counts as a request that would have left the machine
            page.on("console", lambda m: blocked.append(f"CSP: {m.text[:200]}")
                    if "Content Security Policy" in m.text else None)
            page.set_default_timeout(60_000)
            for n, role in enumerate(WALK_ROLES):
                user, password = logins[role]
                if n == 0:
                    _bookmark(result, page, svc.base, user, password)
                else:
                    try:
                        login(page, svc.base, user, password)
                    except AssertionError as exc:
                        result.found["pages"].append(str(exc).splitlines()[0])
                offered = [s for s in PAGES if s.exists() and access.may_view_page(
                    access.Principal(0, user, user, role, None, None), s.key)]
                for i, spec in enumerate(offered):
                    try:
                        _open_page(result, page, role, spec, i == 0)
                    except Exception as exc:  # noqa: BLE001 — a page that never finished drawing
                        result.found["pages"].append(
                            f"{role}/{spec.key}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                if role == "commission":                    # a member's entry, with the keyboard alone
                    try:
                        open_from_sidebar(page, "Avaliação da Comissão", "commission")
                        result.keyboard_code = keyboard_entry(page, result.found["keyboard"])
                        _stop(result, page, role, f"{role}/commission, {result.keyboard_code} gravado pelo teclado")
                    except Exception as exc:  # noqa: BLE001 — reported by its test
                        result.found["keyboard"].append(f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
                page.get_by_role("button", name="Sair").click()
                page.get_by_label("Usuário").wait_for()
            result.found["offline"] += sorted(set(blocked))
        finally:
            browser.close()
    print(f"browser walk: {sum(result.views.values())} views of {len(WALK_ROLES)} roles "
          f"in {time.monotonic() - started:.0f} s")
    yield result


def _report(found: dict[str, set[str]]) -> str:
    out = []
    for rule, places in sorted(found.items()):
        out.append(f"{rule} — {len(places)} place(s):")
        out.extend(f"    {p}" for p in sorted(places)[:6])
    return "\n".join(out)


def test_the_walk_reached_every_page_of_every_role(walk: Walk) -> None:
    expected = {r: sum(1 for s in PAGES if s.exists() and s.key in access.PAGES_BY_ROLE[r]) for r in WALK_ROLES}
    assert all(walk.views.get(r, 0) >= n for r, n in expected.items()), (walk.views, expected)
    assert walk.axe_views >= 30, walk.axe_views            # every page of the three roles was checked by axe
    assert walk.hovered == set(HOVERED), walk.hovered


def test_no_exception_box_blank_marker_or_page_that_never_draws(walk: Walk) -> None:
    assert not walk.found["pages"], "\n".join(walk.found["pages"])


def test_no_request_leaves_the_machine(walk: Walk) -> None:
    assert not walk.found["offline"], "requests that would leave the machine: " + ", ".join(walk.found["offline"][:10])


def test_a_bookmark_answers_with_the_login_and_then_opens_its_page(walk: Walk) -> None:
    assert not walk.found["bookmark"], "\n".join(walk.found["bookmark"])


def test_axe_finds_nothing_the_app_can_fix(walk: Walk) -> None:
    assert not walk.axe, "axe-core violations the app can fix:\n" + _report(walk.axe)


def test_the_commission_entry_works_with_the_keyboard_alone(walk: Walk) -> None:
    assert not walk.found["keyboard"], "\n".join(walk.found["keyboard"])
    assert walk.keyboard_code


def _english(walk: Walk, *, hovered: bool) -> list[str]:
    pages = tuple(f"dpc/{k}" for k in HOVERED)
    return sorted({f for f in walk.found["english"] if f.startswith(pages) == hovered})


def test_streamlit_and_plotly_speak_portuguese(walk: Walk) -> None:
    """The DPC's pages with an upload box, a table's toolbar and a chart, hovered (every tab of them)."""
    found = _english(walk, hovered=True)
    assert not found, "English where a person reads it:\n" + "\n".join(found[:30])


def test_streamlit_speaks_portuguese_at_every_other_stop(walk: Walk) -> None:
    found = _english(walk, hovered=False)
    assert not found, "English where a person reads it:\n" + "\n".join(found[:30])


def test_the_upload_box_shows_the_attachment_limit(walk: Walk) -> None:
    assert any(f"Até {MAX_FILE_BYTES // MIB} MB por arquivo" in t for t in walk.limits), walk.limits


def test_the_upload_box_states_the_attachment_limit() -> None:
    """The attachment boxes announce the store's per-file limit (the server's maxUploadSize is the larger one
    of the photo ZIP and the imports)."""
    tree = ast.parse((ROOT / "ui" / "attachments.py").read_text(encoding="utf-8"))
    sizes = [kw.value.value for node in ast.walk(tree) if isinstance(node, ast.Call)
             and getattr(node.func, "attr", None) == "file_uploader" and node.args
             and "Arquivo ZIP" not in ast.unparse(node.args[0])
             for kw in node.keywords if kw.arg == "max_upload_size" and isinstance(kw.value, ast.Constant)]
    boxes = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and getattr(node.func, "attr", None) == "file_uploader"]
    assert len(sizes) == len(boxes) - 1 and set(sizes) == {MAX_FILE_BYTES // MIB}, sizes


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


def keyboard_entry(page: Any, found: list[str]) -> str:
    """On the Commission's entry form: the item's photo is named by the item's code and description; Tab to
    the value, the price date and the vote, Enter saves. Returns the item's code."""
    heading = page.locator('[data-testid="stHeadingWithActionElements"] h3').first.inner_text().strip()
    code = heading.split(" — ")[0]
    alt = page.locator('[data-testid="stImage"] img').first.get_attribute("alt")
    if alt != f"Foto: {heading}":
        found.append(f"the item's photo is not named by its code and description: alt={alt!r}")
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
