"""Empresas: the explorers' registration sheet (NORMAM-10 0401 / Anexo 4-A); explorers see only their own."""
from __future__ import annotations

from typing import Any

import streamlit as st

from ui import session
from ui.expanders import lazy_expander
from ui.fields import date_field
from ui.fmt import count_br, date_br, for_display, is_blank, option_label, text
from ui.forms import blanks_to_none, save
from ui.safe import md
from valuation.core.ids import format_cnpj, format_cpf
from valuation.db.access import allowed
from valuation.registry import organisations

TABLE = {"name": "Razão social", "trade_name": "Nome fantasia", "cnpj": "CNPJ", "nationality": "Nacionalidade",
         "city": "Cidade", "state": "UF/Estado", "country": "País", "registered_on": "Inscrição", "status": "Situação",
         "contracts": "Contratos"}
# form keys → the labels the form shows (problems name the field so)
FORM_LABELS = {"name": "Razão social", "trade_name": "Nome fantasia", "cnpj": "CNPJ", "nationality": "Nacionalidade",
               "address": "Endereço", "city": "Cidade", "state": "UF/Estado", "country": "País", "email": "E-mail",
               "phone": "Telefone", "representative_name": "Representante legal",
               "representative_cpf": "CPF do representante", "registered_on": "Data de inscrição",
               "experience": "Experiência comprovada"}


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


def register() -> None:
    with lazy_expander("Inscrever empresa", key="organisations_new_box") as opened:
        if opened:
            with st.form("new_org"):
                a, b = st.columns(2)
                L = FORM_LABELS
                data = {
                    "name": a.text_input(L["name"]), "trade_name": b.text_input(L["trade_name"]),
                    "cnpj": a.text_input(L["cnpj"], placeholder="12.345.678/0001-95",
                                         help="Obrigatório para empresa com sede no Brasil."),
                    "nationality": b.text_input(L["nationality"], value="brasileira"),
                    "address": a.text_input(L["address"]), "city": b.text_input(L["city"]),
                    "state": a.text_input(L["state"], placeholder="RJ", help="Sigla da UF no Brasil; no exterior, o "
                                                                              "estado ou província (opcional)."),
                    "country": b.text_input(L["country"], value="Brasil"),
                    "email": a.text_input(L["email"], placeholder="contato@empresa.com.br"),
                    "phone": b.text_input(L["phone"]),
                    "representative_name": a.text_input(L["representative_name"]),
                    "representative_cpf": b.text_input(L["representative_cpf"], placeholder="123.456.789-09"),
                    "registered_on": date_field(L["registered_on"], value=session.today(), where=a,
                                                path="registered_on"),
                    "experience": st.text_area(L["experience"]),
                }
                submitted = st.form_submit_button("Inscrever")
            if submitted:
                save(organisations.create_organisation, store, user, blanks_to_none(data),
                     success="Empresa inscrita (id {result}).", labels=FORM_LABELS)


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
else:
    st.info("Nenhuma empresa encontrada." if search.strip() else "Nenhuma empresa inscrita.")

if allowed(user, "create_organisation"):
    register()
