"""Assinatura de calendário (dpc, explorer): a private address that calendar apps subscribe to
(issue 13, item 5). Only the token's hash is stored, so the address is shown once, when made."""
from __future__ import annotations

from urllib.parse import urlsplit

import streamlit as st

from ui import session
from ui.fmt import moment_br
from ui.forms import show_problems
from ui.jobs_view import job_settings
from valuation.core.errors import InputError, ValuationError
from valuation.db.access import allowed
from valuation.deadlines import feeds

SHOWN_KEY = "valuation_feed_url"

user = session.guard("subscriptions")
store = session.store()
cfg = job_settings()
st.title("Assinatura de calendário")
st.write("Assine os prazos no seu aplicativo de calendário (Outlook, Google Agenda, Calendário do celular): "
         "ele consulta este endereço e mostra cada prazo no dia do vencimento, com lembretes "
         f"{feeds.alarms_text(feeds.alarm_days(store))}.")
st.caption("O endereço é pessoal e dá acesso aos prazos que você pode ver: não o compartilhe. "
           "Se ele vazar, gere um novo — o antigo deixa de funcionar.")


def _base_url() -> str:
    """The address the browser used (scheme and host), else the configured one: without a browser behind
    the run (AppTest) `st.context.url` is None; a URL that does not parse (a malformed IPv6 host) is no
    address of this service."""
    url = st.context.url
    if url:
        try:
            parts = urlsplit(url)
        except ValueError:
            return cfg.base_url
        if parts.scheme and parts.netloc:
            return f"{parts.scheme}://{parts.netloc}"
    return cfg.base_url


offices = feeds.office_choices(store, user)
current = feeds.active_feed(store, user)
every_company = allowed(user, "read_all_deadlines")   # consultar os prazos de todas as empresas e Capitanias
if current is None:
    st.info("Você não tem assinatura ativa.")
else:
    if not every_company:
        scope = "da sua empresa"
    elif current["office_code"]:
        scope = f"da {offices.get(current['office_code'], current['office_code'])}"
    else:
        scope = "de todas as Capitanias"
    st.success(f"Assinatura ativa desde {moment_br(current['created_at'], zone=True)}: prazos {scope}.")

office = None
if every_company:
    office = st.columns([2, 1])[0].selectbox(
        "Prazos de", [None, *offices] if len(offices) > 1 else list(offices),   # an office officer: its own
        format_func=lambda c: "Todas as Capitanias" if c is None else f"{offices[c]} ({c})")
a, b, _ = st.columns([1, 1, 2])
try:
    if a.button("Gerar novo endereço", type="primary", icon=":material/link:"):
        token = feeds.create_feed(store, user, office=office, now=store.now())
        st.session_state[SHOWN_KEY] = feeds.feed_url(_base_url(), token)
        st.rerun()
    if current is not None and b.button("Revogar assinatura", icon=":material/link_off:"):
        feeds.revoke_feeds(store, user, now=store.now())
        st.session_state.pop(SHOWN_KEY, None)
        st.rerun()
except InputError as exc:
    show_problems(exc, labels={"office": "Prazos de"})
except ValuationError as exc:
    st.error(str(exc))

shown = st.session_state.get(SHOWN_KEY)
if shown and current is not None:
    st.subheader("Endereço da assinatura")
    st.caption("Copie com o botão que aparece à direita do endereço e cole em “Adicionar calendário da "
               "internet” (ou “por URL”) no seu aplicativo. Ele é mostrado só agora.")
    st.code(shown, language=None, wrap_lines=True)
if session.service() is None:
    st.warning("Este painel não está rodando como serviço: o endereço só responde quando ele é iniciado "
               "por scripts/start.sh.")
