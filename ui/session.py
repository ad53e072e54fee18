"""Session glue: the process's Store, login (local users; optional gov.br through OIDC), sessions and the page guard.

Sessions (issue 13): a login issues a server-side session (`valuation.accounts.sessions`) whose
id lives in `st.session_state`; every run re-validates it, so "Sair", an admin's deactivation or
role change end an open connection at once. Under the service (`service/asgi.py`) the browser
also gets the session's token as an HttpOnly cookie — the script hands it a single-use ticket
that a served JS file POSTs to `/sessao` — so a reload, a new tab or a restart of the service
find the session again through `st.context.cookies`. Under `streamlit run` (development) and
AppTest there is no cookie route: the session lasts as long as the connection, as before.
"""
from __future__ import annotations

import sys
import time
from datetime import date, datetime
from typing import Any

import streamlit as st

from ui import front_end_warmup, front_end_words, settings
from ui.registry import ROOT
from valuation.accounts import govbr, login, sessions
from valuation.core import clock
from valuation.core.errors import StoreLocked, ValuationError
from valuation.db import access
from valuation.db.shared import open_shared
from valuation.db.store import Store

USER_KEY = "valuation_user"
SEEN_KEY = "valuation_last_seen"
REFUSED = "Acesso negado: esta página não está disponível para o seu perfil."
SESSION_KEY = "valuation_session_id"
TICKET_KEY = "valuation_cookie_ticket"
CLEAR_KEY = "valuation_cookie_clear"
FLASH_KEY = "valuation_flash"
EXPIRED_MESSAGE = "Sessão expirada por inatividade. Entre novamente."
ENDED_MESSAGE = "Sua sessão foi encerrada. Entre novamente."
BRIDGE_COMPONENT = "valuation_service.cookie_bridge"


def store() -> Store:
    """The process-wide Store (one DuckDB connection per process, shared with the service's
    lifespan, routes and jobs; a cursor per request)."""
    try:
        return open_shared(settings.db_path())
    except StoreLocked as exc:
        st.error(f"O banco de dados está em uso por outro processo. {exc}")
        st.stop()
        raise  # unreachable: st.stop() raises


def now() -> datetime:
    """Now, aware UTC (`valuation.core.clock.now_utc`, the one clock); calculations take `as_of`."""
    return clock.now_utc()


def today() -> date:
    """Today's calendar day in Brasília (the default of the pages' date fields)."""
    return clock.today_brasilia(now())


def client_address() -> str | None:
    """The browser's address (`st.context.ip_address`: the TCP peer, or X-Forwarded-For's client
    under the service behind the proxy); None on localhost or without a browser behind the run."""
    try:
        address = st.context.ip_address
    except Exception:  # no browser request behind this run (AppTest's context is a mock)
        return None
    return address if isinstance(address, str) and address else None


def service() -> Any:
    """The running service's state (service/state.py), or None under `streamlit run` and AppTest."""
    mod = sys.modules.get("service.state")
    return mod.current() if mod is not None else None


def components_served() -> bool:
    """Whether the served components (service/assets: cookie bridge, warm-up, front-end words) may be
    mounted: only under the service that declared them — not under `streamlit run`, nor in an AppTest
    that holds a service state of its own."""
    return bool(getattr(service(), "components_served", False))


def _clear_state() -> None:
    for key in list(st.session_state.keys()):
        del st.session_state[key]


def _end(flash: str | None) -> None:
    _clear_state()
    if flash:
        st.session_state[FLASH_KEY] = flash


def current_user() -> access.Principal | None:
    user = st.session_state.get(USER_KEY)
    sid = st.session_state.get(SESSION_KEY)
    if user is not None and sid is not None:
        principal, why = sessions.validate_id(store(), sid, now=now())
        if principal is None:
            _end(EXPIRED_MESSAGE if why == sessions.EXPIRED else ENDED_MESSAGE)
            return None
        st.session_state[USER_KEY] = principal      # a role changed by the admin would have revoked it
        st.session_state[SEEN_KEY] = now()
        return principal
    if user is not None:                            # set directly (tests): the in-memory idle rule
        last_seen = _seen(st.session_state.get(SEEN_KEY))
        if last_seen is None or login.session_expired(last_seen, now()):
            _end(EXPIRED_MESSAGE)
            return None
        st.session_state[SEEN_KEY] = now()
        return user
    token = _cookie_token()
    if not token:
        return None
    found = sessions.validate(store(), token, now=now())
    if found is None:
        return None
    sign_in(found.principal, session_id=found.id)   # a reload, a new tab, a restarted service
    return found.principal


def still_signed_in(user: access.Principal) -> access.Principal | None:
    """The session re-validated (`current_user`) when it is still `user`'s — for code that runs without app.py's
    check first (a widget's callback, a fragment's own rerun); None when it ended or is another person's."""
    now_user = current_user()
    return now_user if now_user is not None and now_user.id == user.id else None


def _seen(value: object) -> datetime | None:
    """The in-memory last-seen instant (aware UTC). This page code writes aware instants; a naive one
    (a test's `datetime.now()`) is local wall-clock time, read as such — never passed on as UTC."""
    if not isinstance(value, datetime):
        return None
    return value.astimezone(clock.UTC)


def _cookie_token() -> str | None:
    try:
        token = st.context.cookies.get(sessions.COOKIE_NAME)
    except Exception:  # no browser request behind this run
        return None
    return token if isinstance(token, str) and token else None   # AppTest's context is a mock


def sign_in(user: access.Principal, *, session_id: int | None = None) -> None:
    """Start the user's session: a new server-side session unless resuming `session_id` (cookie)."""
    _clear_state()  # nothing of a previous session survives a new login
    if session_id is None:
        session_id, token = sessions.issue(store(), user, now=now())
        svc = service()
        if svc is not None:   # the browser redeems this single-use ticket for the HttpOnly cookie
            st.session_state[TICKET_KEY] = (svc.tickets.issue(token), time.monotonic())
    st.session_state[USER_KEY] = user
    st.session_state[SEEN_KEY] = now()
    st.session_state[SESSION_KEY] = session_id


def logout() -> bool:
    """"Sair": end the server-side session (the old cookie is refused from now on) and clear the state. When the
    browser holds Streamlit's identity cookie (a gov.br login), drop it too (st.logout: and the gov.br session,
    through the provider's logout), so the next person at this browser meets the login page — and say so (True):
    the run must then stop, not rerun, since a rerun's start drops the redirect to the provider when it has not
    left for the browser yet."""
    sid = st.session_state.get(SESSION_KEY)
    if sid is not None:
        sessions.revoke(store(), sid, reason="logout", now=now())
    _clear_state()
    if service() is not None:
        st.session_state[CLEAR_KEY] = True
    if settings.oidc_configured() and getattr(st.user, "is_logged_in", False) is True:
        st.logout()
        return True
    return False


def cookie_bridge() -> None:
    """Under the service: mount the served JS that turns a ticket into the cookie, or clears it."""
    if not components_served():
        return
    pending = st.session_state.get(TICKET_KEY)
    if pending is not None and time.monotonic() - pending[1] >= sessions.TICKET_SECONDS:
        st.session_state.pop(TICKET_KEY, None)
        pending = None
    if pending is not None:
        data = {"action": "set", "ticket": pending[0]}
    elif st.session_state.get(CLEAR_KEY):
        data = {"action": "clear"}
    else:
        return
    renderer = st.components.v2.component(BRIDGE_COMPONENT, js="cookie_bridge.js")
    renderer(data=data, key="valuation_cookie_bridge", height=0)


def _leave_pages_folder_mode() -> None:
    """Streamlit runs a `pages/` file by itself (its old folder-based navigation: English file names
    in the sidebar, no login) when the first run after a start asks for that page's address, until
    app.py has called st.navigation. Then the page hands the run to app.py — login, navigation, the
    same address — and stops; app.py runs this page again, now in its navigation."""
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # another Streamlit layout: nothing to hand over
        return
    if not getattr(PagesManager, "uses_pages_directory", False):
        return
    PagesManager.uses_pages_directory = False
    entry = ROOT / "app.py"
    exec(compile(entry.read_text(encoding="utf-8"), str(entry), "exec"),  # noqa: S102 - our own entry point
         {"__name__": "__main__", "__file__": str(entry)})
    st.stop()


def user_office(user: access.Principal) -> str | None:
    """The office an office officer works for (where its pages open), None for a national role."""
    return access.office_of(user)


def guard(page_key: str) -> access.Principal:
    """Every page starts here: a page reached by URL without the right role refuses too."""
    _leave_pages_folder_mode()
    user = current_user()
    if user is None or not access.may_view_page(user, page_key):
        st.error(REFUSED)
        st.stop()
    return user


def refused_page() -> None:
    """What another role's page shows when reached by its address."""
    st.error(REFUSED)


def login_page() -> None:
    _, middle, _ = st.columns([1, 1.3, 1])
    with middle:
        st.image(str(ROOT / "static" / "anchor.svg"), width=56, alt="Âncora, símbolo da Marinha do Brasil")
        st.title("Naufrágios e bens resgatados")
        st.caption("Marinha do Brasil · Diretoria de Portos e Costas · Lei 7.542/1986 (redação da Lei 10.166/2000) "
                   "e NORMAM-10")
        flash = st.session_state.pop(FLASH_KEY, None)
        if flash:
            st.warning(flash)
        with st.form("login", clear_on_submit=False):
            username = st.text_input("Usuário", key="login_username", autocomplete="username")
            password = st.text_input("Senha", type="password", key="login_password", autocomplete="current-password")
            submitted = st.form_submit_button("Entrar", type="primary", width="stretch")
        if submitted:
            try:
                user = login.authenticate(store(), username.strip(), password, now=now(), client=client_address())
            except ValuationError as exc:
                st.error(str(exc))
            else:
                sign_in(user)
                st.rerun()
        st.caption(f"Acesso restrito a usuários cadastrados. {login.THROTTLE_NOTE} A sessão se encerra após "
                   f"{login.SESSION_IDLE_MINUTES} minutos sem uso. Esqueceu a senha? Procure o "
                   "administrador do sistema.")
        if settings.oidc_configured():
            _oidc_block()
    if components_served():   # issue 17: the first page's chart and table code, fetched while the person types
        front_end_warmup.mount(getattr(service(), "chart_bundle", None))
        front_end_words.mount()   # the login page speaks Portuguese too ("Ir para o conteúdo", "Tela cheia")


GOVBR_BUTTON = "Entrar com gov.br"
GOVBR_REFUSED_KEY = "valuation_govbr_refused"     # (identity key, message) of the gov.br identity refused here


def _govbr_provider() -> str | None:
    """st.login's provider: the `[auth.govbr]` section when secrets.toml names one, else `[auth]` itself."""
    try:
        return "govbr" if "govbr" in st.secrets["auth"] else None
    except Exception:
        return None


def _govbr_login() -> None:
    st.login(_govbr_provider())


def _oidc_block() -> None:
    """Logging in with gov.br (OIDC through st.login): the CPF (`sub`), then the e-mail, maps to a local user and
    role; roles that sign acts need the account level of the policy in force (valuation.accounts.govbr)."""
    st.divider()
    if st.query_params.get("login") == "govbr-falhou":      # service.middleware.LoginCallbackOutcome
        st.error(govbr.FAILED_MESSAGE)
        del st.query_params["login"]
    if not getattr(st.user, "is_logged_in", False):
        st.button(GOVBR_BUTTON, on_click=_govbr_login, width="stretch")
        return
    claims = st.user.to_dict()
    identity = govbr.IdentityBook.key(claims)
    refused = st.session_state.get(GOVBR_REFUSED_KEY)
    try:
        if refused is not None and refused[0] == identity:   # the login form's reruns: refused (and audited) once
            raise ValuationError(refused[1])
        user = govbr.principal_for_govbr(store(), claims, now=now(), client=client_address())
    except govbr.IdentitySpent:       # after "Sair", an ended session, or a day later: a new gov.br login
        st.button(GOVBR_BUTTON, on_click=_govbr_login, width="stretch")
        return
    except ValuationError as exc:
        st.session_state[GOVBR_REFUSED_KEY] = (identity, str(exc))
        st.error(str(exc))
        left, right = st.columns(2)
        left.button(GOVBR_BUTTON, on_click=_govbr_login, width="stretch")
        right.button("Sair do gov.br", on_click=st.logout, width="stretch")
        return
    sign_in(user)
    st.rerun()
