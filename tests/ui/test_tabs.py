"""ui/tabs.py: only the open tab's content runs; the state's key names the page and its set of tabs."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.tabs import tabs_key

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = '''
import sys
sys.path.insert(0, {root!r})
import streamlit as st
from ui.tabs import LazyTabs

names = ["Um", "Dois", "Três"] if not st.session_state.get("two_only") else ["Um", "Dois"]
st.session_state.setdefault("ran", [])
tabs = LazyTabs("demo", names)
with tabs.panel():
    st.session_state["ran"].append(tabs.current)
    st.write(f"conteúdo {{tabs.current}}")
if tabs.is_open("Três"):
    st.write("só na terceira")
st.write(f"aberta: {{tabs.current}}; tem Dois: {{'Dois' in tabs}}")
'''


@pytest.fixture
def app(tmp_path: Path) -> AppTest:
    script = tmp_path / "tabs_app.py"
    script.write_text(SCRIPT.format(root=str(ROOT)), encoding="utf-8")
    at = AppTest.from_file(str(script), default_timeout=30)
    at.run()
    return at


def _texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def test_only_the_open_tab_runs_and_a_click_opens_another(app: AppTest) -> None:
    assert [t.label for t in app.tabs] == ["Um", "Dois", "Três"]
    assert "conteúdo Um" in _texts(app) and "conteúdo Dois" not in _texts(app)
    assert app.session_state["ran"] == ["Um"]
    app.session_state[tabs_key("demo", ["Um", "Dois", "Três"])] = "Três"   # what a click on "Três" sets
    app.run()
    assert "conteúdo Três" in _texts(app) and "só na terceira" in _texts(app) and "conteúdo Um" not in _texts(app)
    assert app.session_state["ran"] == ["Um", "Três"]
    app.run()                                                               # another rerun: the tab stays open
    assert app.session_state["ran"][-1] == "Três"


def test_a_different_set_of_tabs_is_a_different_state(app: AppTest) -> None:
    app.session_state[tabs_key("demo", ["Um", "Dois", "Três"])] = "Três"
    app.run()
    app.session_state["two_only"] = True     # the role or the record shown changed the tabs: no "Três"
    app.run()
    assert not app.exception
    assert "aberta: Um; tem Dois: True" in _texts(app)


def test_the_key_depends_on_the_page_and_the_names() -> None:
    assert tabs_key("a", ["x", "y"]) != tabs_key("b", ["x", "y"])
    assert tabs_key("a", ["x", "y"]) != tabs_key("a", ["x", "y", "z"])
    assert tabs_key("a", ["x", "y"]) == tabs_key("a", ["x", "y"])


def test_tabs_need_distinct_names() -> None:
    from ui.tabs import LazyTabs

    for names in (["a", "a"], []):
        with pytest.raises(ValueError, match="distinct"):
            LazyTabs("x", names)
