"""Logging in with gov.br, end to end (issue 27 §3): a real OpenID provider (oidc-provider-mock: discovery, JWKS, RS256
ID tokens) on 127.0.0.1, the real service (uvicorn, service.asgi) with its `[auth]` pointed at it, and Chromium
clicking "Entrar com gov.br", choosing the person on the provider's form, coming back through Streamlit's
/oauth2callback (Authlib verifies the ID token: signature, issuer, audience, nonce, expiry), and landing on the
mapped role's page with the session cookie. Refusals, each in Portuguese on the login page and with no session:
an unknown CPF, a signing role whose gov.br account is below the policy's level (prata), and ID tokens that are
forged (another key), expired, or for another audience. The mapping's cases one by one: test_govbr_mapping.py.
"""
from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, _free_port, check_offline, check_page, new_page, wait_idle
from tests.support.oidc_provider import GovbrPerson, Provider, govbr_provider
from tests.support.service import running_service
from valuation.accounts import govbr, users
from valuation.accounts.login import PRINCIPAL_COLUMNS, principal_from_row
from valuation.core.ids import complete_cpf

pytestmark = pytest.mark.browser

MEMBER = GovbrPerson(complete_cpf("529982247"), "silver", "Capitão Bruno Costa", "bruno.costa@marinha.example")
DPC_BRONZE = GovbrPerson(complete_cpf("111444777"), "bronze", "Ana Silva", "gestora@marinha.example")
STRANGER = GovbrPerson(complete_cpf("900100000"), "gold", "Pessoa Sem Cadastro", "ninguem@example.org")
CLIENT_ID = "painel-naufragios-teste"
SESSION_COOKIE = "valuation_sessao"
IDENTITY_COOKIE = "_streamlit_user"
SECRETS = """[auth]
redirect_uri = "{base}/oauth2callback"
cookie_secret = "{cookie_secret}"

[auth.govbr]
client_id = "{client_id}"
client_secret = "{client_secret}"
server_metadata_url = "{metadata_url}"

[auth.govbr.client_kwargs]
scope = "openid email profile govbr_confiabilidades govbr_confiabilidades_idtoken"
prompt = "login"
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, _world_template: Any) -> Iterator[tuple[Any, Provider]]:
    """The provider, and the service on a copy of the small world whose member and DPC have their CPFs."""
    import shutil

    from valuation.db.store import Store

    tmp = tmp_path_factory.mktemp("govbr")
    db = tmp / "world.duckdb"
    shutil.copyfile(_world_template[0], db)
    store = Store(db)
    row = store.fetch_one(f"SELECT {PRINCIPAL_COLUMNS} FROM users WHERE username = 'admin'")
    for username, person in (("com.navy", MEMBER), ("dpc.silva", DPC_BRONZE)):
        uid = store.scalar("SELECT id FROM users WHERE username = ?", [username])
        users.set_cpf(store, principal_from_row(row), int(uid), person.cpf)
    store.close()                      # one process owns the DuckDB file: hand it to the service
    port = _free_port()
    home = tmp / "home"                # Streamlit reads ~/.streamlit/secrets.toml: the test's [auth]
    (home / ".streamlit").mkdir(parents=True)
    with govbr_provider([MEMBER, DPC_BRONZE, STRANGER], tmp / "templates") as idp:
        (home / ".streamlit" / "secrets.toml").write_text(SECRETS.format(
            base=f"http://127.0.0.1:{port}", cookie_secret=secrets.token_urlsafe(32), client_id=CLIENT_ID,
            client_secret=secrets.token_urlsafe(16), metadata_url=idp.metadata_url), encoding="utf-8")
        with running_service(db, port=port, env={"HOME": str(home)}) as svc:
            yield svc, idp


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


def _cookie(page: Any, name: str) -> dict[str, Any] | None:
    return next((c for c in page.context.cookies() if c["name"] == name), None)


def _log_in_with_govbr(browser: Any, base: str, person: GovbrPerson) -> tuple[Any, list[str]]:
    """A new browser (context): the login page, "Entrar com gov.br", the provider's form, the person's button."""
    page, blocked = new_page(browser)
    page.goto(base)
    page.get_by_role("button", name="Entrar com gov.br").click()
    page.wait_for_url("**/oauth2/authorize?**")
    assert f"client_id={CLIENT_ID}" in page.url and "govbr_confiabilidades_idtoken" in page.url
    page.get_by_role("button", name=person.cpf).click()
    page.wait_for_url(f"{base}/**")
    return page, blocked


def _refused_with(page: Any, blocked: list[str], words: str) -> None:
    page.get_by_text(words).wait_for(timeout=60_000)
    check_page(page, words)
    assert page.get_by_role("button", name="Sair", exact=True).count() == 0
    assert _cookie(page, SESSION_COOKIE) is None
    check_offline(blocked)
    page.context.close()


def _sair_to_the_provider(page: Any) -> None:
    """One click on Sair reaches the provider's end_session. It once did only one time in two to four: Sair ended
    our session, called st.logout (which queues the browser's redirect to the provider) and then st.rerun, whose
    start clears the messages not yet sent — when the redirect had not left yet, it was lost and the browser
    stayed at /overview, logged out of us but not of gov.br. The Sair run now stops after st.logout."""
    page.get_by_role("button", name="Sair", exact=True).click()
    page.wait_for_url("**/oauth2/end_session**", timeout=30_000)


def test_a_member_logs_in_with_govbr_and_sees_the_commission_pages(stack: Any, browser: Any) -> None:
    svc, idp = stack
    idp.tamper = None
    page, blocked = _log_in_with_govbr(browser, svc.base, MEMBER)
    page.get_by_role("button", name="Sair", exact=True).wait_for(timeout=60_000)
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert MEMBER.name in sidebar and "Comissão" in sidebar
    assert page.get_by_role("link", name="Comissão").count() > 0               # the member's own page
    assert page.get_by_role("link", name="Usuários").count() == 0              # not the admin's
    for _ in range(40):                                                        # the cookie bridge's POST
        if _cookie(page, SESSION_COOKIE) is not None:
            break
        page.wait_for_timeout(250)
    session = _cookie(page, SESSION_COOKIE)
    assert session is not None and session["httpOnly"], "no HttpOnly session cookie after the gov.br login"
    assert _cookie(page, IDENTITY_COOKIE) is not None
    check_page(page, "after the gov.br login")
    wait_idle(page)
    _sair_to_the_provider(page)                                                            # and Sair ends gov.br's too
    page.get_by_role("button", name="End session").click()
    page.get_by_role("button", name="Entrar com gov.br").wait_for(timeout=60_000)
    assert _cookie(page, IDENTITY_COOKIE) is None and page.get_by_role("button", name="Sair", exact=True).count() == 0
    assert page.get_by_text(govbr.FAILED_MESSAGE[:60]).count() == 0          # the return from logout is no failure
    check_offline(blocked)
    page.context.close()


def test_an_unknown_cpf_is_refused_in_portuguese(stack: Any, browser: Any) -> None:
    svc, idp = stack
    idp.tamper = None
    page, blocked = _log_in_with_govbr(browser, svc.base, STRANGER)
    _refused_with(page, blocked, "não há usuário ativo neste sistema com o seu CPF")


def test_a_signing_role_with_a_bronze_account_is_refused(stack: Any, browser: Any) -> None:
    svc, idp = stack
    idp.tamper = None
    page, blocked = _log_in_with_govbr(browser, svc.base, DPC_BRONZE)
    _refused_with(page, blocked, "exige conta gov.br de nível prata ou superior")


@pytest.mark.parametrize("tamper", ["forged", "expired", "audience"])
def test_an_id_token_that_fails_verification_signs_nobody_in(stack: Any, browser: Any, tamper: str) -> None:
    """The member's own login, but the token endpoint's ID token is forged, expired or for another client:
    Authlib refuses it in the callback, no identity cookie is set, and the login page says so."""
    svc, idp = stack
    idp.tamper = tamper
    try:
        page, blocked = _log_in_with_govbr(browser, svc.base, MEMBER)
        page.get_by_text(govbr.FAILED_MESSAGE[:60]).wait_for(timeout=60_000)
        assert _cookie(page, IDENTITY_COOKIE) is None
        assert "login=" not in page.url                   # the flag is read once, then dropped from the address
        _refused_with(page, blocked, "Não foi possível confirmar o seu login pelo gov.br")
    finally:
        idp.tamper = None
