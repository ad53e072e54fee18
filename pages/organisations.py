"""Empresas: the explorers' registration sheet (NORMAM-10 0401 / Anexo 4-A); explorers see only their own."""
from __future__ import annotations

from typing import Any

import streamlit as st

from page_tabs.organisations import record
from ui import session
from ui.fmt import count_br, date_br, for_display, is_blank, option_label, text
from ui.safe import md
from valuation.core.ids import format_cnpj, format_cpf
from valuation.db.access import allowed
from valuation.registry import organisations

TABLE = {"name": "Razão social", "trade_name": "Nome fantasia", "cnpj": "CNPJ", "nationality": "Nacionalidade",
         "city": "Cidade", "state": "UF/Estado", "country": "País", "registered_on": "Inscrição", "status": "Situação",
         "contracts": "Contratos"}


def cnpj_text(v: object) -> str:
    """A stored CNPJ (digits) as 12.345.678/0001-95; '—' for a company without one (foreign)."""
    return text(None) if is_blank(v) else format_cnpj(str(v))


def sheet(org: dict[str, Any]) -> None:
    place = ", ".join(md(v) for v in (org.get("address"), org.get("city")) if not is_blank(v))
    region = " — ".join(md(v) for v in (org.get("state"), org.get("country")) if not is_blank(v))
    cpf = org.get("representative_cpf")
    lines = [f"**{md(org['name'])}**" + ("" if is_blank(org.get("trade_name")) else f" ({md(org['trade_name'])})"),
             f"CNPJ: {cnpj_text(org.get('cnpj'))} · Situação: {md(text(org.get('status')))} · "
             f"Inscrição: {date_br(org.get('registered_on'))}",
             f"Endereço: {place or '—'}" + (f" ({region})" if region else ""),
             f"Representante legal: {md(text(org.get('representative_name')))}"
             + ("" if is_blank(cpf) else f" (CPF {format_cpf(str(cpf))})"),
             f"Contato: {md(text(org.get('email')))} · {md(text(org.get('phone')))}"]
    st.markdown("  \n".join(lines))
    if not is_blank(org.get("experience")):
        st.markdown("**Experiência comprovada (Lei 7.542/1986 art. 16 §5):**")
        st.text(org["experience"])


user = session.guard("organisations")
store = session.store()
st.title("Empresas e instituições")
st.caption("Ficha de inscrição de pessoas físicas e jurídicas (NORMAM-10 (ed. 2002) 0401, Anexo 4-A).")

search = st.text_input("Buscar (razão social, nome fantasia, CNPJ, cidade)")
df = organisations.list_organisations(store, user, search=search)
if len(df):
    df["cnpj"] = [cnpj_text(v) for v in df["cnpj"]]
    st.dataframe(for_display(df, dates=("registered_on",), counts=("contracts",), only=list(TABLE), rename=TABLE),
                 hide_index=True, width="stretch")
    st.caption(f"{count_br(len(df))} empresa" + ("." if len(df) == 1 else "s."))
    names = dict(zip(df["id"], df["name"]))
    pick = st.selectbox("Ficha", list(names), format_func=option_label(names))
    sheet(organisations.get_organisation(store, user, int(pick)))
    if allowed(user, "correct_registry"):
        record.correct_box(store, user, int(pick), session.today())
    record.history_box(store, user, int(pick))
    if allowed(user, "manage_company_users"):
        record.logins_box(store, user, int(pick))
else:
    st.info("Nenhuma empresa encontrada." if search.strip() else "Nenhuma empresa inscrita.")

if allowed(user, "create_organisation"):
    record.register_box(store, user, session.today())
