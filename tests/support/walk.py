"""A walk through the pages in Debian's Chromium: its people (each a browser context of its own, logged in), the
screenshots it takes, and the gestures the pages need (a sidebar link, an expander, a Streamlit selectbox, a text
field, a form's button). `walking` opens the browser and, on a failure, keeps a screenshot of every page still open;
at the end it checks that no page reached beyond 127.0.0.1."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, check_offline, check_page, new_page, wait_idle


@contextlib.contextmanager
def walking(shots: Path, base: str = "", *, password: str | None = None) -> Iterator[Walk]:
    """Chromium and a `Walk` in it (`base`: the service's address, settable later)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        walk = Walk(browser, base, shots, password)
        try:
            yield walk
        except BaseException:
            walk.failed()
            raise
        finally:
            browser.close()
    for blocked in walk.blocked:
        check_offline(blocked)


class Walk:
    """The people of the walk, each a browser context of its own, and the screenshots."""

    def __init__(self, browser: Any, base: str, shots: Path, password: str | None = None):
        self.browser, self.base, self.shots, self.password = browser, base, shots, password
        self.count = 0
        self.blocked: list[list[str]] = []
        self.pages: list[Any] = []

    def failed(self) -> None:
        """A screenshot of every page still open, to see where the walk stopped."""
        for i, page in enumerate(self.pages):
            if not page.is_closed():
                page.screenshot(path=str(self.shots / f"falha-{i}.png"), full_page=True)

    def person(self, username: str, password: str | None = None) -> Any:
        """A new browser context logged in as `username` (`password`: else the walk's one password)."""
        page, blocked = new_page(self.browser)
        self.blocked.append(blocked)
        self.pages.append(page)
        page.set_viewport_size({"width": 1366, "height": 900})
        page.goto(self.base)
        fill(page, "Usuário", username)
        fill(page, "Senha", password or self.password or "")
        page.get_by_role("button", name="Entrar").click()
        page.get_by_role("button", name="Sair").wait_for()
        wait_idle(page)
        return page

    def shot(self, page: Any, name: str) -> None:
        self.count += 1
        check_page(page, name)
        page.screenshot(path=str(self.shots / f"{self.count:02d}-{name}.png"), full_page=True)


def go(page: Any, title: str) -> None:
    page.get_by_role("link", name=title, exact=True).first.click()
    page.locator("h1").first.wait_for()
    wait_idle(page)


def open_box(page: Any, label: str) -> None:
    page.locator('[data-testid="stExpander"] summary').filter(has_text=label).first.click()
    wait_idle(page)


def choose(scope: Any, label: str, option: str) -> None:
    """A Streamlit selectbox: open it, type the option, take it."""
    scope.get_by_label(label, exact=True).click()
    scope.page.keyboard.type(option) if hasattr(scope, "page") else scope.keyboard.type(option)
    (scope.page if hasattr(scope, "page") else scope).keyboard.press("Enter")


def fill(scope: Any, label: str, value: str) -> None:
    """A text field or area by its label (a field with help has a second element named 'Ajuda: …')."""
    box = scope.get_by_role("textbox", name=label, exact=True)
    box.or_(scope.locator(f'input[type="password"][aria-label="{label}"]')).first.fill(value)


def form(page: Any, button: str) -> Any:
    button_of = page.get_by_role("button", name=button, exact=True)
    return page.locator('[data-testid="stForm"]').filter(has=button_of).first


def submit(page: Any, button: str, expect_text: str) -> None:
    page.get_by_role("button", name=button, exact=True).click()
    page.get_by_text(expect_text).first.wait_for()
    wait_idle(page)
