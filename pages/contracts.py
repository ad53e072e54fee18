"""Contratos e autorizações: the registry of the acts that authorise a survey, exploration, removal or demolition —
registered and corrected by DPC (a correction is a new version with its reason), moved between states only by a
dated act; read by the offices (their own) and the companies (their own)."""
from __future__ import annotations

from typing import Any

import streamlit as st

from ui import session
from ui.expanders import lazy_expander
from ui.fields import date_field, money_field
from ui.fmt import count_br, date_br, for_display, is_blank, option_label, text
from ui.forms import blanks_to_none, save
from ui.history import versions_table
from ui.safe import md
from valuation.db.access import allowed
from valuation.registry import contract_register as cr
from valuation.registry.contracts import STATUSES, get_contract, list_contracts
from valuation.registry.offices import office_choices
from valuation.registry.organisations import list_organisations
from valuation.registry.versions import REASON_LABEL
from valuation.registry.wrecks import list_wrecks

L = cr.LABELS
TABLE = {"code": "Contrato", "kind": "Operação", "act": "Ato", "organisation_name": "Empresa",
         "wreck_name": "Naufrágio", "office_code": "OM", "state_pt": "Situação", "signed_on": "Assinado em",
         "expires_on": "Vencimento"}
STATUS_LABELS = {s: s.capitalize() for s in STATUSES}


def contract_fields(key: str, current: dict[str, Any] | None) -> dict[str, Any]:
    """The registration fields (new, or `current` to correct: its code stays)."""
    orgs = list_organisations(store, user)
    org_names = dict(zip(orgs["id"].tolist(), orgs["name"].tolist()))
    w = list_wrecks(store, user)
    wreck_names = dict(zip(w["id"].tolist(), (f"{c} — {n}" for c, n in zip(w["code"], w["name"]))))
    offices: dict[str | None, str] = {None: "a do naufrágio"}
    offices.update(office_choices(store, user))

    def pick(options: list[Any], value: Any) -> int:
        return options.index(value) if value in options else 0

    a, b = st.columns(2)
    data: dict[str, Any] = {}
    if current is None:
        data["code"] = a.text_input(L["code"], placeholder="ex.: DPC-EX-2026/07", max_chars=40)
    kinds, acts = list(cr.KIND_LABELS), list(cr.ACT_FORM_LABELS)
    data["kind"] = b.selectbox(L["kind"], kinds, index=pick(kinds, current and current["kind"]),
                               format_func=option_label(cr.KIND_LABELS))
    data["act"] = a.selectbox(L["act"], acts, index=pick(acts, current and current["act"]),
                              format_func=option_label(cr.ACT_FORM_LABELS))
    data["act_number"] = b.text_input(L["act_number"], value=text(current and current["act_number"]).strip("—"),
                                      placeholder="ex.: Portaria DPC nº 31/2026", max_chars=100)
    org_ids = [None, *org_names]
    data["organisation_id"] = a.selectbox(L["organisation_id"], org_ids,
                                          index=pick(org_ids, current and current["organisation_id"]),
                                          format_func=lambda i: "— escolha —" if i is None else org_names[i])
    wreck_ids = [None, *wreck_names]
    data["wreck_id"] = b.selectbox(L["wreck_id"], wreck_ids, index=pick(wreck_ids, current and current["wreck_id"]),
                                   format_func=lambda i: "— escolha —" if i is None else wreck_names[i])
    office_codes = list(offices)
    data["office_code"] = a.selectbox(L["office_code"], office_codes,
                                      index=pick(office_codes, current and current["office_code"]),
                                      format_func=option_label(offices))
    surveyors = [None, *org_names]
    data["surveyor_organisation_id"] = b.selectbox(
        L["surveyor_organisation_id"], surveyors,
        index=pick(surveyors, current and current["surveyor_organisation_id"]),
        format_func=lambda i: "nenhuma / não se aplica" if i is None else org_names[i])
    c = current or {}
    for i, field in enumerate(("requested_on", "signed_on", "starts_on", "expires_on")):
        data[field] = date_field(L[field], value=c.get(field), where=(a, b)[i % 2], path=field, key=f"{key}_{field}")
    data["caution_amount"] = money_field(L["caution_amount"], value=c.get("caution_amount"), where=a,
                                         path="caution_amount", key=f"{key}_caution")
    return data


def register() -> None:
    with lazy_expander("Cadastrar contrato ou autorização", key="contracts_new_box") as opened:
        if opened:
            st.caption("Sem data de assinatura o ato fica como solicitado; com ela, vigente. Os termos de pagamento "
                       "(arts. 20–21) se registram em Termos do contrato; a coassinatura do Ministério da Cultura "
                       "(art. 20 §1), na página do naufrágio.")
            with st.form("contract_new"):
                data = contract_fields("contract_new", None)
                if st.form_submit_button("Cadastrar"):
                    save(cr.create_contract, store, user, blanks_to_none(data),
                         success="Contrato {result} cadastrado.", labels=L)


def acts_table(code: str) -> None:
    acts = cr.contract_acts(store, user, code)
    if not acts:
        return
    st.markdown("**Atos de situação**")
    st.dataframe([{"Ato": a["act_pt"], "Data": date_br(a["effective_on"]), "De": text(a["from_status"]),
                   "Para": a["to_status"], "Referência": text(a["reference"]), "Motivo": text(a["reason"]),
                   "Registrado por": a["recorded_by"]} for a in acts], hide_index=True, width="stretch")


def correct(code: str) -> None:
    stored = cr.contract_record(store, user, code)
    with lazy_expander("Registrar ato de situação", key=f"contracts_act_{code}") as opened:
        if opened:
            choices = cr.next_acts(stored["status"])
            if not choices:
                st.info(f"Um contrato {stored['status']} não muda mais de situação.")
            else:
                with st.form(f"contract_act_{code}", clear_on_submit=True):
                    a, b = st.columns(2)
                    act = {"act": a.selectbox("Ato", choices, format_func=lambda k: cr.ACTS_BY_KEY[k].label),
                           "effective_on": date_field("Data do ato", where=b, path="effective_on",
                                                      key=f"act_day_{code}"),
                           "reference": a.text_input("Referência do ato", placeholder="ex.: Portaria DPC nº 40/2026",
                                                     max_chars=200),
                           "reason": b.text_area("Motivo", max_chars=1000,
                                                 help="Obrigatório na suspensão, na retomada e no cancelamento.")}
                    if st.form_submit_button("Registrar ato"):
                        save(cr.record_contract_act, store, user, code, blanks_to_none(act),
                             success="Ato registrado: o contrato está {result}.", labels=cr.ACT_LABELS_FORM)
    with lazy_expander("Corrigir o registro", key=f"contracts_correct_{code}") as opened:
        if opened:
            with st.form(f"contract_correct_{code}"):
                data = contract_fields(f"contract_correct_{code}", stored)
                reason = st.text_area(REASON_LABEL, max_chars=1000)
                if st.form_submit_button("Salvar correção"):
                    save(cr.correct_contract, store, user, code, blanks_to_none(data), reason,
                         success="Correção registrada: versão {result}.", labels=L)


def detail(code: str) -> None:
    c = get_contract(store, user, code, counts=False)
    st.markdown(f"**{md(c['code'])}** — {md(cr.KIND_LABELS.get(c['kind'], c['kind']))} por "
                f"{md(cr.ACT_FORM_LABELS.get(c['act'], c['act']))} {md(text(c['act_number']))}  \n"
                f"Empresa: {md(c['organisation_name'])} · Naufrágio: {md(c['wreck_code'])} — {md(c['wreck_name'])} · "
                f"OM: {md(c['office_code'])}  \n"
                f"Situação: **{md(c['state_pt'])}** · Requerido em {date_br(c['requested_on'])} · Assinado em "
                f"{date_br(c['signed_on'])} · Início das operações {date_br(c['starts_on'])} · Vencimento "
                f"{date_br(c['expires_on'])}  \n"
                f"Caução: {cr.caution_text(c['caution_amount'])}"
                + ("" if is_blank(c.get("work_ended_on"))
                   else f" · Trabalhos concluídos em {date_br(c['work_ended_on'])}")
                + ("" if is_blank(c.get("cancelled_on")) else f" · Cancelado em {date_br(c['cancelled_on'])}"))
    acts_table(code)
    if allowed(user, "correct_contracts"):
        correct(code)
    with st.expander("Histórico de versões do registro"):
        versions_table(cr.contract_history(store, user, code))


user = session.guard("contracts")
store = session.store()
st.title("Contratos e autorizações")
st.caption("Autorizações, licenças, contratos e portarias de pesquisa, exploração, remoção e demolição "
           "(Lei 7.542/1986 arts. 4, 16–18; NORMAM-10 (ed. 2002) 0301–0303). A situação muda só por ato datado.")

df = list_contracts(store, user, counts=False)   # the counts are not shown here
if len(df):
    st.dataframe(for_display(df, dates=("signed_on", "expires_on"), labels={"kind": cr.KIND_LABELS},
                             only=list(TABLE), rename=TABLE), hide_index=True, width="stretch")
    st.caption(f"{count_br(len(df))} contrato(s).")
    names = {c: f"{c} — {o}" for c, o in zip(df["code"], df["organisation_name"])}
    pick = st.selectbox("Contrato", list(names), format_func=option_label(names))
    detail(str(pick))
else:
    st.info("Nenhum contrato registrado" + (": cadastre o primeiro abaixo." if allowed(user, "register_contracts")
                                            else "."))
if allowed(user, "register_contracts"):
    register()
