"""The ordered page registry built into st.navigation (section → pages).

`key` is the access-policy key checked by `valuation.auth.may_view_page`; a page
reached by URL checks it again through `ui.session.guard`.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    key: str
    path: str
    title: str
    icon: str
    section: str


PAGES: tuple[PageSpec, ...] = (
    PageSpec("overview", "pages/overview.py", "Visão geral", ":material/dashboard:", "Painel"),
    PageSpec("wrecks", "pages/wrecks.py", "Naufrágios", ":material/sailing:", "Cadastro"),
    PageSpec("organisations", "pages/organisations.py", "Organizações", ":material/business:", "Cadastro"),
    PageSpec("users", "pages/users.py", "Usuários", ":material/group:", "Administração"),
)

BY_KEY: dict[str, PageSpec] = {p.key: p for p in PAGES}
