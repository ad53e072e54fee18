"""Session glue: the cached Store, login (local users; optional OIDC), expiry and the page guard."""
from __future__ import annotations

from datetime import datetime

import streamlit as st

from ui import settings
from ui.registry import ROOT
from valuation import auth
from valuation.errors import StoreLocked, ValuationError
from valuation.store.db import Store

USER_KEY = "valuation_user"
SEEN_KEY = "valuation_last_seen"
REFUSED = "Acesso negado: esta página não está disponível para o seu perfil."


@st.cache_resource(show_spinner=False)
def _open_store(path: str) -> Store:
    return Store(path)


def store() -> Store:
    """The process-wide Store (one DuckDB connection per process; a cursor per request)."""
    try:
        return _open_store(settings.db_path())
    except StoreLocked as exc:
        st.error(f"O banco de dados está em uso por outro processo. {exc}")
        st.stop()
        raise  # unreachable: st.stop() raises


def now() -> datetime:
    """The clock lives at the UI boundary; calculations take `as_of` as a parameter."""
    return datetime.now()


def current_user() -> auth.Principal | None:
    user = st.session_state.get(USER_KEY)
    if user is None:
        return None
    last_seen = st.session_state.get(SEEN_KEY)
    if last_seen is None or auth.session_expired(last_seen, now()):
        logout()
        st.session_state["valuation_flash"] = "Sessão expirada por inatividade. Entre novamente."
        return None
    st.session_state[SEEN_KEY] = now()
    return user


def sign_in(user: auth.Principal) -> None:
    for key in list(st.session_state.keys()):
        del st.session_state[key]  # nothing of a previous session survives a new login
    st.session_state[USER_KEY] = user
    st.session_state[SEEN_KEY] = now()


def logout() -> None:
    for key in list(st.session_state.keys()):
        del st.session_state[key]


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


def guard(page_key: str) -> auth.Principal:
    """Every page starts here: a page reached by URL without the right role refuses too."""
    _leave_pages_folder_mode()
    user = current_user()
    if user is None or not auth.may_view_page(user, page_key):
        st.error(REFUSED)
        st.stop()
    return user


def refused_page() -> None:
    """What another role's page shows when reached by its address."""
    st.error(REFUSED)


def login_page() -> None:
    _, middle, _ = st.columns([1, 1.3, 1])
    with middle:
        st.image(str(ROOT / "static" / "anchor.svg"), width=56)
        st.title("Naufrágios e bens resgatados")
        st.caption("Marinha do Brasil · Diretoria de Portos e Costas · Lei 7.542/1986 (redação da Lei 10.166/2000) "
                   "e NORMAM-10")
        flash = st.session_state.pop("valuation_flash", None)
        if flash:
            st.warning(flash)
        with st.form("login", clear_on_submit=False):
            username = st.text_input("Usuário", key="login_username", autocomplete="username")
            password = st.text_input("Senha", type="password", key="login_password", autocomplete="current-password")
            submitted = st.form_submit_button("Entrar", type="primary", width="stretch")
        if submitted:
            try:
                user = auth.authenticate(store(), username.strip(), password, now=now())
            except ValuationError as exc:
                st.error(str(exc))
            else:
                sign_in(user)
                st.rerun()
        st.caption(f"Acesso restrito a usuários cadastrados. Após {auth.MAX_FAILED_ATTEMPTS} tentativas erradas "
                   f"a conta fica bloqueada por {auth.LOCKOUT_MINUTES} minutos, e a sessão se encerra após "
                   f"{auth.SESSION_IDLE_MINUTES} minutos sem uso. Esqueceu a senha? Procure o administrador do sistema.")
        if settings.oidc_configured():
            _oidc_block()


def _oidc_block() -> None:
    """Single sign-on through st.login (OIDC); the e-mail maps to a local user and role."""
    st.divider()
    if not getattr(st.user, "is_logged_in", False):
        st.button("Entrar com login único", on_click=st.login)
        return
    email = str(getattr(st.user, "email", "") or "")
    try:
        user = auth.principal_for_email(store(), email)
    except ValuationError as exc:
        st.error(str(exc))
        st.button("Sair do login único", on_click=st.logout)
        return
    sign_in(user)
    st.rerun()
