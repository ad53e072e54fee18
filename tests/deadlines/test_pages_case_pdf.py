"""Prazos → "O que a Autoridade deve" → one case → its history PDF (issue 26 §4), on a copy of the full demo: the DPC
chooses any open request and downloads its history (a PDF with the request, its NUP, wreck and steps, issued with
a verification code); an explorer is offered its own company's requests only."""
from __future__ import annotations

import io
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pypdf
import pytest
import streamlit
from streamlit.delta_generator import DeltaGenerator

from page_tabs.deadlines.case_pdf import BUTTON
from tests.support.db_copies import copy_database
from tests.support.ui import first_user, open_tab, page_as, page_problems
from valuation.db.store import Store
from valuation.proceedings import reports, requests

TAB = "O que a Autoridade deve"
PICK = "Requerimento do histórico"
AS_OF = date(2026, 11, 30)   # the demo's today


@pytest.fixture(scope="module")
def demo(full_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_database(full_demo_db, tmp_path_factory.mktemp("case_pdf") / "demo.duckdb")


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """label → (data, file name) of every download button the page draws."""
    seen: dict[str, Any] = {}
    method, function = DeltaGenerator.download_button, streamlit.download_button

    def on_dg(self: Any, label: str, data: Any, *args: Any, **kwargs: Any) -> Any:
        seen[label] = (data, kwargs.get("file_name"))
        return method(self, label, data, *args, **kwargs)

    def on_main(label: str, data: Any, *args: Any, **kwargs: Any) -> Any:
        seen[label] = (data, kwargs.get("file_name"))
        return function(label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", on_dg)
    monkeypatch.setattr(streamlit, "download_button", on_main)
    yield seen


def _tab(path: Path, role: str) -> Any:
    at = page_as(path, first_user(path, role), "deadlines", timeout=180)
    assert not at.exception, at.exception
    open_tab(at, "deadlines", TAB)
    assert not at.exception, [e.value for e in at.exception]
    assert not page_problems(at), page_problems(at)
    return at


def _served(downloads: dict[str, Any]) -> tuple[bytes, str]:
    data, name = downloads[BUTTON]
    return (data() if callable(data) else data), name


def test_the_dpc_downloads_the_history_of_a_case_with_its_nup_and_wreck(demo: Path, downloads: dict[str, Any]
                                                                        ) -> None:
    dpc = first_user(demo, "dpc")
    with Store(demo, migrate=False) as store:
        opened = requests.open_requests(store, dpc, as_of=AS_OF)
    at = _tab(demo, "dpc")
    assert BUTTON in [b.label for b in at.get("download_button")]
    pick = next(s for s in at.selectbox if s.label == PICK)
    assert len(pick.options) == len(opened) and all(o.startswith(r["office_code"]) for o, r in zip(pick.options,
                                                                                                    opened))
    case = opened[-1]   # the newest open request, another office than the first one offered
    pick.set_value(int(case["id"]))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    data, name = _served(downloads)
    assert data.startswith(b"%PDF-") and name.startswith(f"historico-requerimento-{case['id']}-")
    text = " ".join(" ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages).split())
    with Store(demo, migrate=False) as store:
        nup, printed = reports.nup_text(store, int(case["id"]), case["office_code"])
        issued = store.fetch_one("SELECT code, kind, nup FROM issued_documents WHERE record_table = 'requests' AND "
                                 "record_id = ? ORDER BY id DESC LIMIT 1", [case["id"]])
    assert issued is not None and issued["kind"] == "case_history" and issued["nup"] == nup
    assert f"NUP {printed}" in text and case["wreck"] in text and f"Requerimento nº {case['id']}" in text
    assert f"({case['office_code']})" in text and "Etapas do processo" in text and "Lei 9.784/1999 art. 24" in text
    assert f"{issued['code'][:5]}-{issued['code'][5:]}" in text


def test_an_explorer_is_offered_its_own_companys_cases_only(demo: Path, downloads: dict[str, Any]) -> None:
    explorer = first_user(demo, "explorer")
    with Store(demo, migrate=False) as store:
        own = {int(r["id"]) for r in requests.open_requests(store, explorer, as_of=AS_OF)}
        every = {int(r["id"]) for r in requests.open_requests(store, first_user(demo, "dpc"), as_of=AS_OF)}
    assert own and own < every
    at = _tab(demo, "explorer")
    pick = next(s for s in at.selectbox if s.label == PICK)
    assert {int(re.search(r"requerimento nº (\d+)", o).group(1)) for o in pick.options} == own
    data, _ = _served(downloads)
    assert data.startswith(b"%PDF-")
