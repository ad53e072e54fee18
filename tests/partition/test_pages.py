"""AppTest: the partition pages render for the roles that may see them and refuse the others;
a few interactions (caps at entry on the terms page, the alternatives, the explorer's view)."""
from __future__ import annotations

from decimal import Decimal

import pytest

from tests.support.partition import A1_NET, issued_a1, prepare
from tests.support.ui import each_tab, open_tab, page_as, page_direct, refused, texts
from valuation.core.money import format_brl
from valuation.db import access

PAGES = ("contract_terms", "selection", "survey_costs", "statements")
ROLE_KEYS = {"dpc": "dpc", "commission": "commission", "commission_president": "commission_president",
             "explorer": "explorer_a", "admin": "admin"}


@pytest.fixture
def world(small_world):
    prepare(small_world)
    issued_a1(small_world)
    return small_world


def test_roles_of_the_partition_pages():
    """The issue: contract_terms and selection → dpc; survey_costs and statements → dpc and explorer; an office's
    officer reads the statements of its office's contracts (docs/decisions/003-office-officer-role.md)."""
    offered = {page: {r for r, keys in access.PAGES_BY_ROLE.items() if page in keys} for page in PAGES}
    assert offered == {"contract_terms": {"dpc"}, "selection": {"dpc"}, "survey_costs": {"dpc", "explorer"},
                       "statements": {"dpc", "officer", "explorer"}}   # the officer: its office's


ALLOWED = [(r, p) for r in sorted(ROLE_KEYS) for p in PAGES if p in access.PAGES_BY_ROLE[r]]
REFUSED = [(r, p) for r in sorted(ROLE_KEYS) for p in PAGES if p not in access.PAGES_BY_ROLE[r]]


@pytest.mark.parametrize("role, page", ALLOWED)
def test_page_renders_for_its_roles(world, role, page):
    at = page_as(world.path, world.principal(ROLE_KEYS[role]), page)
    assert not at.exception, at.exception
    assert not refused(at) and at.title
    for tab in each_tab(at, page):   # every tab renders (only the open one is drawn)
        assert not at.exception, (tab, at.exception)


@pytest.mark.parametrize("role, page", REFUSED)
def test_page_refuses_the_other_roles(small_world, role, page):
    """Reached by URL (the navigation does not offer it), the page's own guard refuses."""
    at = page_direct(small_world.path, small_world.principal(ROLE_KEYS[role]), page)
    assert not at.exception, at.exception
    assert refused(at), f"{role} must be refused on {page}"
    assert not at.dataframe and not at.metric


def test_terms_page_refuses_a_share_above_the_cap_and_writes_nothing(world):
    at = page_as(world.path, world.principal("dpc"), "contract_terms")
    assert at.selectbox[0].value == "A-1"
    before = world.store.fetch_one("SELECT historical_share FROM contracts WHERE code = 'A-1'")
    field = next(t for t in at.text_input if t.label.startswith("Recompensa pelos bens históricos"))
    field.set_value("45")
    next(b for b in at.button if b.label == "Gravar termos").click().run()
    assert not at.exception
    shown = [e.value.replace("\\", "") for e in at.error]  # messages are Markdown-escaped
    assert any("40,00 %" in v and v.count("Recompensa pelos bens históricos") == 1 for v in shown), shown
    assert not any("historical_share" in v for v in shown), shown  # the field by its label, never its key
    assert world.store.fetch_one("SELECT historical_share FROM contracts WHERE code = 'A-1'") == before
    assert "Parcela sugerida" in texts(at) and "Parcela decidida pela Autoridade" in texts(at)


def test_selection_page_compares_two_alternatives(world):
    at = page_as(world.path, world.principal("dpc"), "selection")
    assert not at.exception
    metrics = {m.label: m for m in at.metric}
    # headline amounts never cut: compact on the card, the full amount in its help
    assert metrics["Alvo"].value == format_brl(Decimal("13600.00")) == metrics["Alvo"].help
    open_tab(at, "selection", "Comparar alternativas")
    next(t for t in at.text_input if t.key == "keep_B").set_value("A1-006")
    next(b for b in at.button if b.label == "Calcular A e B").click().run()
    assert not at.exception, at.exception
    body = texts(at)
    assert "Alternativa A" in body and "Alternativa B" in body and "lacuna certificada" in body
    values = [m.value for m in at.metric if m.label == "Valor entregue"]
    assert values == [format_brl(Decimal("13000.00")),
                      format_brl(Decimal("6000.00"))]


def test_explorer_statement_view_shows_the_net_amount_first(world):
    at = page_as(world.path, world.principal("explorer_a"), "statements")
    assert not at.exception
    assert at.metric[0].label == "Valor líquido a receber" and at.metric[0].value == format_brl(A1_NET)
    assert "DP-2026/0001 v1" in texts(at)
    assert not any("Rascunho" in str(s.options) for s in at.selectbox)


def test_explorer_of_another_company_sees_no_statement(world):
    at = page_as(world.path, world.principal("explorer_b"), "statements")
    assert not at.exception and not at.metric
    assert "Ainda não há demonstrativo" in texts(at)


def test_survey_costs_page_lists_only_the_explorers_own_surveys(world):
    at = page_as(world.path, world.principal("explorer_a"), "survey_costs")
    assert not at.exception
    options = at.selectbox[0].options
    assert any(o.startswith("A-2") for o in options) and not any(o.startswith("C-0") for o in options)
    dpc = page_as(world.path, world.principal("dpc"), "survey_costs")
    assert not dpc.exception
    assert any("C-0" in o for o in dpc.selectbox[0].options)
