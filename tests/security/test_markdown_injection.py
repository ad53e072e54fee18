"""Issue 14.6 — Markdown injection: text a user wrote never reaches the page as Markdown or HTML.

Reproduction (before the fix): an explorer's item description (or a user's full name) holding
`![x](http://…)` was rendered by `st.subheader(f"…{description}")`: a tracking image, or a phishing
link, reached every Commission member who opened the item.

On a copy of the full demo, every free-text column a user can write (item descriptions and notes,
users' full names, organisation and wreck names and notes, owners, event notes, reasons,
comments, attachment captions and file names, imports' file names, …) is prefixed with a payload
holding an image, a `javascript:` link, raw HTML, a `:material/…:` shortcode, `**bold**` and
`$x$`. Then every page is opened as every role, and every string of the element tree that
Streamlit renders as Markdown (bodies of markdown/caption/headings/alerts, widget labels, help
texts, tab and expander labels, radio options …) must hold none of the payload's pieces verbatim:
escaped (`ui.safe.md`) or shown as plain text (`st.text`, a table cell, a select box option).
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest
import streamlit as st
from google.protobuf.message import Message
from streamlit.testing.v1 import AppTest

from tests.support.db_copies import copy_database
from tests.support.ui import ROOT, each_tab, first_user
from ui.registry import PAGES
from ui.session import SEEN_KEY, USER_KEY
from valuation.db import access
from valuation.db.shared import close_shared

PAYLOAD = ("![x](http://127.0.0.1:9/t.png) [a](javascript:alert(1)) <img src=x onerror=alert(1)> "
           ":material/warning: **bold** $x$ ")
# Any one of these, verbatim in a string Streamlit renders as Markdown, is an injection.
PIECES = ("](http://127.0.0.1:9/t.png)", "](javascript:alert(1))", "<img src=x onerror", ":material/warning:",
          "**bold**", "$x$")
HTML_PIECE = "<img src=x onerror"

# Every free-text column a user can write through a form or an upload (codes, dates, amounts and
# the system's own texts are validated or generated and left alone).
FREE_TEXT: dict[str, tuple[str, ...]] = {
    "items": ("description", "notes", "material", "dimensions", "lot"),
    "wrecks": ("name", "notes", "signalling", "vessel_type", "flag"),
    "organisations": ("name", "trade_name", "address", "city", "representative_name", "experience"),
    "owners": ("name", "address", "notes"),
    "users": ("full_name",),
    "assessment_log": ("source_note",),
    "attachments": ("original_name", "caption", "note"),
    "imports": ("file_name",),
    "contracts": ("cancel_reason",),
    "cancellation_compensation": ("reason",),
    "deadline_events": ("note",),
    "difficulty_assessments": ("note",),
    "inspection_expenses": ("description", "inspector"),
    "item_deliveries": ("place", "received_by", "note"),
    "owner_balances": ("note",),
    "policies": ("reason",),
    "removal_orders": ("reason",),
    "survey_cost_lines": ("line", "overrun_reason"),
    "statement_survey_lines": ("overrun_reason",),
    "wreck_suspensions": ("reason",),
    "local_holidays": ("name",),
    "co_signatures": ("signatory", "act"),
}

# Strings Streamlit shows as plain text: (element type, field). Everything else is treated as Markdown.
PLAIN_FIELDS = {"options", "value", "default", "placeholder", "raw_value", "id", "form_id", "data", "url",
                "formatted_value", "column_config", "editing_mode", "selection_mode", "file_name", "mime_type"}
PLAIN_TYPES = {"text", "code", "json", "arrow_data_frame", "dataframe", "table", "arrow_table", "exception",
               "selectbox", "multiselect", "text_input", "text_area", "date_input", "number_input",
               "time_input", "imgs", "image", "plotly_chart", "vega_lite_chart", "deck_gl_json_chart", "pdf",
               "download_button", "file_uploader"}
# …but their label, help and (st.image) caption are Markdown all the same.
ALWAYS_MARKDOWN = {"label", "help", "caption"}
# Bare addresses and shortcodes are found in the text *after* backslash escapes are resolved
# (remark's autolink-literal, Streamlit's icon/emoji replacement): an escaped `http\://…` is still a
# link and `\:material/warning\:` still an icon. `ui.safe.md` breaks them with a WORD JOINER.
UNESCAPED_PIECES = ("http://127.0.0.1:9", ":material/warning:")

VIEWS = [(role, spec.key) for role in access.ROLES for spec in PAGES
         if spec.exists() and spec.key in access.PAGES_BY_ROLE[role]]
_sessions: dict[str, AppTest] = {}


def inject(path: Path) -> dict[str, int]:
    """Prefix every free-text value with the payload (empty optional ones get the payload alone)."""
    touched: dict[str, int] = {}
    con = duckdb.connect(str(path))
    try:
        for table, columns in FREE_TEXT.items():
            for column in columns:
                con.execute(f'UPDATE "{table}" SET "{column}" = ? || COALESCE("{column}", \'texto\')', [PAYLOAD])
                n = con.execute(f'SELECT count(*) FROM "{table}" WHERE starts_with("{column}", ?)',
                                [PAYLOAD]).fetchone()
                touched[f"{table}.{column}"] = int(n[0]) if n else 0
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return touched


@pytest.fixture(scope="module")
def hostile_demo(full_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from streamlit import config

    path = copy_database(full_demo_db, tmp_path_factory.mktemp("injection") / "demo.duckdb")
    touched = inject(path)
    empty = [k for k, n in touched.items() if n == 0]
    assert not empty, f"free-text columns with no row to carry the payload: {empty}"
    hidden = config.get_option("client.showErrorDetails")
    config.set_option("client.showErrorDetails", "full")
    try:
        yield path
    finally:
        config.set_option("client.showErrorDetails", hidden)
        _sessions.clear()
        close_shared()


def _session(path: Path, role: str) -> AppTest:
    if role not in _sessions:
        user = first_user(path, role)
        assert user.full_name.startswith(PAYLOAD)
        os.environ["VALUATION_DB"] = str(path)
        close_shared()
        st.cache_resource.clear()
        st.cache_data.clear()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.session_state[USER_KEY] = user
        at.session_state[SEEN_KEY] = datetime.now()
        at.run()
        assert not at.exception, f"{role}: app.py failed: {at.exception[0].message}"
        _sessions.clear()
        _sessions[role] = at
    return _sessions[role]


def _strings(msg: Message, kind: str, where: str) -> Iterator[tuple[str, str]]:
    """(field path, text) of every string in a proto message that Streamlit renders as Markdown."""
    for field, value in msg.ListFields():
        name = field.name
        scalar = isinstance(value, (str, bytes, Message, int, float, bool))
        values = [value] if scalar else list(value)         # a repeated field
        for v in values:
            if isinstance(v, Message):
                yield from _strings(v, kind, f"{where}.{name}")
            elif isinstance(v, str):
                plain = name not in ALWAYS_MARKDOWN and (name in PLAIN_FIELDS or kind in PLAIN_TYPES)
                if not plain:
                    yield f"{where}.{name}", v


def _json_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _json_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _json_strings(v)


def _nodes(node: Any) -> Iterator[Any]:
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


def _verbatim(piece: str, text: str) -> bool:
    """`piece` in `text` with its first character not backslash-escaped."""
    start = text.find(piece)
    while start >= 0:
        if start == 0 or text[start - 1] != "\\":
            return True
        start = text.find(piece, start + 1)
    return False


def injections(at: AppTest) -> list[str]:
    found: list[str] = []
    for root in (at._tree,):
        for node in _nodes(root):
            proto = getattr(node, "proto", None)
            if not isinstance(proto, Message):
                continue
            kind = str(getattr(node, "type", type(node).__name__))
            if kind == "plotly_chart":     # plotly reads <a>, <b>, <br> … in hover texts, labels and titles
                if any(HTML_PIECE in v for v in _json_strings(json.loads(getattr(proto, "spec", "") or "{}"))):
                    found.append(f"{kind}: user text with HTML tags in the figure")
                continue
            for where, text in _strings(proto, kind, kind):
                resolved = re.sub(r"\\(.)", r"\1", text)
                if any(_verbatim(piece, text) for piece in PIECES) or any(p in resolved for p in UNESCAPED_PIECES):
                    found.append(f"{where}: {text[:160]!r}")
    return sorted(set(found))


@pytest.mark.parametrize(("role", "key"), VIEWS, ids=[f"{r}-{k}" for r, k in VIEWS])
def test_no_user_text_reaches_a_page_as_markdown(hostile_demo: Path, role: str, key: str) -> None:
    at = _session(hostile_demo, role)
    os.environ["VALUATION_DB"] = str(hostile_demo)
    at.session_state[SEEN_KEY] = datetime.now()
    at.switch_page(f"pages/{key}.py")
    at.run()
    for tab in each_tab(at, key):   # every tab of the page, opened in turn (only the open one is drawn)
        where = f"{role}/{key}" if tab is None else f"{role}/{key}, aba {tab}"
        assert not at.exception, f"{where}: {at.exception[0].message}"
        leaks = injections(at)
        assert not leaks, f"{where}: user text rendered as Markdown:\n" + "\n".join(leaks[:20])


def test_the_checker_sees_an_unescaped_payload_and_not_an_escaped_one(tmp_path: Path) -> None:
    """The check could fail: a page that writes the payload raw is caught; `ui.safe.md` and `st.text` pass."""
    script = tmp_path / "page.py"
    script.write_text(
        "import streamlit as st\nfrom ui.safe import md\n"
        f"p = {PAYLOAD!r}\n"
        "st.text(p)\nst.caption(md(p))\nst.subheader(f'Item {md(p)}')\n"
        "st.selectbox('Escolha', [p])\n"
        "import io\nfrom PIL import Image\nbuf = io.BytesIO()\nImage.new('RGB', (4, 4)).save(buf, 'PNG')\n"
        "st.image(buf.getvalue(), caption=md(p))\n"
        "import plotly.graph_objects as go\nimport html\n"
        "st.plotly_chart(go.Figure(go.Bar(x=[1], y=[1], customdata=[html.escape(p)], hovertemplate='%{customdata}')))\n"
        "with st.expander(md(p)):\n    st.markdown(f'**{md(p)}**')\n"
        "if st.session_state.get('raw'):\n    st.subheader(f'Item {p}')\n    st.tabs([p])\n"
        "    st.image(buf.getvalue(), caption='foto ' + p)\n"
        "    import re\n    st.markdown('escaped only: ' + re.sub(r'([:\\[\\]()!<>*$])', r'\\\\\\1', p))\n"
        "    st.plotly_chart(go.Figure(go.Bar(x=[1], y=[1], customdata=[p], hovertemplate='%{customdata}')))\n",
        encoding="utf-8")
    at = AppTest.from_file(str(script)).run()
    assert not at.exception and injections(at) == []
    at.session_state["raw"] = True
    at.run()
    leaks = injections(at)
    assert any("heading" in x or "subheader" in x for x in leaks) and any("tab" in x for x in leaks), leaks
    assert any("plotly_chart" in x for x in leaks), leaks
    assert any("imgs" in x or "image" in x for x in leaks), leaks
    assert any("escaped only" in x for x in leaks), leaks    # backslashes alone leave links and icons
