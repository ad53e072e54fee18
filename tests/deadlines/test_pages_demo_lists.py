"""Prazos on the full demo as the DPC meets it (issue 23 items 12 and 13): the lists keep Contrato, Empresa and
Fundamento within the width a 1366 px screen gives the table, an overdue list longer than the table says how
many rows it has and shows them all on request, one contract's deadlines read as a list, and the Exportar tab
serves the office's deadlines as a PDF, a calendar with the subscription's reminders and the wrecks map of the
office chosen on the page."""
from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pypdf
import pytest
import streamlit
from icalendar import Calendar
from streamlit.delta_generator import DeltaGenerator
from streamlit.testing.v1 import AppTest

from page_tabs.deadlines.view import FIT_ROWS
from tests.support.ui import first_user, open_tab, page_as, texts
from ui import session
from valuation.db.store import Store
from valuation.deadlines import feeds
from valuation.deadlines.engine import compute_deadlines

# The main area's width at 1366×768 with the sidebar open (measured in Chromium: the table spans 905 px).
MAIN_WIDTH_1366 = 905
MUST_SHOW = ("Contrato", "Empresa", "Fundamento")
WRAPS_ABOVE = 64   # Streamlit wraps a cell's text only when the row is taller than 4rem


@pytest.fixture(scope="module")
def demo(full_demo_db):
    return full_demo_db


def deadline_lists(at: AppTest) -> list[Any]:
    return [d for d in at.dataframe if "Prazo" in d.value.columns]


def widths(table: Any) -> dict[str, int]:
    config = json.loads(table.proto.columns or "{}")
    return {name: int(c.get("width") or 0) for name, c in config.items()}


def check_fits(table: Any, where: str) -> None:
    cols = [c for c in table.value.columns]
    w = widths(table)
    shown = [c for c in MUST_SHOW if c in cols]
    assert shown, (where, cols)
    last = max(cols.index(c) for c in shown)
    left = cols[:last + 1]
    assert all(w.get(c, 0) > 0 for c in left), (where, "columns without a width", w)
    assert sum(w[c] for c in left) <= MAIN_WIDTH_1366, (where, cols, w)
    assert table.proto.row_height > WRAPS_ABOVE, (where, "Fundamento must wrap, not be cut", table.proto.row_height)


def test_lists_keep_contract_company_and_basis_within_1366(demo):
    at = page_as(demo, first_user(demo, "dpc"), "deadlines", timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    tables = deadline_lists(at)
    assert len(tables) == 3, [list(t.value.columns) for t in tables]   # overdue, due soon, suspended
    for n, table in enumerate(tables):
        check_fits(table, f"list {n}")
    for tab in ("Recursos", "Remoções e saldos", "Tribunal Marítimo"):
        open_tab(at, "deadlines", tab)
        for table in deadline_lists(at):
            check_fits(table, tab)


def test_an_overdue_list_longer_than_the_table_says_so_and_shows_all(demo):
    at = page_as(demo, first_user(demo, "dpc"), "deadlines", timeout=180)
    heading = next(h.value for h in at.subheader if h.value.startswith("Vencidos ("))
    n = int(heading.removeprefix("Vencidos (").rstrip(")"))
    assert n > FIT_ROWS, "the demo's overdue list is longer than the table"
    assert f"{n} prazos: a tabela mostra {FIT_ROWS} por vez" in texts(at)
    toggle = next(t for t in at.toggle if t.label == f"Ver todos os {n} prazos desta lista")
    toggle.set_value(True)
    at.run()
    overdue = deadline_lists(at)[0]
    assert len(overdue.value) == n
    assert not any(c.value.startswith(f"{n} prazos: a tabela mostra") for c in at.caption)


def test_one_contracts_deadlines_as_a_list(demo):
    user = first_user(demo, "dpc")
    at = open_tab(page_as(demo, user, "deadlines", timeout=180), "deadlines", "Linha do tempo")
    code = next(s for s in at.selectbox if s.label == "Contrato").value
    with Store(demo, migrate=False) as store:
        frame = compute_deadlines(store, user, as_of=session.today())
    mine = frame[frame["contract_code"] == code]
    lists = deadline_lists(at)
    assert lists, "the timeline tab lists the contract's deadlines"
    table = lists[0].value
    assert {"Prazo", "Vencimento", "Situação", "Fundamento"} <= set(table.columns)
    assert len(table) == len(mine) and set(table["Prazo"]) == set(mine["label_pt"])
    assert any(h.value == f"Prazos do contrato {code} ({len(mine)})" for h in at.subheader)


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """label → the data of every download button the page draws (bytes, or the callable it serves)."""
    seen: dict[str, Any] = {}
    method = DeltaGenerator.download_button
    function = streamlit.download_button

    def on_dg(self: Any, label: str, data: Any, *args: Any, **kwargs: Any) -> Any:
        seen[label] = (data, kwargs.get("file_name"))
        return method(self, label, data, *args, **kwargs)

    def on_main(label: str, data: Any, *args: Any, **kwargs: Any) -> Any:
        seen[label] = (data, kwargs.get("file_name"))
        return function(label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", on_dg)
    monkeypatch.setattr(streamlit, "download_button", on_main)
    yield seen


def served(data: Any) -> bytes:
    return data() if callable(data) else data


def pdf_text(data: bytes) -> str:
    return "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages)


def exports_of(demo: Any, office: str) -> AppTest:
    at = page_as(demo, first_user(demo, "dpc"), "deadlines", timeout=180)
    next(s for s in at.selectbox if s.label == "Capitania/Delegacia/Agência").set_value(office)
    at.run()
    return open_tab(at, "deadlines", "Exportar")


def test_office_pdf_lists_the_office_deadlines_with_their_basis(demo, downloads):
    office = "CPES"
    at = exports_of(demo, office)
    assert not at.exception, [e.value for e in at.exception]
    assert next(s for s in at.selectbox if s.label == "OM dos prazos").value == office
    data, name = downloads["Baixar PDF dos prazos da OM"]
    assert name.startswith(f"prazos-{office}-")
    text = " ".join(pdf_text(served(data)).split())
    user = first_user(demo, "dpc")
    with Store(demo, migrate=False) as store:
        frame = compute_deadlines(store, user, as_of=session.today())
        office_name = store.scalar("SELECT name FROM offices WHERE code = ?", [office])
    assert f"{office_name} ({office})" in text and "Página 1 de" in text and "horário de Brasília" in text
    for state, heading in (("overdue", "Vencidos"), ("due_soon", "Vencem em breve"), ("suspended", "Suspensos")):
        part = frame[(frame["state"] == state) & (frame["office_code"] == office)]
        assert f"{heading} ({len(part)})" in text
        for basis in set(part["basis"]):
            assert " ".join(basis.split()) in text, basis
    others = frame[(frame["state"] == "overdue") & (frame["office_code"] != office)]
    assert not [c for c in others["contract_code"] if isinstance(c, str) and c in text]   # that office's only


def test_ics_download_carries_the_subscription_reminders(demo, downloads):
    at = exports_of(demo, "CPPE")
    data, _ = downloads["Baixar calendário de prazos (.ics)"]
    with Store(demo, migrate=False) as store:
        days = feeds.alarm_days(store)
    assert days, "the policy has reminders"
    events = Calendar.from_ical(served(data)).walk("VEVENT")
    assert events
    for event in events:
        triggers = sorted(a.get("TRIGGER").dt for a in event.walk("VALARM"))
        assert triggers == sorted(-timedelta(days=d) for d in days), (event.get("SUMMARY"), triggers)
    assert f"{feeds.alarms_text(days)}." in texts(at)


def test_wreck_map_pdf_follows_the_office_chosen(demo, downloads):
    office = "CPPE"
    at = exports_of(demo, office)
    assert next(s for s in at.selectbox if s.label == "OM do mapa").value == office
    data, name = downloads["Baixar PDF"]
    assert name.startswith(f"mapa-naufragios-{office}-")
    assert f"({office})" in pdf_text(served(data))


def test_office_pdf_carries_the_authoritys_own_deadlines_with_their_article(demo, downloads):
    """Issue 26 §4: the office's PDF lists, after the explorers' deadlines, what the Authority owes in the office's
    requests (Lei 9.784/1999) — the overdue ones with their article and who owes them."""
    from valuation.proceedings import requests

    user = first_user(demo, "dpc")
    with Store(demo, migrate=False) as store:
        owed = requests.authority_deadlines(store, user, as_of=session.today())
    overdue = [r for r in owed if r["state"] == "overdue"]
    assert overdue, "the demo has overdue deadlines of the Authority"
    office = overdue[0]["office_code"]
    mine = [r for r in overdue if r["office_code"] == office]
    at = exports_of(demo, office)
    assert not at.exception, [e.value for e in at.exception]
    data, _ = downloads["Baixar PDF dos prazos da OM"]
    text = " ".join(pdf_text(served(data)).split())
    assert f"Vencidos — a Autoridade Naval deve, nos requerimentos e recursos ({len(mine)})" in text
    assert "Vencidos (" in text   # the engine's lists first
    for r in mine:
        assert f"Requerimento nº {r['request_id']}" in text and r["label"] in text
        assert " ".join(r["basis"].split()) in text, r["basis"]
    assert "Autoridade Naval" in text
