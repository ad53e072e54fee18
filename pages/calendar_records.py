"""Registros do calendário: the days DPC fixes in the offices' business-day calendar, each with its source (issue
44; Lei 9.784/1999 art. 66 §1) — the federal calendar's closures and moved days for every office, and per office a
library holiday switched off or a closed day switched on. Strict dates; every change audited; a record is withdrawn
with its reason, never deleted. The store validates every field."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import session
from ui.fields import date_field
from ui.fmt import count_br, date_br, for_display, option_label
from ui.forms import save
from valuation.db.access import allowed
from valuation.deadlines import calendar_records as cr
from valuation.registry.offices import list_offices

FLASH = "calendar_records_flash"
COLUMNS = {"day": "Data", "scope_pt": "Abrangência", "kind_pt": "Registro", "name": "Dia", "source": "Fonte",
           "moved_from": "Transferido de", "recorded_pt": "Registrado em", "recorded_by_pt": "Por",
           "state_pt": "Situação"}

user = session.guard("calendar_records")
store = session.store()
st.title("Registros do calendário")
st.caption("A biblioteca de feriados conhece os feriados das leis, mas não o calendário federal de cada ano (pontos "
           "facultativos e dias transferidos, por portaria do Ministério da Gestão) e dá a alguns estados feriados "
           "que a Lei 9.093/1995 (art. 1º II: só a data magna do Estado) não lhes permite. A DPC fixa aqui cada dia, "
           "com a sua fonte: para todas as OM, um dia sem expediente ou um fechamento transferido; para uma OM, um "
           "feriado da biblioteca desligado ou um dia sem expediente. Todo prazo que atravessa um dia registrado o "
           "diz na sua explicação (Lei 9.784/1999 art. 66 §1).")

flash = st.session_state.pop(FLASH, None)
if flash:
    st.success(flash)
offices = list_offices(store, user)
scopes = {cr.NATIONAL: cr.NATIONAL_LABEL, **{r.code: f"{r.code} — {r.name} ({r.state})" for r in offices.itertuples()}}
c1, c2 = st.columns([3, 1])
scope = c1.selectbox("Abrangência", list(scopes), format_func=option_label(scopes), key="records_scope",
                     help="Uma OM mostra os seus registros e os de todas as OM.")
year = int(c2.number_input("Ano", min_value=cr.MIN_YEAR, max_value=cr.MAX_YEAR,
                           value=session.today().year, step=1, key="records_year"))
rows = cr.calendar_records(store, user, year=year, scope=scope)
m1, m2 = st.columns(2)
m1.metric("Registros em vigor", count_br(sum(1 for r in rows if r["withdrawn_at"] is None)))
m2.metric("Registros retirados", count_br(sum(1 for r in rows if r["withdrawn_at"] is not None)))
if rows:
    frame = pd.DataFrame(rows)[list(COLUMNS)]
    st.dataframe(for_display(frame, dates=["day", "moved_from"], rename=COLUMNS), hide_index=True, width="stretch")
else:
    st.caption(f"Nenhum registro em {year} para {scopes[scope]}.")


def done(saved: object, message: str) -> None:
    """After a write that went through: show `message` on the page as it is now (rerun)."""
    if saved is not None:
        st.session_state[FLASH] = message
        st.rerun()


def add_form() -> None:
    kinds = cr.NATIONAL_KINDS if scope == cr.NATIONAL else cr.OFFICE_KINDS
    st.subheader(f"Registrar um dia — {scopes[scope]}")
    with st.form("calendar_record", clear_on_submit=True):
        a, b = st.columns([2, 1])
        kind = a.selectbox(cr.LABELS["kind"], list(kinds), format_func=option_label(cr.KINDS), index=None,
                           placeholder="Escolha o registro")
        day = date_field(cr.LABELS["day"], required=True, where=b, path="day")
        moved = date_field(cr.LABELS["moved_from"], path="moved_from",
                           help="Só para um dia sem expediente transferido de outro dia")
        name = st.text_input(cr.LABELS["name"], max_chars=cr.MAX_NAME, placeholder="Ponto facultativo")
        source = st.text_input(cr.LABELS["source"], max_chars=cr.MAX_SOURCE,
                               placeholder="Portaria MGI nº 9.783/2024")
        if st.form_submit_button("Registrar o dia", type="primary"):
            done(save(cr.add_calendar_record, store, user,
                      {"scope": scope, "kind": kind, "day": day, "moved_from": moved, "name": name.strip() or None,
                       "source": source.strip() or None}, labels=cr.LABELS, success="Dia registrado."),
                 "Dia registrado; os prazos que o atravessam foram recontados.")


def withdraw_form() -> None:
    active = {int(r["id"]): f"{date_br(r['day'])} · {r['scope_pt']} · {r['kind_pt']} · {r['name']}"
              for r in rows if r["withdrawn_at"] is None}
    if not active:
        return
    st.subheader("Retirar um registro")
    with st.form("withdraw_calendar_record"):
        pick = st.selectbox("Registro", list(active), format_func=option_label(active), index=None,
                            placeholder="Escolha o registro")
        reason = st.text_input(cr.LABELS["reason"], max_chars=cr.MAX_REASON)
        if st.form_submit_button("Retirar"):
            if pick is None:
                st.error("Registro: escolha o registro a retirar.")
                return
            done(save(cr.withdraw_calendar_record, store, user, int(pick), reason.strip() or None,
                      labels=cr.LABELS, success="Registro retirado."),
                 "Registro retirado; o dia volta a seguir a biblioteca e as políticas.")


if allowed(user, "manage_calendars"):
    add_form()
    withdraw_form()
