"""Entry point: login, then st.navigation with the pages the user's role may see."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui import front_end_words, run_timing, session, warmup
from ui.registry import PAGES
from ui.safe import md
from valuation.db import access

# The tab icon is the app's own file (a material icon name would be fetched from fonts.gstatic.com):
# Streamlit inlines an SVG as a data URI, so no request leaves the machine.
ICON = Path(__file__).resolve().parent / "static" / "anchor.svg"
started = run_timing.start()  # bench/load.py reads these timings (VALUATION_RUN_LOG); off otherwise
warmup.start()   # the pages' imports, once per process, in the background (issue 17)
st.set_page_config(page_title="Naufrágios e bens resgatados", page_icon=str(ICON), layout="wide")

user = session.current_user()
if user is None:
    # Every registered address answers with the login form (a bookmark or a link after the session
    # expired), instead of Streamlit's English "page not found"; after login the same address opens.
    entry = st.Page(session.login_page, title="Entrar", icon=":material/login:", url_path="entrar", default=True)
    nav = st.navigation([entry, *(st.Page(session.login_page, title=spec.title, url_path=spec.key,
                                          visibility="hidden") for spec in PAGES if spec.exists())])
else:
    sections: dict[str, list[st.Page]] = {}
    refused: list[st.Page] = []
    for spec in PAGES:
        if not spec.exists():
            continue
        if access.may_view_page(user, spec.key):
            sections.setdefault(spec.section, []).append(
                st.Page(spec.path, title=spec.title, icon=spec.icon, url_path=spec.key))
        else:  # another role's page reached by its address: refused in Portuguese, never "page not found"
            refused.append(st.Page(session.refused_page, title=spec.title, url_path=spec.key, visibility="hidden"))
    if refused:
        sections.setdefault(PAGES[0].section, []).extend(refused)
    with st.sidebar:
        st.markdown(f"**{md(user.full_name)}**  \n{md(user.role_label)}")
        if st.button("Sair", icon=":material/logout:"):
            if session.logout():
                st.stop()       # the browser leaves for gov.br's logout (a rerun would drop the redirect)
            st.rerun()
        if session.components_served():
            front_end_words.mount()   # Streamlit's own English in Portuguese (issue 23 item 9)
    nav = st.navigation(sections, expanded=True)
session.cookie_bridge()  # under the service: the session cookie (issue 13)
with run_timing.recorded(started, nav.url_path, user):
    nav.run()
