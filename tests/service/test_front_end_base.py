"""service/front_end_base.py against the real service and Debian's Chromium (issue 28: a page by its address).

A tab opened on a page's address used to ask `/<page>/_stcore/health` (a 404) before the service's root:
Streamlit's front end probing for its base path. The service now answers its root and every page's
address with Streamlit's index.html plus a script naming the base, so the only health request is the
root's; the script is allowed by the Content-Security-Policy, 304s work, and an address that is not a
page keeps Streamlit's own answer.
"""
from __future__ import annotations

import base64
import hashlib
import re
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from service import chart_bundle, front_end_base
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, login
from tests.support.service import running_service

pytestmark = pytest.mark.browser


def _get(url: str, headers: dict[str, str] | None = None, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


def _check_http(base: str) -> None:
    status, headers, body = _get(base + "/deadlines")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert headers["cache-control"] == "no-cache" and headers["etag"]
    scripts = re.findall(r"<script(?: type=\"module\")?>(.*?)</script>", body.decode("utf-8"), flags=re.S)
    assert front_end_base.SCRIPT in scripts and front_end_base.CHARTS_SCRIPT in scripts
    for script in scripts:      # every inline script of the page is allowed by the policy sent with it
        digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
        assert f"'sha256-{digest}'" in headers["content-security-policy"]
    assert body.index(front_end_base.SCRIPT.encode()) < body.index(b'<script type="module"')
    # the charts' early import runs after Streamlit's own module (module scripts run in document order)
    assert body.index(b'<script type="module" crossorigin src=') < body.index(front_end_base.CHARTS_SCRIPT.encode())
    for path in ("/", "/entrar", "/commission"):
        status, _, same = _get(base + path)
        assert status == 200 and same == body
    status, again, empty = _get(base + "/deadlines", {"If-None-Match": headers["etag"]})
    assert status == 304 and empty == b"" and again["etag"] == headers["etag"]
    status, _, head = _get(base + "/deadlines", method="HEAD")
    assert status == 200 and head == b""
    status, _, other = _get(base + "/nao-existe")          # not a page: Streamlit's own index.html
    assert status == 200 and front_end_base.SCRIPT.encode() not in other and b'<script type="module"' in other


BASES = """(script) => {
  const out = {};
  for (const path of ['/', '/deadlines', '/deadlines/', '/entrar', '/valuation/deadlines', '/valuation/',
                      '/nao-existe', '/a/b/rates']) {
    const win = {};
    new Function('location', 'window', script)({pathname: path, origin: 'https://dpc.mb'}, win);
    out[path] = win.__streamlit ? win.__streamlit.BACKEND_BASE_URL : null;
  }
  return out;
}"""


def test_a_page_by_its_address_asks_only_the_root_for_health(small_world: Any, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    small_world.store.close()
    db = tmp_path / "base.duckdb"
    shutil.copyfile(small_world.path, db)
    username = small_world.username("dpc")
    with sync_playwright() as p, running_service(db) as svc:
        _check_http(svc.base)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            ctx = browser.new_context(viewport={"width": 1300, "height": 900}, locale="pt-BR")
            first = ctx.new_page()
            first.set_default_timeout(60_000)
            login(first, svc.base, username, small_world.passwords[username])
            # The script's bases, run by Chromium's JavaScript on other addresses (a proxy's prefix too).
            assert first.evaluate(BASES, front_end_base.SCRIPT) == {
                "/": "https://dpc.mb/", "/deadlines": "https://dpc.mb/", "/deadlines/": "https://dpc.mb/",
                "/entrar": "https://dpc.mb/", "/valuation/deadlines": "https://dpc.mb/valuation/",
                "/valuation/": None, "/nao-existe": None, "/a/b/rates": "https://dpc.mb/a/b/"}
            for path, title in (("/deadlines", "Prazos"), ("/rates", "Câmbio")):
                tab = ctx.new_page()
                tab.set_default_timeout(60_000)
                asked: list[str] = []
                problems: list[str] = []
                tab.on("request", lambda r, asked=asked: asked.append(r.url))
                tab.on("console", lambda m, problems=problems: problems.append(m.text) if m.type == "error" else None)
                tab.goto(svc.base + path)
                tab.get_by_role("heading", name=title).first.wait_for()
                tab.get_by_role("button", name="Sair").wait_for()        # the cookie's session, on this page
                health = [u.removeprefix(svc.base) for u in asked if "_stcore/health" in u]
                assert health and set(health) == {"/_stcore/health"}, health
                assert tab.evaluate("window.__streamlit.BACKEND_BASE_URL") == svc.base + "/"
                # the charts' plotly.js: imported by a page that draws a chart when opened, never by another
                bundle = [u for u in asked if u.endswith("/" + chart_bundle.url_path())]
                assert bool(bundle) == (path == "/deadlines"), (path, bundle)
                assert not [m for m in problems if "Content Security Policy" in m], problems
                assert tab.locator('[data-testid="stException"]').count() == 0
                tab.close()
        finally:
            browser.close()
