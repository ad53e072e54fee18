"""Calendário de dias úteis de uma OM (Lei 9.784/1999 art. 66).

Feriados nacionais e estaduais (biblioteca `holidays`), feriados municipais da OM
(DPC inclui e exclui — validado e auditado) e pontos facultativos (política).
"""
from __future__ import annotations

import plotly.express as px
import streamlit as st

from ui import session
from ui.charts import pt_br, show
from ui.fmt import count_br, for_display
from ui.forms import show_problems
from valuation.core.errors import AccessDenied, InputError, NotFound, ValuationError
from valuation.deadlines import calendars
from valuation.registry.offices import list_offices

MONTHS = ("jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez")

user = session.guard("calendar")
store = session.store()
dpc = user.role == "dpc"
st.title("Calendário de dias úteis")
st.caption("Um prazo que termina em dia sem expediente é prorrogado para o primeiro dia útil seguinte "
           "(Lei 9.784/1999 art. 66 §1). Dias úteis: segunda a sexta, exceto feriados nacionais, do estado e do "
           "município da OM e os pontos facultativos adotados.")

offices = list_offices(store, user)
if offices.empty:
    st.info("Nenhuma Capitania, Delegacia ou Agência cadastrada.")
    st.stop()
label = {r.code: f"{r.code} — {r.name} ({r.state})" for r in offices.itertuples()}
c1, c2 = st.columns([3, 1])
office = c1.selectbox("Capitania/Delegacia/Agência", list(label), format_func=label.get)
year = int(c2.number_input("Ano", min_value=calendars.MIN_HOLIDAY_YEAR, max_value=calendars.MAX_HOLIDAY_YEAR,
                           value=session.today().year, step=1))

closed = calendars.closed_days(store, user, office, year)
months = calendars.business_days_by_month(store, user, office, year)
m1, m2, m3 = st.columns(3)
m1.metric("Dias úteis no ano", count_br(int(months["business_days"].sum())))
m2.metric("Dias de semana sem expediente", count_br(len(closed)))
m3.metric("Feriados municipais", count_br(int((closed["kind"] == "local").sum())))

months["Mês"] = [MONTHS[m - 1] for m in months["month"]]
fig = px.bar(months, x="Mês", y="business_days", text="business_days",
             labels={"business_days": "Dias úteis", "Mês": "Mês"})
fig.update_traces(marker_color="#2e5f8a", textposition="outside",
                  hovertemplate="%{x}: %{y} dias úteis<extra></extra>")
show(pt_br(fig, counts=("y",), height=320))
st.subheader("Dias sem expediente (exceto sábados e domingos)")
if closed.empty:
    st.caption(f"Nenhum dia de semana sem expediente em {year}.")
else:
    st.dataframe(for_display(closed, dates=["day"], only=["day", "weekday", "kind_label", "reason"],
                             rename={"day": "Data", "weekday": "Dia da semana", "kind_label": "Tipo",
                                     "reason": "Motivo"}), hide_index=True, width="stretch")
days_in_force = calendars.policy_days_in_force(store)
st.caption("Pontos facultativos em vigor (política): "
           + (", ".join(calendars.POLICY_DAY_LABELS[d] for d in days_in_force) or "nenhum"))
HOLIDAY_LABELS = {"office_code": "Capitania/Delegacia/Agência", "day": "Data do feriado", "name": "Nome do feriado"}


if dpc:
    st.subheader(f"Feriados municipais de {office}")
    local = calendars.list_local_holidays(store, user, office)
    with st.form("add_holiday", clear_on_submit=True):
        a1, a2 = st.columns([1, 2])
        day = a1.date_input("Data do feriado", value=None, format="DD/MM/YYYY")
        name = a2.text_input("Nome do feriado", max_chars=calendars.MAX_HOLIDAY_NAME)
        if st.form_submit_button("Incluir feriado municipal", type="primary"):
            try:
                calendars.add_local_holiday(store, user, {"office_code": office, "day": day, "name": name})
            except InputError as exc:
                show_problems(exc, labels=HOLIDAY_LABELS)
            except (AccessDenied, ValuationError) as exc:
                st.error(str(exc))
            else:
                st.success("Feriado incluído; os prazos da OM foram recalculados.")
                st.rerun()
    if not local.empty:
        choices = [(r.day, r.name) for r in local.itertuples()]
        with st.form("remove_holiday"):
            pick = st.selectbox("Excluir feriado municipal", choices,
                                format_func=lambda c: f"{c[0]:%d/%m/%Y} — {c[1]}")
            if st.form_submit_button("Excluir"):
                try:
                    calendars.remove_local_holiday(store, user, office, pick[0])
                except (AccessDenied, NotFound, ValuationError) as exc:
                    st.error(str(exc))
                else:
                    st.success("Feriado excluído.")
                    st.rerun()
    with st.form("policy_days"):
        chosen = st.multiselect("Pontos facultativos adotados (política: vale para todas as OM)",
                                list(calendars.POLICY_DAY_LABELS), default=list(days_in_force),
                                format_func=calendars.POLICY_DAY_LABELS.get)
        if st.form_submit_button("Salvar pontos facultativos"):
            try:
                calendars.set_policy_days(store, user, chosen)
            except InputError as exc:
                show_problems(exc, labels={"policy_days": "Pontos facultativos adotados"})
            else:
                st.success("Política atualizada.")
                st.rerun()
