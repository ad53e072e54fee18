"""Entry point: login, then st.navigation with the pages the user's role may see."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui import session
from ui.registry import PAGES
from valuation import auth

# A local icon: a Material icon name would make the browser fetch the favicon from a CDN (CSP: self only).
ICON = Path(__file__).resolve().parent / "static" / "anchor.png"
st.set_page_config(page_title="Naufrágios e bens resgatados", page_icon=str(ICON), layout="wide")

user = session.current_user()
if user is None:
    nav = st.navigation([st.Page(session.login_page, title="Entrar", icon=":material/login:", url_path="entrar")])
else:
    sections: dict[str, list] = {}
    for spec in PAGES:
        if spec.exists() and auth.may_view_page(user, spec.key):
            sections.setdefault(spec.section, []).append(
                st.Page(spec.path, title=spec.title, icon=spec.icon, url_path=spec.key))
    with st.sidebar:
        st.markdown(f"**{user.full_name}**  \n{user.role_label}")
        if st.button("Sair", icon=":material/logout:"):
            session.logout()
            st.rerun()
    nav = st.navigation(sections, expanded=True)
session.cookie_bridge()  # under the service: the session cookie (issue 13)
nav.run()
