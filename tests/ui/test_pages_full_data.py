"""Every page, as every role, on the data users meet — not on a fixture: the full demo database
(`python -m valuation db init --demo`, as README's start command makes it) and a generated
100 000-item database (bench/generate.py: the full demo plus a treasure contract, valued, decided,
published, with the União's choice and a draft statement).

A page view fails on an exception, a raw snake_case identifier or a blank marker (None, nan,
NaT, <NA>, empty) anywhere a user reads — the checks of ../shared/tools/pages_on_demo.py
--strict (`tests/ui_support.page_problems`). One session per (database, role), logged in as that
role's first demo user, walks through the pages the navigation offers it, in registry order,
as a person clicking the sidebar would; each page view is its own test, and opens every tab of
its page in turn (only the open tab is drawn: ui/tabs.py).
"""
from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.support.ui import ROOT, each_tab, first_user, page_problems, refused
from ui.registry import PAGES
from ui.session import SEEN_KEY, USER_KEY
from valuation.db import access

DATABASES = ("bench100k",)   # the full demo: test_pages_walk.py, with the other checks
VIEWS = [(db, role, spec.key) for db in DATABASES for role in access.ROLES for spec in PAGES
         if spec.exists() and spec.key in access.PAGES_BY_ROLE[role]]
_sessions: dict[tuple[str, str], AppTest] = {}


@pytest.fixture(scope="module")
def databases(bench_db: Path):
    """The two databases; while this module runs, exceptions keep their message (the product hides
    them from users: .streamlit/config.toml) so that a failure says what broke."""
    from streamlit import config

    hidden = config.get_option("client.showErrorDetails")
    config.set_option("client.showErrorDetails", "full")
    try:
        yield {"bench100k": bench_db}
    finally:
        config.set_option("client.showErrorDetails", hidden)
        _sessions.clear()


def _session(databases: dict[str, Path], db: str, role: str) -> AppTest:
    """The (database, role) session: app.py run once as that role's user, kept for its pages."""
    key = (db, role)
    if key not in _sessions:
        path = databases[db]
        user = first_user(path, role)
        os.environ["VALUATION_DB"] = str(path)
        st.cache_resource.clear()
        st.cache_data.clear()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.session_state[USER_KEY] = user
        at.session_state[SEEN_KEY] = datetime.now()
        at.run()
        assert not at.exception, f"{db}/{role}: app.py failed: {at.exception[0].message}"
        _sessions.clear()  # one live session at a time: the previous one's Store is released
        _sessions[key] = at
    return _sessions[key]


@pytest.mark.parametrize(("db", "role", "key"), VIEWS, ids=[f"{d}-{r}-{k}" for d, r, k in VIEWS])
def test_every_page_for_every_role_on_full_data(databases: dict[str, Path], db: str, role: str, key: str) -> None:
    at = _session(databases, db, role)
    os.environ["VALUATION_DB"] = str(databases[db])
    at.session_state[SEEN_KEY] = datetime.now()   # a person clicking through is never idle for 30 minutes
    at.switch_page(f"pages/{key}.py")
    at.run()
    assert not refused(at), f"{role} is offered {key} but the page refuses"
    for label in each_tab(at, key):   # ui/tabs.LazyTabs draws the open tab only: every tab in turn
        problems = page_problems(at)
        assert not problems, f"{db}/{role}/{key}" + (f", aba {label}" if label else "") + ": " + "; ".join(problems)


def test_the_views_cover_every_role_and_every_registered_page() -> None:
    """The parametrisation is not empty by accident: every role has pages, every page a role."""
    roles = {r for _, r, _ in VIEWS}
    pages = {k for _, _, k in VIEWS}
    assert roles == set(access.ROLES) and {d for d, _, _ in VIEWS} == set(DATABASES)
    assert pages == {p.key for p in PAGES}, "a registered page without a file, or offered to no role"
