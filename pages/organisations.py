"""Empresas: the explorers' registration sheet (NORMAM-10 0401 / Anexo 4-A); explorers see only their own."""
from __future__ import annotations

import streamlit as st

from ui import session
from ui.fmt import for_display
from ui.forms import blanks_to_none, save
from valuation.ids import format_cnpj
from valuation.store import organisations

user = session.guard("organisations")
store = session.store()
st.title("Empresas e instituições")
st.caption("Ficha de inscrição de pessoas físicas e jurídicas (NORMAM-10 0401, Anexo 4-A).")

search = st.text_input("Buscar (razão social, nome fantasia, CNPJ, cidade)")
df = organisations.list_organisations(store, user, search=search)
if len(df):
    df["cnpj"] = [format_cnpj(v) if v else "—" for v in df["cnpj"]]
cols = [c for c in ("name", "trade_name", "cnpj", "nationality", "city", "state", "country", "registered_on", "status",
                    "contracts") if c in df.columns]
st.dataframe(for_display(df[cols], dates=("registered_on",),
                         rename={"name": "Razão social", "trade_name": "Nome fantasia", "cnpj": "CNPJ",
                                 "nationality": "Nacionalidade", "city": "Cidade", "state": "UF/Estado",
                                 "country": "País", "registered_on": "Inscrição", "status": "Situação",
                                 "contracts": "Contratos"}),
             hide_index=True, width="stretch")

if len(df):
    pick = st.selectbox("Ficha", df["id"].tolist(), format_func=lambda i: df.loc[df["id"] == i, "name"].iloc[0])
    org = organisations.get_organisation(store, user, int(pick))
    st.markdown(f"**{org['name']}**  \nEndereço: {org['address']}, {org['city']} — {org.get('state') or ''} "
                f"({org['country']})  \nRepresentante legal: {org['representative_name']}  \n"
                f"Contato: {org.get('email') or '—'} · {org.get('phone') or '—'}")
    if org.get("experience"):
        st.markdown("**Experiência comprovada (art. 16 §5):**")
        st.text(org["experience"])

if user.role == "dpc":
    with st.expander("Inscrever empresa"):
        with st.form("new_org"):
            a, b = st.columns(2)
            data = {
                "name": a.text_input("Razão social"), "trade_name": b.text_input("Nome fantasia"),
                "cnpj": a.text_input("CNPJ"), "nationality": b.text_input("Nacionalidade", value="brasileira"),
                "address": a.text_input("Endereço"), "city": b.text_input("Cidade"),
                "state": a.text_input("UF/Estado"), "country": b.text_input("País", value="Brasil"),
                "email": a.text_input("E-mail"), "phone": b.text_input("Telefone"),
                "representative_name": a.text_input("Representante legal"),
                "representative_cpf": b.text_input("CPF do representante"),
                "registered_on": a.date_input("Data de inscrição", value=session.now().date(), format="DD/MM/YYYY"),
                "experience": st.text_area("Experiência comprovada"),
            }
            submitted = st.form_submit_button("Inscrever")
        if submitted:
            save(organisations.create_organisation, store, user, blanks_to_none(data),
                 success="Empresa inscrita (id {result}).")
