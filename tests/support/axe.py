"""axe-core (Deque's accessibility engine, the npm package) for the browser tests (issue 23 item 18).

`axe_source()` returns the text of axe.min.js, installing the pinned version with npm into
build/axe-core-<version>/ (git-ignored; `scripts/setup.sh --dev` installs it too) the first time — from
the npm registry, never a CDN. `run_axe(page)` evaluates it in the page when missing and returns the
violations of WCAG 2.0/2.1 A and AA as (rule id, impact, help, [CSS targets]).
"""
from __future__ import annotations

import shutil
import subprocess
from functools import cache
from typing import Any

from tests.support.browser import ROOT

AXE_VERSION = "4.14.1"          # also in scripts/setup.sh
AXE_DIR = ROOT / "build" / f"axe-core-{AXE_VERSION}"
AXE_JS = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@cache
def axe_source() -> str:
    if not AXE_JS.is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is required to install axe-core for the accessibility test (apt-get install npm)")
        AXE_DIR.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([npm, "install", "--prefix", str(AXE_DIR), f"axe-core@{AXE_VERSION}", "--no-audit",
                               "--no-fund", "--no-save", "--silent"], capture_output=True, text=True, timeout=300)
        if done.returncode != 0 or not AXE_JS.is_file():
            raise RuntimeError(f"npm install axe-core@{AXE_VERSION} failed: {done.stderr[-1500:]}")
    return AXE_JS.read_text(encoding="utf-8")


# each node as "its data-testid ancestry | its CSS target" ("stSidebar>stSidebarNav>stSidebarNavItems | ul"):
# Streamlit's own elements are named by their data-testid, stable across versions unlike its CSS classes
RUN = """async ([tags, sidebar]) => {
  const context = sidebar ? document : {exclude: [['[data-testid="stSidebar"]']]};
  const r = await axe.run(context, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  const where = (sel) => {
    let e = document.querySelector(sel); const ids = [];
    for (; e; e = e.parentElement) { const t = e.getAttribute('data-testid'); if (t) ids.unshift(t); }
    return ids.join('>');
  };
  return r.violations.map(v => [v.id, v.impact, v.help,
    v.nodes.map(n => where(n.target[0]) + ' | ' + n.target.join(' '))]);
}"""


def run_axe(page: Any, *, sidebar: bool = True) -> list[tuple[str, str, str, list[str]]]:
    """(rule id, impact, help, ["testid ancestry | target", …]) of every WCAG 2.1 A/AA violation; with
    sidebar=False the sidebar (the same on every page of a role, checked once) is left out."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        # evaluated through the DevTools protocol: the service's CSP (script-src 'self') refuses an inline tag
        page.evaluate(axe_source() + "\n;undefined")
    return [tuple(v) for v in page.evaluate(RUN, [WCAG_AA, sidebar])]  # type: ignore[misc]
