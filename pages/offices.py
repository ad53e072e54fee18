"""Capitanias: the directory of the offices (CP, DL, AG) that ships with the product; DPC and the administrator add,
correct and close them (a correction is a new version with its reason; an office is never deleted)."""
from __future__ import annotations

from typing import Any

import streamlit as st

from ui import session
from ui.expanders import lazy_expander
from ui.fields import date_field
from ui.fmt import count_br, date_br, for_display, is_blank, option_label, text
from ui.forms import blanks_to_none, save
from ui.history import versions_table
from ui.safe import md
from valuation.core.forms import UFS
from valuation.db.access import allowed
from valuation.registry import offices
from valuation.registry.versions import REASON_LABEL

TABLE = {"code": "Sigla", "name": "Nome", "kind": "Tipo", "state": "UF", "city": "Cidade",
         "naval_district": "Distrito Naval", "closed_on": "Encerrada a partir de"}
LABELS = offices.LABELS
DISTRICTS = {d: f"{d}º Distrito Naval" for d in offices.NAVAL_DISTRICTS}


def office_form(key: str, current: dict[str, Any] | None) -> dict[str, Any]:
    """The fields of an office (new, or `current` to correct); the code only for a new one."""
    a, b = st.columns(2)
    data: dict[str, Any] = {}
    if current is None:
        data["code"] = a.text_input(LABELS["code"], placeholder="ex.: AGBUZIOS", max_chars=20)
    data["name"] = b.text_input(LABELS["name"], value=current["name"] if current else "", max_chars=200)
    kinds = list(offices.OFFICE_KINDS)
    data["kind"] = a.selectbox(LABELS["kind"], kinds, index=kinds.index(current["kind"]) if current else 0,
                               format_func=option_label(offices.OFFICE_KINDS))
    data["state"] = b.selectbox(LABELS["state"], UFS, index=UFS.index(current["state"]) if current else 0)
    data["city"] = a.text_input(LABELS["city"], value=current["city"] if current else "", max_chars=100)
    districts = list(DISTRICTS)
    data["naval_district"] = b.selectbox(LABELS["naval_district"], districts,
                                         index=districts.index(current["naval_district"]) if current else 0,
                                         format_func=option_label(DISTRICTS))
    data["source"] = st.text_input(LABELS["source"], value="" if current is None else text(current.get("source")),
                                   max_chars=500, help="O ato que criou ou alterou a organização (portaria, "
                                                       "boletim) ou de onde vem o dado.")
    if current is not None:
        data["closed_on"] = date_field(LABELS["closed_on"], value=current.get("closed_on"), where=a,
                                       path="closed_on", key=f"{key}_closed",
                                       help="Deixe em branco enquanto a organização funciona")
    return data


def detail(code: str) -> None:
    o = offices.get_office(store, user, code)
    closed = "" if is_blank(o.get("closed_on")) else f" · **Encerrada a partir de {date_br(o['closed_on'])}**"
    st.markdown(f"**{md(o['name'])}** ({md(o['code'])})  \n"
                f"{md(offices.OFFICE_KINDS.get(o['kind'], o['kind']))} · {md(o['city'])} ({o['state']}) · "
                f"{DISTRICTS.get(o['naval_district'], '—')}{closed}")
    st.caption(f"Fonte: {md(text(o.get('source')))}")
    if allowed(user, "manage_offices"):
        refs = offices.records_pointing_at(store, user, code)
        st.caption(f"Registros que apontam para ela: {count_br(refs['wrecks'])} naufrágio(s), "
                   f"{count_br(refs['contracts'])} contrato(s), {count_br(refs['users'])} usuário(s) — por isso uma "
                   "organização se encerra a partir de uma data, nunca se apaga.")
        with lazy_expander("Corrigir ou encerrar", key=f"offices_correct_{code}") as opened:
            if opened:
                with st.form(f"office_correct_{code}"):
                    data = office_form(f"office_correct_{code}", o)
                    reason = st.text_area(REASON_LABEL, max_chars=1000)
                    if st.form_submit_button("Salvar correção"):
                        save(offices.correct_office, store, user, code, blanks_to_none(data), reason,
                             success="Correção registrada: versão {result}.", labels=LABELS)
    with st.expander("Histórico de versões"):
        versions_table(offices.office_history(store, user, code))


user = session.guard("offices")
store = session.store()
st.title("Capitanias, Delegacias e Agências")
st.caption("Organizações da Autoridade Marítima onde se cadastram empresas e se entregam requerimentos e relatórios "
           "(NORMAM-10 (ed. 2002) 0401). A relação vem com o sistema e é mantida aqui.")

f1, f2 = st.columns([1, 2])
state = f1.selectbox("UF", ["", *UFS], format_func=lambda s: s or "Todas")
show_closed = f2.checkbox("Mostrar as encerradas", value=False)
df = offices.list_offices(store, user, state=state or None, include_closed=show_closed)
st.dataframe(for_display(df, dates=("closed_on",), labels={"kind": offices.OFFICE_KINDS}, only=list(TABLE),
                         rename=TABLE), hide_index=True, width="stretch")
st.caption(f"{count_br(len(df))} organização(ões).")
if len(df):
    names = {c: f"{c} — {n}" for c, n in zip(df["code"], df["name"])}
    mine = session.user_office(user)
    pick = st.selectbox("Organização", list(names), index=list(names).index(mine) if mine in names else 0,
                        format_func=option_label(names))
    detail(str(pick))

if allowed(user, "manage_offices"):
    with lazy_expander("Cadastrar organização", key="offices_new_box") as opened:
        if opened:
            with st.form("office_new"):
                new = office_form("office_new", None)
                if st.form_submit_button("Cadastrar"):
                    save(offices.create_office, store, user, blanks_to_none(new),
                         success="Organização {result} cadastrada.", labels=LABELS)
