"""AppTest helpers: run app.py as a given user and open one page.

`page_as(path, user, key)` logs the user in through session state (as the login
form would after `auth.authenticate`), runs the app once, switches to
`pages/<key>.py` and runs it. The cached Store is cleared so that no state
crosses tests.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.testing.v1 import AppTest

from ui.session import SEEN_KEY, USER_KEY
from valuation.db.access import Principal
from valuation.db.shared import close_shared
from valuation.db.store import Store

ROOT = Path(__file__).resolve().parents[2]
REFUSAL = "Acesso negado"


def glue_files() -> list[Path]:
    """The Streamlit side's sources — app.py, the pages, their tabs (page_tabs/) and ui/ — which the checks of
    what page code may do (HTML, uploads, caches) read."""
    return [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "page_tabs").rglob("*.py")),
            *sorted((ROOT / "ui").glob("*.py"))]


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


class RoleSessions:
    """A walk's logged-in app, one role at a time: the app of the role asked last is kept while the walk
    stays with it (its pages and tabs), and a new role starts a fresh one (`fresh_app`)."""

    def __init__(self) -> None:
        self._apps: dict[str, AppTest] = {}

    def get(self, path: Path | str, role: str, *, timeout: float = 120) -> AppTest:
        if role not in self._apps:
            at = fresh_app(path, timeout=timeout)
            at.session_state[USER_KEY] = first_user(path, role)
            at.session_state[SEEN_KEY] = datetime.now()
            at.run()
            assert not at.exception, f"{role}: app.py failed: {at.exception[0].message}"
            self._apps = {role: at}
        return self._apps[role]

    def clear(self) -> None:
        self._apps = {}


def first_user(path: Path | str, role: str) -> Principal:
    """The role's first active demo user (the README lists them), as the login would give it."""
    with Store(path, migrate=False) as store:
        row = store.fetch_one("SELECT id, username, full_name, role, organisation_id, commission_body, office_code "
                              "FROM users WHERE role = ? AND active ORDER BY id LIMIT 1", [role])
    assert row is not None, f"the database has no active {role}"
    return Principal(id=int(row["id"]), username=row["username"], full_name=row["full_name"], role=row["role"],
                     organisation_id=row["organisation_id"], commission_body=row["commission_body"],
                     office_code=row["office_code"])


def open_tab(at: AppTest, page: str, label: str) -> AppTest:
    """Open the tab `label` of `page` as a click on it does (ui/tabs.LazyTabs draws the open tab only)
    and run the page again."""
    from ui.tabs import tabs_key

    names = [t.label for t in at.tabs]
    assert label in names, f"no tab {label!r} on {page}: {names}"
    at.session_state[tabs_key(page, names)] = label
    at.run()
    return at


def open_expander(at: AppTest, label: str) -> AppTest:
    """Open the expander `label` as a click on it does (ui/expanders.lazy_expander draws its content only while
    open) and run the page again."""
    keys = [_expander_key(e) for e in at.expander if e.label == label]
    assert keys and keys[0], f"no lazy expander {label!r}: {[e.label for e in at.expander]}"
    at.session_state[keys[0]] = True
    at.run()
    return at


def _expander_key(expander: Any) -> str | None:
    """The key a lazy expander was given (its element id is `$$ID-<hash>-<key>`); None for a plain one."""
    wid = str(expander.proto.id)
    return wid.split("-", 2)[2] if wid.startswith("$$ID-") and wid.count("-") >= 2 else None


def open_expanders(at: AppTest) -> AppTest:
    """Open every lazy expander of the page, as a user clicking each, until none is left to open (an expander
    inside another appears when its parent opens)."""
    opened: set[str] = set()
    for _ in range(10):
        keys = [k for e in at.expander if (k := _expander_key(e)) is not None and k not in opened]
        if not keys:
            break
        for key in keys:
            at.session_state[key] = True
            opened.add(key)
        at.run()
    return at


def each_tab(at: AppTest, page: str) -> Iterator[str | None]:
    """Walk the tabs of `page` as a user clicking each in turn: yields the open tab's label once per
    tab, `at` holding that tab's run (the first tab is the one the page opens on) with every lazy expander
    opened; a page without tabs yields None once. For checks that must read all of a page
    (ui/tabs.LazyTabs draws the open tab only, ui/expanders.lazy_expander an open expander only)."""
    labels = [t.label for t in at.tabs]
    open_expanders(at)
    if not labels:
        yield None
        return
    yield labels[0]
    for label in labels[1:]:
        open_tab(at, page, label)
        open_expanders(at)
        yield label


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


# -- what no user should see (the checks of ../shared/tools/pages_on_demo.py --strict) -------------
RAW_IDENTIFIER = re.compile(r"(?<![\w./:@-])[a-z]+(?:_[a-z0-9]+)+(?![\w./:@-])")
BLANK_MARKERS = frozenset({"None", "nan", "NaN", "NaT", "<NA>", "empty"})


def visible_texts(at: AppTest) -> list[str]:
    """The texts a user reads on the run: titles, markdown, captions, alerts, metrics, the labels
    and options of choice widgets, and table/dataframe headers and cells (first 200 rows, 40 columns)."""
    import pandas as pd

    out: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "success", "error"):
        out += [str(e.value) for e in getattr(at, kind)]
    out += [f"{m.label} {m.value}" for m in at.metric]
    for kind in ("selectbox", "multiselect", "radio"):
        for w in getattr(at, kind):
            out.append(str(w.label))
            out += [str(o) for o in (w.options or [])][:200]
    for kind in ("dataframe", "table"):
        for d in getattr(at, kind):
            v = d.value
            if isinstance(v, pd.DataFrame):
                out += [str(c) for c in v.columns]
                out += [str(i) for i in v.index[:200]] if not isinstance(v.index, pd.RangeIndex) else []
                for c in v.columns[:40]:
                    out += [str(x) for x in v[c].head(200).tolist()]
    return out


def page_problems(at: AppTest) -> list[str]:
    """What a user of the run would meet that no user should: an exception, raw snake_case
    identifiers, blank markers. [] when the page is clean."""
    bad = []
    for e in at.exception:
        frames = [" ".join(str(f).split()) for f in (e.stack_trace or []) if str(ROOT) in str(f)]
        where = f" (at {frames[-1][:200]})" if frames else ""
        bad.append(f"exception: {' '.join(str(e.message).split())[:300]}{where}")
    seen = visible_texts(at)
    raw = sorted({m for t in seen for m in RAW_IDENTIFIER.findall(t)})
    if raw:
        bad.append("raw identifiers: " + ", ".join(raw[:12]) + (" …" if len(raw) > 12 else ""))
    blanks = sorted({t.strip() for t in seen if t.strip() in BLANK_MARKERS})
    if blanks:
        bad.append("blank markers: " + ", ".join(blanks))
    return bad


# -- the strict date fields (ui.fields.date_field: a dd/mm/aaaa text box; no page uses st.date_input) --------
DATE_PLACEHOLDER = "dd/mm/aaaa"


def date_box(at: AppTest, label: str | None = None) -> Any:
    """The date field labelled `label` (the page's first one when None), as the person sees it."""
    boxes = [t for t in at.text_input if t.placeholder == DATE_PLACEHOLDER and (label is None or t.label == label)]
    assert boxes, f"no date field {label!r}: {[t.label for t in at.text_input]}"
    return boxes[0]


def set_date(at: AppTest, label: str | None, day: date) -> Any:
    """Type `day` as dd/mm/aaaa into the date field `label` (see `date_box`); the field, to chain `.run()`."""
    return date_box(at, label).set_value(day.strftime("%d/%m/%Y"))


def date_value(at: AppTest, label: str | None = None) -> date:
    """The day the date field `label` holds."""
    return datetime.strptime(str(date_box(at, label).value), "%d/%m/%Y").date()


def clean_tab(db_path: Path | str, user: Principal, page: str, tab: str) -> AppTest:
    """`page` as `user` with its tab `tab` open and every expander opened, asserted drawn without exception and
    without a page problem (`page_problems`)."""
    at = open_expanders(open_tab(page_as(db_path, user, page), page, tab))
    assert not at.exception, at.exception
    assert not page_problems(at), page_problems(at)
    return at


def selectbox(at: AppTest, label: str) -> Any:
    """The page's selectbox labelled `label` (the first; assertion naming the labels there when none is)."""
    found = [w for w in at.selectbox if w.label == label]
    assert found, f"no selectbox {label!r}: {[w.label for w in at.selectbox]}"
    return found[0]
