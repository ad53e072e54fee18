"""ui/warmup.py (issue 17): the pages' imports, found in their source, imported in the background once."""
from __future__ import annotations

import sys
import threading
from pathlib import Path

from ui import warmup


def test_the_modules_are_the_pages_imports(tmp_path: Path) -> None:
    (tmp_path / "pages").mkdir()
    (tmp_path / "ui").mkdir()
    (tmp_path / "pages" / "a.py").write_text(
        "import streamlit as st\nimport plotly.graph_objects as go\nfrom valuation.deadlines import engine, views\n"
        "from . import sibling\nimport json\n", encoding="utf-8")
    (tmp_path / "ui" / "b.py").write_text("from valuation.exports import to_ics\nthis is not python(\n",
                                          encoding="utf-8")
    (tmp_path / "ui" / "c.py").write_text("from valuation.exports import to_ics\n", encoding="utf-8")
    (tmp_path / "page_tabs" / "a").mkdir(parents=True)   # a page's tabs (page_tabs/<page>/<tab>.py)
    (tmp_path / "page_tabs" / "a" / "t.py").write_text("from valuation.commission.minutes import round_minutes_pdf\n",
                                                        encoding="utf-8")
    got = warmup.modules(tmp_path)
    assert got == ["plotly.graph_objects", "valuation.deadlines", "valuation.deadlines.engine",
                   "valuation.deadlines.views", "valuation.commission.minutes",
                   "valuation.commission.minutes.round_minutes_pdf", "valuation.exports", "valuation.exports.to_ics"]


def test_the_real_pages_bring_the_heavy_modules() -> None:
    got = warmup.modules()
    assert "valuation.exports" in got and "plotly.graph_objects" in got
    assert "valuation.commission.minutes" in got, "the modules a page's tab imports (page_tabs/) are warmed too"
    assert not [m for m in got if m.split(".")[0] not in warmup.PREFIXES]


def test_start_imports_in_a_thread_of_its_own_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    seen: list[tuple[str, str]] = []
    started, done = threading.Event(), threading.Event()
    monkeypatch.setattr(warmup, "_started", started)
    monkeypatch.setattr(warmup, "done", done)
    monkeypatch.setattr(warmup, "modules", lambda: ["json", "no_such_module_here", "valuation.exports"])
    real = warmup.importlib.import_module

    def spy(name: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append((name, threading.current_thread().name))
        return real(name, *args, **kwargs)
    monkeypatch.setattr(warmup.importlib, "import_module", spy)
    warmup.start()
    warmup.start()
    assert done.wait(120)
    asked = [n for n, _ in seen if n in ("json", "no_such_module_here", "valuation.exports")]
    assert asked == ["json", "no_such_module_here", "valuation.exports"]   # once each, in order, on past a failure
    assert {t for n, t in seen if n in asked} == {"valuation-warmup"}
    assert "valuation.exports" in sys.modules
