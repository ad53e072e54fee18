"""AppTest: the deadlines, calendar and domain pages render for the roles that may see them
(deadlines and calendar: dpc and explorer; domain: dpc) and refuse every other role, both in
the navigation and when the page file is reached directly; and their forms write through
the store (a local holiday, a report delivery)."""
from __future__ import annotations

from datetime import date, datetime

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.ui import ROOT, each_tab, fresh_app, open_tab, page_as, refused, set_date, texts
from ui.session import SEEN_KEY, USER_KEY
from valuation.db import access
from valuation.demo.deadlines import seed_deadline_demo

ALLOWED: dict[str, tuple[str, ...]] = {"deadlines": ("dpc", "explorer"), "calendar": ("dpc", "explorer"),
                                       "domain": ("dpc",)}
ROLES = ("dpc", "explorer", "commission", "commission_president", "admin")
AS_OF = date(2025, 7, 20)


@pytest.fixture(autouse=True)
def _pages_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lead registers these pages in `access.PAGES_BY_ROLE` with the roles of ALLOWED; until
    that lands, offer them here exactly so (never to another role)."""
    for key, roles in ALLOWED.items():
        for role in roles:
            if key not in access.PAGES_BY_ROLE.get(role, ()):
                monkeypatch.setitem(access.PAGES_BY_ROLE, role, (*access.PAGES_BY_ROLE.get(role, ()), key))


@pytest.fixture
def world(small_world):
    store = small_world.store
    store.write("test", lambda tx: tx.execute(
        "UPDATE contracts SET starts_on = DATE '2025-01-06', expires_on = DATE '2026-01-05' "
        "WHERE code IN ('A-1', 'B-1')"))
    seed_deadline_demo(store, as_of=AS_OF)
    return small_world


def direct(db_path, user, key: str) -> AppTest:
    """Run pages/<key>.py on its own, as a URL typed by hand would reach it."""
    fresh_app(db_path)  # points the app at db_path and clears the cached Store
    at = AppTest.from_file(str(ROOT / "pages" / f"{key}.py"), default_timeout=60)
    at.session_state[USER_KEY] = user
    at.session_state[SEEN_KEY] = datetime.now()
    at.run()
    return at


def all_cells(at: AppTest) -> str:
    return "\n".join(df.value.to_string() for df in at.dataframe)


@pytest.mark.parametrize("key, role", [(k, r) for k, roles in ALLOWED.items() for r in roles])
def test_page_renders_for_allowed_roles(world, key, role):
    at = page_as(world.path, world.principal(role), key)
    assert not at.exception, [e.value for e in at.exception]
    assert not refused(at) and not at.error, [e.value for e in at.error]
    assert at.title[0].value == {"deadlines": "Prazos", "calendar": "Calendário de dias úteis",
                                 "domain": "Domínio dos naufrágios"}[key]
    assert at.dataframe, "the page shows its table"
    for tab in each_tab(at, key):   # and every tab renders (only the open one is drawn)
        assert not at.exception, (tab, [e.value for e in at.exception])
        assert not at.error, (tab, [e.value for e in at.error])


@pytest.mark.parametrize("key, role", [(k, r) for k in ALLOWED for r in ROLES if r not in ALLOWED[k]])
def test_page_refuses_other_roles(world, key, role):
    assert key not in access.PAGES_BY_ROLE.get(role, ())
    with pytest.raises(ValueError):  # not offered in the navigation …
        page_as(world.path, world.principal(role), key)
    at = direct(world.path, world.principal(role), key)  # … and refused when reached directly
    assert refused(at) and not at.exception
    assert not at.dataframe


def test_deadlines_page_scopes_the_explorer(world):
    at = page_as(world.path, world.principal("explorer_a"), "deadlines")
    cells = all_cells(at)
    assert "A-1" in cells
    labels = [t.label for t in at.tabs]
    for tab in each_tab(at, "deadlines"):   # no tab shows the other company's contract
        cells = all_cells(at) + "\n" + texts(at)
        assert "B-1" not in cells and "Beta Salvatagem" not in cells, tab
    assert "Tribunal Marítimo" not in labels and "Registrar entrega" in labels
    dpc = page_as(world.path, world.principal("dpc"), "deadlines")
    assert "B-1" in all_cells(dpc) and "Tribunal Marítimo" in [t.label for t in dpc.tabs]
    assert {m.label for m in dpc.metric} == {"Vencidos", "Vencem em breve", "A vencer", "Cumpridos ou encerrados",
                                           "Vencidos — a Autoridade deve", "Vencem em breve — a Autoridade deve"}


def test_explorer_records_a_report_delivery_on_the_page(world):
    at = open_tab(page_as(world.path, world.principal("explorer_a"), "deadlines"), "deadlines", "Registrar entrega")
    set_date(at, None, AS_OF)
    assert "Data do evento" not in [d.label for d in at.date_input]    # an explorer dates nothing
    next(s for s in at.selectbox if s.label == "Contrato").set_value("A-1").run()   # never chosen for the company
    next(t for t in at.text_input if t.label == "Mês de referência (MM/AAAA)").set_value("06/2025")  # MM/AAAA
    next(b for b in at.button if b.label == "Registrar").click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("registrado" in s.value for s in at.success)
    row = world.store.fetch_one("SELECT kind, reference, recorded_by, event_date FROM deadline_events "
                                "ORDER BY id DESC LIMIT 1")
    assert row == {"kind": "relatório_mensal_entregue", "reference": "2025-06", "recorded_by": "exp.alfa",
                   "event_date": world.store.today()}                  # the day the service received it


def test_calendar_page_adds_a_local_holiday_and_shows_problems(world):
    at = page_as(world.path, world.principal("dpc"), "calendar")
    at.selectbox[0].set_value("CPBA")
    at.number_input[0].set_value(2025)
    at.run()
    set_date(at, "Data do feriado", date(2025, 8, 15))
    next(t for t in at.text_input if t.label == "Nome do feriado").set_value("Nossa Senhora da Boa Morte")
    next(b for b in at.button if b.label == "Incluir feriado municipal").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert world.store.fetch("SELECT name FROM local_holidays WHERE office_code = 'CPBA'") == [
        {"name": "Nossa Senhora da Boa Morte"}]
    assert "Nossa Senhora da Boa Morte" in all_cells(at)
    set_date(at, "Data do feriado", date(2025, 4, 21))   # Tiradentes
    next(t for t in at.text_input if t.label == "Nome do feriado").set_value("Repetido")
    next(b for b in at.button if b.label == "Incluir feriado municipal").click()
    at.run()
    assert any("Tiradentes" in e.value for e in at.error), texts(at)
    assert world.store.scalar("SELECT count(*) FROM local_holidays") == 1


def test_calendar_page_is_read_only_for_explorers(world):
    at = page_as(world.path, world.principal("explorer"), "calendar")
    assert not [b for b in at.button if b.label == "Incluir feriado municipal"]
    assert not at.multiselect
