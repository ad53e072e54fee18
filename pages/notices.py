"""Avisos (every role; issue 42 item 4): the person's own notices — unread first —, marking them read, and how they
want them by e-mail (at once, a daily summary, or none). The text of a notice is the product's, with names a user
wrote (a company, a wreck): shown as plain text, never Markdown."""
from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from ui import session
from ui.fmt import count_br, moment_br
from ui.forms import save
from ui.registry import BY_KEY
from ui.safe import md
from valuation.db.access import may_view_page
from valuation.notices import inbox
from valuation.notices.kinds import MAIL_CHOICES, kind_label
from valuation.notices.text import parse_link

PAGE_SIZE = 20
PAGE_KEY = "notices_page"

user = session.guard("notices")
store = session.store()
st.title("Avisos")
st.caption("O que aconteceu nos atos que dizem respeito a você — e onde ver. Os avisos nunca trazem a posição de "
           "um naufrágio nem valores: abra a página indicada para vê-los, conforme o seu acesso.")

setting = inbox.mail_setting(store, user)
with st.expander("Receber os avisos por e-mail", expanded=False):
    with st.form("notice_mail"):
        choices = list(MAIL_CHOICES)
        choice = st.radio("Receber os avisos", choices, index=choices.index(setting.choice),
                          format_func=lambda c: MAIL_CHOICES[c])
        sent = st.form_submit_button("Salvar escolha", icon=":material/save:")
    if not setting.has_address:
        st.caption("O seu usuário não tem endereço de e-mail cadastrado: os avisos ficam só aqui. Peça ao "
                   "administrador que cadastre o seu e-mail.")
    if sent:
        changed = save(inbox.set_mail_choice, store, user, choice, success=None, labels={"choice": "Receber os avisos"})
        if changed:
            st.success(f"Escolha salva: {MAIL_CHOICES[choice]}. Vale para os avisos que chegarem de agora em diante.")
        elif changed is False:
            st.info("Essa já era a sua escolha.")

page = int(st.session_state.get(PAGE_KEY, 1))
box = inbox.inbox(store, user, page=page, page_size=PAGE_SIZE)
a, b, c = st.columns([1, 1, 2])
a.metric("Não lidos", count_br(box.unread))
b.metric("Avisos", count_br(box.total))
if box.unread and c.button("Marcar todos como lidos", icon=":material/done_all:"):
    if save(inbox.mark_all_read, store, user, success=None) is not None:
        st.rerun()

if not box.rows:
    st.info("Você não tem avisos.")


def _open_link(column: object, link: object) -> None:
    """A button to the page the notice points to, when the person's role is offered it."""
    parsed = parse_link(link)
    spec = None if parsed is None else BY_KEY.get(parsed[0])
    if spec is None or not spec.exists() or not may_view_page(user, spec.key):
        return
    try:
        column.page_link(spec.path, label=f"Abrir {spec.title}", icon=spec.icon)  # type: ignore[attr-defined]
    except StreamlitPageNotFoundError:      # the page run outside the navigation (its address alone)
        column.caption(f"Na página {spec.title}")   # type: ignore[attr-defined]


for row in box.rows:
    unread = row["read_at"] is None
    with st.container(border=True):
        head, side = st.columns([4, 1])
        state = "Não lido" if unread else f"Lido em {moment_br(row['read_at'], zone=True)}"
        head.caption(f"{md(kind_label(row['kind']))} · {moment_br(row['created_at'], zone=True)} · {state}")
        head.markdown(f"**{md(row['title'])}**")
        head.text(str(row["body"]))
        _open_link(side, row["link"])
        if unread and side.button("Marcar como lido", key=f"notice_read_{row['id']}", icon=":material/done:"):
            if save(inbox.mark_read, store, user, int(row["id"]), success=None) is not None:
                st.rerun()

if box.pages > 1:
    chosen = st.number_input(f"Página (de {box.pages})", min_value=1, max_value=box.pages, value=box.page, step=1)
    if int(chosen) != box.page:
        st.session_state[PAGE_KEY] = int(chosen)
        st.rerun()
