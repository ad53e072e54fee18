"""AppTest: every foundation page renders for every role that may see it and refuses the others."""
from __future__ import annotations

import pytest

from tests.support.ui import fresh_app, offered, open_expander, page_as, page_direct, refused, texts
from valuation.db import access

FOUNDATION = ("overview", "wrecks", "organisations", "users")
ROLE_KEYS = {"dpc": "dpc", "commission": "commission", "commission_president": "commission_president",
             "explorer": "explorer_a", "admin": "admin"}


@pytest.mark.parametrize("role", sorted(ROLE_KEYS))
@pytest.mark.parametrize("page", FOUNDATION)
def test_page_renders_or_refuses(small_world, role, page):
    user = small_world.principal(ROLE_KEYS[role])
    if page in access.PAGES_BY_ROLE[role]:
        at = page_as(small_world.path, user, page)
        assert not at.exception, at.exception
        assert not refused(at)
        assert at.title, "the page shows its title"
    else:
        assert not offered(small_world.path, user, page), f"navigation must not offer {page} to {role}"
        at = page_direct(small_world.path, user, page)
        assert not at.exception, at.exception
        assert refused(at), f"{role} must be refused on {page}"


def test_anonymous_sees_only_login(small_world):
    at = fresh_app(small_world.path)
    at.run()
    assert not at.exception
    assert "Naufrágios e bens resgatados" in texts(at)
    assert len(at.text_input) == 2  # user + password, nothing else


def test_anonymous_page_by_url_is_refused(small_world):
    at = page_direct(small_world.path, None, "wrecks")
    assert refused(at)


def test_login_form_logs_in_and_wrong_password_does_not(small_world):
    at = fresh_app(small_world.path)
    at.run()
    username = small_world.username("dpc")
    at.text_input(key="login_username").set_value(username)
    at.text_input(key="login_password").set_value("definitely-wrong")
    at.button[0].click().run()
    assert at.error and "incorretos" in at.error[0].value
    at.text_input(key="login_password").set_value(small_world.passwords[username])
    at.button[0].click().run()
    assert not at.exception
    assert at.session_state["valuation_user"].username == username


def test_explorer_wrecks_page_hides_other_positions(small_world):
    """explorer_a sees positions of w1/w3 only: the map data and detail never hold another wreck's position."""
    at = page_as(small_world.path, small_world.principal("explorer_a"), "wrecks")
    assert not at.exception
    body = texts(at)
    assert "posição sigilosa" in body or "Posição" in body
    table = at.dataframe[0].value
    cleared = dict(zip(table["Código"], table["Posição liberada"]))
    assert sum(1 for v in cleared.values() if v == "sim") == 2
    assert any(v == "não" for v in cleared.values())


def test_overview_metrics_scoped_for_explorer(small_world):
    at = page_as(small_world.path, small_world.principal("explorer_a"), "overview")
    assert not at.exception
    labels = {m.label: m.value for m in at.metric}
    assert labels["Empresas"] == "1"


def test_dpc_registration_form_refuses_a_bad_cnpj_and_writes_nothing(small_world):
    before = small_world.store.scalar("SELECT count(*) FROM organisations")
    at = open_expander(page_as(small_world.path, small_world.principal("dpc"), "organisations"), "Inscrever empresa")
    values = {"Razão social": "Resgates Atlântico Ltda.", "CNPJ": "11.222.333/0001-00", "Endereço": "Rua do Porto, 1",
              "Cidade": "Santos", "UF/Estado": "SP", "Representante legal": "Ana Souza"}
    for label, value in values.items():
        next(t for t in at.text_input if t.label == label).set_value(value)
    next(b for b in at.button if b.label == "Inscrever").click()
    at.run()
    assert not at.exception
    assert at.error and "CNPJ" in at.error[0].value and "Nada foi gravado" in at.error[0].value
    assert small_world.store.scalar("SELECT count(*) FROM organisations") == before
    next(t for t in at.text_input if t.label == "CNPJ").set_value("45.678.912/0001-55")  # valid check digits
    next(b for b in at.button if b.label == "Inscrever").click()
    at.run()
    assert not at.error, at.error[0].value if at.error else ""
    assert at.success and "Empresa inscrita" in at.success[0].value
    assert small_world.store.scalar("SELECT count(*) FROM organisations") == before + 1
