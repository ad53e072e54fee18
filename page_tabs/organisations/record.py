"""A company's registration sheet on Empresas (pages/organisations.py): the form to register it (with the office
where it registers, NORMAM-10 (ed. 2002) 0401), the same form to correct it (a new version with its reason), its
versions, and the logins of its representatives that its office (or DPC) creates and disables."""
from __future__ import annotations

from typing import Any

import streamlit as st

from ui.expanders import lazy_expander
from ui.fields import date_field
from ui.fmt import date_br, option_label, yes_no
from ui.forms import blanks_to_none, save
from ui.history import versions_table
from valuation.accounts import users
from valuation.core.ids import format_cpf
from valuation.db.access import Principal
from valuation.db.store import Store
from valuation.registry import offices, organisations
from valuation.registry.versions import REASON_LABEL

# form keys → the labels the form shows (problems name the field so)
FORM_LABELS = {"name": "Razão social", "trade_name": "Nome fantasia", "cnpj": "CNPJ", "nationality": "Nacionalidade",
               "address": "Endereço", "city": "Cidade", "state": "UF/Estado", "country": "País", "email": "E-mail",
               "phone": "Telefone", "representative_name": "Representante legal",
               "representative_cpf": "CPF do representante", "registered_on": "Data de inscrição",
               "experience": "Experiência comprovada", "status": "Situação",
               "office_code": organisations.OFFICE_LABEL, "reason": REASON_LABEL}
STATUS_LABELS = {s: s.capitalize() for s in organisations.STATUSES}


def sheet_fields(store: Store, user: Principal, key: str, current: dict[str, Any] | None, today: Any) -> dict[str, Any]:
    """Every field of the registration sheet, empty or filled with `current` (organisations.organisation_record)."""
    L, c = FORM_LABELS, current or {}
    a, b = st.columns(2)
    office_names: dict[str | None, str] = {None: "— nenhuma (sede da DPC) —"}
    office_names.update(offices.office_choices(store, user))
    if len(office_names) == 2 and current is None:       # an office officer: its own office, nothing to choose
        office_names.pop(None)
    codes = list(office_names)
    if c.get("office_code") and c["office_code"] not in office_names:
        codes.append(c["office_code"])
        office_names[c["office_code"]] = c["office_code"]
    statuses = list(organisations.STATUSES)
    data = {
        "name": a.text_input(L["name"], value=c.get("name") or "", max_chars=200),
        "trade_name": b.text_input(L["trade_name"], value=c.get("trade_name") or "", max_chars=200),
        "cnpj": a.text_input(L["cnpj"], value=c.get("cnpj") or "", placeholder="12.345.678/0001-95",
                             help="Obrigatório para empresa com sede no Brasil.", max_chars=20),
        "nationality": b.text_input(L["nationality"], value=c.get("nationality") or "brasileira", max_chars=100),
        "address": a.text_input(L["address"], value=c.get("address") or "", max_chars=300),
        "city": b.text_input(L["city"], value=c.get("city") or "", max_chars=100),
        "state": a.text_input(L["state"], value=c.get("state") or "", placeholder="RJ", max_chars=100,
                              help="Sigla da UF no Brasil; no exterior, o estado ou província (opcional)."),
        "country": b.text_input(L["country"], value=c.get("country") or "Brasil", max_chars=100),
        "email": a.text_input(L["email"], value=c.get("email") or "", placeholder="contato@empresa.com.br",
                              max_chars=200),
        "phone": b.text_input(L["phone"], value=c.get("phone") or "", max_chars=40),
        "representative_name": a.text_input(L["representative_name"], value=c.get("representative_name") or "",
                                            max_chars=200),
        "representative_cpf": b.text_input(L["representative_cpf"], value=c.get("representative_cpf") or "",
                                           placeholder="123.456.789-09", max_chars=20),
        "registered_on": date_field(L["registered_on"], value=c.get("registered_on") or today, where=a,
                                    path="registered_on", key=f"{key}_registered"),
        "office_code": b.selectbox(L["office_code"], codes, index=codes.index(c.get("office_code"))
                                   if c.get("office_code") in codes else 0, format_func=option_label(office_names)),
        "experience": st.text_area(L["experience"], value=c.get("experience") or "", max_chars=4000),
    }
    if current is not None:
        data["status"] = a.selectbox(L["status"], statuses, index=statuses.index(c.get("status") or "ativo"),
                                     format_func=option_label(STATUS_LABELS))
    return data


def register_box(store: Store, user: Principal, today: Any) -> None:
    with lazy_expander("Inscrever empresa", key="organisations_new_box") as opened:
        if opened:
            with st.form("new_org"):
                data = sheet_fields(store, user, "new_org", None, today)
                submitted = st.form_submit_button("Inscrever")
            if submitted:
                save(organisations.create_organisation, store, user, blanks_to_none(data),
                     success="Empresa inscrita (id {result}).", labels=FORM_LABELS)


def correct_box(store: Store, user: Principal, organisation_id: int, today: Any) -> None:
    with lazy_expander("Corrigir a ficha", key=f"organisations_correct_{organisation_id}") as opened:
        if opened:
            current = organisations.organisation_record(store, user, organisation_id)
            with st.form(f"correct_org_{organisation_id}"):
                data = sheet_fields(store, user, f"correct_org_{organisation_id}", current, today)
                reason = st.text_area(REASON_LABEL, max_chars=1000,
                                      help="Obrigatório: fica na versão, com quem corrigiu e quando.")
                submitted = st.form_submit_button("Salvar correção")
            if submitted:
                save(organisations.correct_organisation, store, user, organisation_id, blanks_to_none(data), reason,
                     success="Correção registrada: versão {result}.", labels=FORM_LABELS)


def history_box(store: Store, user: Principal, organisation_id: int) -> None:
    with st.expander("Histórico de versões da ficha"):
        versions_table(organisations.organisation_history(store, user, organisation_id))


def logins_box(store: Store, user: Principal, organisation_id: int) -> None:
    """The company's logins: who they are, a new one (CPF checked), disable or enable one."""
    with lazy_expander("Usuários da empresa (representantes)", key=f"organisations_users_{organisation_id}") as opened:
        if not opened:
            return
        people = users.company_users(store, user, organisation_id)
        if people:
            st.dataframe([{"Nome": p["full_name"], "Usuário": p["username"], "CPF": format_cpf(p["cpf"] or ""),
                           "E-mail": p["email"] or "—", "Ativo": yes_no(p["active"]),
                           "Criado em": date_br(p["created_at"])} for p in people], hide_index=True, width="stretch")
        else:
            st.caption("A empresa ainda não tem usuários.")
        L = users.COMPANY_USER_LABELS
        with st.form(f"company_user_{organisation_id}", clear_on_submit=True):
            a, b = st.columns(2)
            data = {"full_name": a.text_input(L["full_name"], max_chars=200),
                    "cpf": b.text_input(L["cpf"], placeholder="000.000.000-00", max_chars=20,
                                        help="Obrigatório: o representante entra com gov.br por este CPF."),
                    "username": a.text_input(L["username"], placeholder="ex.: rep.empresa", max_chars=32),
                    "email": b.text_input(L["email"], max_chars=200),
                    "password": a.text_input(L["password"], type="password",
                                             help="Entregue ao representante; ele pode entrar também com gov.br.")}
            if st.form_submit_button("Criar usuário"):
                save(users.create_company_user, store, user, organisation_id, blanks_to_none(data),
                     success="Usuário criado: ele vê apenas os registros desta empresa.", labels=L)
        if people:
            names = {p["id"]: f"{p['full_name']} ({p['username']})" for p in people}
            c1, c2, c3 = st.columns([2, 1, 1])
            pick = c1.selectbox("Usuário", list(names), format_func=option_label(names),
                                key=f"company_user_pick_{organisation_id}")
            if c2.button("Desativar", key=f"company_user_off_{organisation_id}"):
                save(users.set_company_user_active, store, user, organisation_id, int(pick), False,
                     success="Usuário desativado: suas sessões terminaram.")
            if c3.button("Reativar", key=f"company_user_on_{organisation_id}"):
                save(users.set_company_user_active, store, user, organisation_id, int(pick), True,
                     success="Usuário reativado.")
