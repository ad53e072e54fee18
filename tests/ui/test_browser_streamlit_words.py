"""No English of Streamlit's or Plotly's own where a person reads it (issue 23 item 9), in Chromium under the
real service on a copy of the full demo, as the DPC: pages with an upload box (Câmbio, Documentos e fotos),
tables and a chart (Prazos). Read are the visible text, the tooltips (title, data-title, and the tooltip a
hover on a table's toolbar button shows), aria-label and placeholder — what a screen reader says too.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, ROOT, login, readme_logins, wait_idle
from tests.support.db_copies import copy_database
from tests.support.service import running_service
from valuation.attachments.kinds import MAX_FILE_BYTES, MIB

pytestmark = pytest.mark.browser

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
PAGES = (("rates", "Câmbio"), ("documents", "Documentos e fotos"), ("deadlines", "Prazos"))


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
        page.wait_for_timeout(800)
        seen += english_on(page)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    if chart.count():
        chart.hover()
        page.locator(".modebar-btn").first.wait_for(state="attached")
        page.wait_for_timeout(500)
        seen += english_on(page)
    return seen


def test_streamlit_and_plotly_speak_portuguese(full_demo_db: Path, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    username, password = readme_logins()["dpc"]
    found: dict[str, list[str]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_context(viewport={"width": 1366, "height": 768}, locale="pt-BR").new_page()
        page.set_default_timeout(60_000)
        with running_service(db) as svc:
            login(page, svc.base, username, password)
            for key, title in PAGES:
                page.goto(f"{svc.base}/{key}")
                page.locator("h1", has_text=title).first.wait_for()
                wait_idle(page)
                page.wait_for_timeout(1000)
                # the page's upload box (Câmbio, Documentos) or chart (Prazos), and a table
                page.locator('[data-testid="stFileUploader"]' if key != "deadlines"
                             else '[data-testid="stPlotlyChart"]').first.wait_for()
                page.locator('[data-testid="stDataFrame"]').first.wait_for()
                hits = english_on(page) + hover_toolbars(page)
                if hits:
                    found[key] = sorted(set(hits))
            page.goto(f"{svc.base}/documents")
            page.locator('[data-testid="stFileUploaderDropzoneInstructions"]').first.wait_for()
            limits = page.locator('[data-testid="stFileUploaderDropzoneInstructions"]').all_inner_texts()
        browser.close()
    assert not found, "English where a person reads it: " + "; ".join(f"{k}: {v[:8]}" for k, v in found.items())
    assert any(f"Até {MAX_FILE_BYTES // MIB} MB por arquivo" in t for t in limits), limits


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
