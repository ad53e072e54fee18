"""AppTest helpers: run app.py as a given user and open one page.

`page_as(path, user, key)` logs the user in through session state (as the login
form would after `auth.authenticate`), runs the app once, switches to
`pages/<key>.py` and runs it. The cached Store is cleared so that no state
crosses tests.
"""
from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from ui.session import SEEN_KEY, USER_KEY
from valuation.auth import Principal
from valuation.store.shared import close_shared

ROOT = Path(__file__).resolve().parent.parent
REFUSAL = "Acesso negado"


def fresh_app(db_path: Path | str, *, timeout: float = 60) -> AppTest:
    os.environ["VALUATION_DB"] = str(db_path)
    close_shared()   # the previous test's process-wide Store
    st.cache_resource.clear()
    st.cache_data.clear()
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)


def page_as(db_path: Path | str, user: Principal | None, key: str, *, timeout: float = 60) -> AppTest:
    at = fresh_app(db_path, timeout=timeout)
    if user is not None:
        at.session_state[USER_KEY] = user
        at.session_state[SEEN_KEY] = datetime.now()
    at.run()
    at.switch_page(f"pages/{key}.py")
    at.run()
    return at


def page_direct(db_path: Path | str, user: Principal | None, key: str, *, timeout: float = 60) -> AppTest:
    """Run pages/<key>.py as the script itself, bypassing st.navigation: what a guessed URL
    or a page the navigation does not offer would execute. The page's own guard must refuse."""
    os.environ["VALUATION_DB"] = str(db_path)
    close_shared()
    st.cache_resource.clear()
    st.cache_data.clear()
    at = AppTest.from_file(str(ROOT / "pages" / f"{key}.py"), default_timeout=timeout)
    if user is not None:
        at.session_state[USER_KEY] = user
        at.session_state[SEEN_KEY] = datetime.now()
    at.run()
    return at


def offered(db_path: Path | str, user: Principal, key: str) -> bool:
    """Does the navigation built for `user` offer pages/<key>.py?"""
    at = fresh_app(db_path)
    at.session_state[USER_KEY] = user
    at.session_state[SEEN_KEY] = datetime.now()
    at.run()
    try:
        at.switch_page(f"pages/{key}.py")
    except ValueError:
        return False
    return True


def refused(at: AppTest) -> bool:
    return any(REFUSAL in e.value for e in at.error)


def texts(at: AppTest) -> str:
    """All visible text of the run (titles, markdown, captions, metrics, errors), for assertions."""
    parts: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    return "\n".join(parts)
