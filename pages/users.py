"""Usuários (admin): list, create, deactivate, unlock. Hashes are never shown; roles and bodies by
their labels (valuation.db.access.ROLE_LABELS, COMMISSION_BODY_LABELS)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import session
from ui.expanders import lazy_expander
from ui.fmt import count_br, for_display, option_label, yes_no
from ui.forms import blanks_to_none, save, show_problems
from valuation.accounts import users
from valuation.core.errors import InputError, ValuationError
from valuation.core.law import COMMISSION_BODIES
from valuation.db.access import (
    COMMISSION_BODY_LABELS,
    ROLE_LABELS,
    ROLES,
    answers_for_offices,
)

# the new-user form's labels, for problems that name a field
FORM_LABELS = {"username": "Usuário", "full_name": "Nome completo", "email": "E-mail", "cpf": "CPF", "role": "Perfil",
               "organisation_id": "Empresa (exploradores)", "commission_body": "Órgão (Comissão)",
               "office_code": "Capitania (perfil Capitania/Delegacia/Agência)", "password": "Senha inicial"}

user = session.guard("users")
store = session.store()
st.title("Usuários e perfis")

df = users.list_users(store, user)
shown = df.copy()
if "active" in shown.columns:
    shown["active"] = [yes_no(bool(v)) for v in shown["active"]]
if len(shown):
    st.dataframe(for_display(
        shown, dates=("locked_until", "created_at"), counts=("failed_attempts",),
        labels={"role": ROLE_LABELS, "commission_body": COMMISSION_BODY_LABELS},
        only=("username", "full_name", "email", "cpf", "role", "organisation_name", "commission_body", "office_code",
              "active", "locked_until", "failed_attempts", "created_at"),
        rename={"username": "Usuário", "full_name": "Nome", "email": "E-mail", "cpf": "CPF", "role": "Perfil",
                "organisation_name": "Empresa", "commission_body": "Órgão", "office_code": "Capitania",
                "active": "Ativo",
                "locked_until": "Bloqueado até", "failed_attempts": "Falhas de acesso", "created_at": "Criado em"}),
        hide_index=True, width="stretch")
    st.caption(f"{count_br(len(df))} usuário(s).")
else:
    st.info("Nenhum usuário cadastrado.")

orgs = users.organisation_choices(store, user)
org_names = {o["id"]: o["name"] for o in orgs}
office_names = users.office_choices(store, user)

with lazy_expander("Novo usuário", key="users_new_box") as opened:
    if opened:
        with st.form("new_user"):
            a, b = st.columns(2)
            data = {
                "username": a.text_input(FORM_LABELS["username"], placeholder="ex.: cf.silva"),
                "full_name": b.text_input(FORM_LABELS["full_name"],
                                          placeholder="posto e nome, ex.: CF Ana Silva (DPC)"),
                "email": a.text_input(FORM_LABELS["email"]),
                "cpf": b.text_input(FORM_LABELS["cpf"], placeholder="000.000.000-00",
                                    help="De quem assina atos (certificado ICP-Brasil ou gov.br) e entra com gov.br."),
                "role": a.selectbox(FORM_LABELS["role"], ROLES, format_func=option_label(ROLE_LABELS)),
                "organisation_id": b.selectbox(FORM_LABELS["organisation_id"], [None, *org_names],
                                               format_func=lambda i: "—" if i is None else org_names[i]),
                "commission_body": a.selectbox(FORM_LABELS["commission_body"], [None, *COMMISSION_BODIES],
                                               format_func=lambda v: "—" if v is None else COMMISSION_BODY_LABELS[v]),
                "office_code": b.selectbox(FORM_LABELS["office_code"], [None, *office_names],
                                           format_func=lambda c: "—" if c is None else f"{c} — {office_names[c]}"),
                "password": b.text_input(FORM_LABELS["password"], type="password"),
            }
            submitted = st.form_submit_button("Criar")
        if submitted:
            save(users.create_user, store, user, blanks_to_none(data), success="Usuário criado.", labels=FORM_LABELS)

if len(df):
    st.subheader("Alterar usuário")
    names = dict(zip(df["id"].tolist(), (f"{n} ({u}) — {ROLE_LABELS.get(r, r)}" for n, u, r in
                                         zip(df["full_name"], df["username"], df["role"]))))
    pick = st.selectbox("Usuário", list(names), format_func=option_label(names))
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
    with st.form("user_cpf"):
        current = df.loc[df["id"] == pick, "cpf"].iloc[0]
        cpf = st.text_input("CPF do usuário", value="" if pd.isna(current) else str(current),
                            help="Vazio: remove o CPF. Conferido pelos dígitos verificadores.")
        if st.form_submit_button("Salvar CPF"):
            try:
                users.set_cpf(store, user, int(pick), cpf.strip() or None)
                st.success("CPF salvo.")
            except InputError as exc:
                show_problems(exc, labels={"cpf": "CPF"})

if len(df) and answers_for_offices(df.loc[df["id"] == pick, "role"].iloc[0]):   # issue 13: whose digest is whose
    all_offices = users.office_choices(store, user)
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
