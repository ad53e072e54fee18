"""Usuários (admin): list, create, change role, deactivate, unlock, reset password. Hashes are never shown."""
from __future__ import annotations

import streamlit as st

from ui import session
from ui.fmt import for_display, yes_no
from ui.forms import blanks_to_none, save, show_problems
from valuation.auth import ROLES
from valuation.errors import InputError, ValuationError
from valuation.store import users

user = session.guard("users")
store = session.store()
st.title("Usuários e perfis")

df = users.list_users(store, user)
shown = df.copy()
if "active" in shown.columns:
    shown["active"] = [yes_no(bool(v)) for v in shown["active"]]
st.dataframe(for_display(shown.drop(columns=[c for c in ("organisation_id",) if c in shown.columns]),
                         dates=("locked_until", "created_at"),
                         rename={"username": "Usuário", "full_name": "Nome", "email": "E-mail", "role": "Perfil",
                                 "organisation_name": "Empresa", "commission_body": "Órgão", "active": "Ativo",
                                 "locked_until": "Bloqueado até", "failed_attempts": "Falhas",
                                 "created_at": "Criado em"}),
             hide_index=True, width="stretch")

orgs = users.organisation_choices(store, user)
org_names = {o["id"]: o["name"] for o in orgs}

with st.expander("Novo usuário"):
    with st.form("new_user"):
        a, b = st.columns(2)
        data = {
            "username": a.text_input("Usuário"), "full_name": b.text_input("Nome completo"),
            "email": a.text_input("E-mail"), "role": b.selectbox("Perfil", ROLES),
            "organisation_id": a.selectbox("Empresa (exploradores)", [None, *org_names],
                                           format_func=lambda i: "—" if i is None else org_names[i]),
            "commission_body": b.selectbox("Órgão (Comissão)", [None, "navy", "culture"],
                                           format_func=lambda v: {None: "—", "navy": "Marinha",
                                                                  "culture": "Ministério da Cultura"}[v]),
            "password": a.text_input("Senha inicial", type="password"),
        }
        submitted = st.form_submit_button("Criar")
    if submitted:
        save(users.create_user, store, user, blanks_to_none(data), success="Usuário criado.")

if len(df):
    st.subheader("Alterar usuário")
    pick = st.selectbox("Usuário", df["id"].tolist(), format_func=lambda i: df.loc[df["id"] == i, "username"].iloc[0])
    c1, c2, c3 = st.columns(3)
    try:
        if c1.button("Desbloquear"):
            users.unlock_user(store, user, int(pick))
            st.success("Usuário desbloqueado.")
        if c2.button("Desativar"):
            users.set_active(store, user, int(pick), False)
            st.success("Usuário desativado.")
        if c3.button("Reativar"):
            users.set_active(store, user, int(pick), True)
            st.success("Usuário reativado.")
    except InputError as exc:
        show_problems(exc)
    except ValuationError as exc:
        st.error(str(exc))

if len(df) and df.loc[df["id"] == pick, "role"].iloc[0] == "dpc":   # issue 13: whose digest is whose
    all_offices = {r["code"]: r["name"] for r in store.fetch("SELECT code, name FROM offices ORDER BY code")}
    with st.form("user_offices"):
        chosen = st.multiselect("Capitanias pelas quais responde (resumo diário de prazos)", list(all_offices),
                                default=users.user_offices(store, user, int(pick)),
                                format_func=lambda c: f"{c} — {all_offices[c]}",
                                help="Nenhuma: sede da DPC, recebe um resumo com todas as Capitanias.")
        if st.form_submit_button("Salvar Capitanias"):
            try:
                users.set_user_offices(store, user, int(pick), chosen)
                st.success("Capitanias salvas.")
            except InputError as exc:
                show_problems(exc, labels={"offices": "Capitanias"})
