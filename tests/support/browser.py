"""Browser tests: a real Streamlit server on 127.0.0.1 and Debian's Chromium driven by Playwright.

`running_app(db_path)` starts `streamlit run app.py` on a free loopback port with
VALUATION_DB pointing at the file (the test must have closed its own Store: one
process owns a DuckDB file) and yields the base URL; the server is stopped after.
`browser_page()` launches /usr/bin/chromium (never a downloaded browser) with every request that
is not to 127.0.0.1 blocked (`guard_context`): a test that made one fails when the page closes,
naming the address. `check_page(page)` fails on a Streamlit exception box and on visible blank
markers (None, nan, NaN, NaT, <NA>) — in text and in the cells a data grid shows; `login` runs it,
and so does `browser_page` on the last page of every test.
"""
from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(base: str, proc: subprocess.Popen[Any], timeout: float, failure: Callable[[], str]) -> None:
    """Until `base`'s /_stcore/health answers 200; RuntimeError(failure()) if `proc` ends or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(failure())
        time.sleep(0.3)


@contextlib.contextmanager
def running_app(db_path: Path | str, *, timeout: float = 60) -> Iterator[str]:
    port = _free_port()
    env = {**os.environ, "VALUATION_DB": str(db_path), "PYTHONUNBUFFERED": "1"}
    log = open(Path(db_path).with_suffix(".server.log"), "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, proc, timeout, lambda: "the Streamlit server did not start: "
                     + Path(log.name).read_text()[-2000:])
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


EXCEPTION_BOX = '[data-testid="stException"]'
GRID_CELLS = '[data-testid="stDataFrame"] [role="gridcell"], [data-testid="stDataFrame"] [role="columnheader"]'
BLANK_WORD = re.compile(r"(?<![\w<])(None|nan|NaN|NaT|<NA>)(?![\w>])")
LOCAL_HOSTS = ("127.0.0.1",)


def guard_context(context: Any) -> list[str]:
    """Abort every request of `context` that is not to 127.0.0.1 (data: and blob: URLs stay local);
    returns the list the blocked addresses are appended to."""
    blocked: list[str] = []

    def route(r: Any) -> None:
        url = r.request.url
        if url.startswith(("data:", "blob:")) or urlparse(url).hostname in LOCAL_HOSTS:
            r.continue_()
        else:
            blocked.append(url)
            r.abort()

    context.route("**/*", route)
    context.on("websocket", lambda ws: None if urlparse(ws.url).hostname in LOCAL_HOSTS else blocked.append(ws.url))
    return blocked


def new_page(browser: Any) -> tuple[Any, list[str]]:
    """A page in a new context (another person) with the same request guard: (page, blocked)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="pt-BR")
    blocked = guard_context(context)
    page = context.new_page()
    page.set_default_timeout(30_000)
    return page, blocked


def check_offline(blocked: list[str]) -> None:
    assert not blocked, "requests that would leave the machine: " + ", ".join(sorted(set(blocked))[:10])


def check_page(page: Any, where: str = "") -> None:
    """No Streamlit exception box, no visible None/nan/NaT/<NA> (text and data-grid cells)."""
    where = where or page.url
    boxes = page.locator(EXCEPTION_BOX)
    if boxes.count():
        raise AssertionError(f"{where}: Streamlit exception box: {boxes.first.inner_text()[:400]}")
    text = page.locator("body").inner_text()
    cells = page.locator(GRID_CELLS).all_text_contents()
    hits = sorted({m for t in [text, *cells] for m in BLANK_WORD.findall(t)})
    assert not hits, f"{where}: visible blank markers {hits}"


@contextlib.contextmanager
def browser_page() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        raise RuntimeError("Debian's chromium is required for browser tests: apt-get install -y chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page, blocked = new_page(browser)
            yield page
            check_page(page)
            check_offline(blocked)
        finally:
            browser.close()


def login(page: Any, base: str, username: str, password: str) -> None:
    page.goto(base)
    page.get_by_label("Usuário").fill(username)
    page.get_by_label("Senha").fill(password)
    page.get_by_role("button", name="Entrar").click()
    page.get_by_role("button", name="Sair").wait_for()
    check_page(page, f"{username} after login")


IDLE = ("() => document.querySelector('[data-testid=\"stApp\"]')?.getAttribute('data-test-script-state') "
        "=== 'notRunning'")


def wait_idle(page: Any) -> None:
    """Until the script run the last action started has finished (the page is drawn). The fixed 250 ms first let a
    run that the action queues behind another start: waiting only to see a run start returned in the gap between
    two runs of one page (the full run of 2026-12-07 lost the documents page's hover to it)."""
    page.wait_for_timeout(250)
    page.wait_for_function(IDLE)
    page.wait_for_load_state("networkidle")


def open_from_sidebar(page: Any, title: str, url_path: str | None) -> None:
    """Click the sidebar link `title`, as a person does; `url_path` None for the default page."""
    page.get_by_role("link", name=title, exact=True).first.click()
    if url_path:
        page.wait_for_url(f"**/{url_path}")
    page.locator("h1").first.wait_for()
    wait_idle(page)


def readme_logins(readme: Path = ROOT / "README.md") -> dict[str, tuple[str, str]]:
    """role → (username, password) of the first demo login of each role listed in README.md."""
    rows = re.findall(r"^\|\s*([a-z][\w.]+)\s*\|\s*([a-z_]+)[^|]*\|\s*(\S+)\s*\|$",
                      readme.read_text(encoding="utf-8"), re.M)
    logins: dict[str, tuple[str, str]] = {}
    from valuation.db.access import ROLES

    for user, role, password in rows:
        if role in ROLES:
            logins.setdefault(role, (user, password))
    return logins


def readme_password(username: str, readme: Path = ROOT / "README.md") -> str:
    """The password README.md lists for the demo login `username`."""
    found = re.search(rf"^\|\s*{re.escape(username)}\s*\|[^|]*\|\s*(\S+)\s*\|$", readme.read_text(encoding="utf-8"),
                      re.M)
    assert found, username
    return found.group(1)
