"""Calendário de dias úteis de uma OM (Lei 9.784/1999 art. 66).

Feriados nacionais e estaduais (biblioteca `holidays`), feriados municipais e datas de expediente
encerrado mais cedo da OM (DPC inclui e exclui — validado e auditado) e as políticas datadas de
pontos facultativos e de encerramento antecipado (alteradas na página Políticas). Cada dia é mostrado
como o calendário em vigor naquele dia o define.
"""
from __future__ import annotations

import streamlit as st

from ui import figures, session
from ui.charts import pt_br, show
from ui.fields import date_field
from ui.fmt import count_br, date_br, for_display, option_label
from ui.forms import save
from valuation.db.access import allowed
from valuation.deadlines import calendars
from valuation.policies.values import policy_in_force
from valuation.process import numbers
from valuation.registry.offices import list_offices

MONTHS = ("jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez")
DAY_LABELS = {"office_code": "Capitania/Delegacia/Agência", "day": "Data do feriado", "name": "Nome do feriado"}
EARLY_LABELS = {"office_code": "Capitania/Delegacia/Agência", "day": "Data do encerramento antecipado",
                "name": "Motivo"}

FLASH = "calendar_flash"

user = session.guard("calendar")
store = session.store()
st.title("Calendário de dias úteis")
st.caption("Um prazo que termina em dia sem expediente, ou em dia de expediente encerrado antes da hora normal, é "
           "prorrogado para o primeiro dia útil seguinte (Lei 9.784/1999 art. 66 §1). Dias úteis: segunda a sexta, "
           "exceto feriados nacionais, do estado e do município da OM e os pontos facultativos adotados.")

flash = st.session_state.pop(FLASH, None)
if flash:
    st.success(flash)
offices = list_offices(store, user)
if offices.empty:
    st.info("Nenhuma Capitania, Delegacia ou Agência cadastrada.")
    st.stop()
label = {r.code: f"{r.code} — {r.name} ({r.state})" for r in offices.itertuples()}
c1, c2 = st.columns([3, 1])
mine = session.user_office(user)
office = c1.selectbox("Capitania/Delegacia/Agência", list(label), format_func=option_label(label),
                      index=list(label).index(mine) if mine in label else 0)
year = int(c2.number_input("Ano", min_value=calendars.MIN_HOLIDAY_YEAR, max_value=calendars.MAX_HOLIDAY_YEAR,
                           value=session.today().year, step=1))

closed = calendars.closed_days(store, user, office, year)
months = calendars.business_days_by_month(store, user, office, year)
m1, m2, m3 = st.columns(3)
m1.metric("Dias úteis no ano", count_br(int(months["business_days"].sum())))
m2.metric("Dias de semana sem expediente", count_br(int((closed["kind"] != calendars.EARLY).sum())))
m3.metric("Feriados municipais", count_br(int((closed["kind"] == "local").sum())))

months["Mês"] = [MONTHS[m - 1] for m in months["month"]]
fig = figures.bar(months, x="Mês", y="business_days", text="business_days",
                  labels={"business_days": "Dias úteis", "Mês": "Mês"})
fig.update_traces(marker_color="#2e5f8a", textposition="outside",
                  hovertemplate="%{x}: %{y} dias úteis<extra></extra>")
show(pt_br(fig, counts=("y",), height=320))
st.subheader("Dias sem expediente e de expediente reduzido (exceto sábados e domingos)")
if closed.empty:
    st.caption(f"Nenhum dia de semana sem expediente em {year}.")
else:
    st.dataframe(for_display(closed, dates=["day"], only=["day", "weekday", "kind_label", "reason"],
                             rename={"day": "Data", "weekday": "Dia da semana", "kind_label": "Tipo",
                                     "reason": "Motivo"}), hide_index=True, width="stretch")
today = session.today()
for key in ("policy_days", "early_closing_days"):
    state = policy_in_force(store, key, as_of=today)
    st.caption(f"{state.label} em vigor hoje (política, {state.basis}): {state.text}. "
               + ("Alterações com vigência datada na página Políticas." if allowed(user, "read_policies") else ""))


def done(saved: object, message: str) -> None:
    """After a write that went through: show `message` on the page as it is now (rerun)."""
    if saved is not None:
        st.session_state[FLASH] = message
        st.rerun()


def own_days(kind: str) -> None:
    """The office's own days of one kind: the list, a form to add one and a form to remove one."""
    holiday = kind == "local"
    listing = (calendars.list_local_holidays if holiday else calendars.list_early_closings)(store, user, office)
    labels = DAY_LABELS if holiday else EARLY_LABELS
    st.subheader(f"Feriados municipais de {office}" if holiday else f"Expediente encerrado mais cedo em {office}")
    with st.form(f"add_{kind}", clear_on_submit=True):
        a1, a2 = st.columns([1, 2])
        day = date_field(labels["day"], required=True, where=a1, path="day")
        name = a2.text_input(labels["name"], max_chars=calendars.MAX_HOLIDAY_NAME)
        button = "Incluir feriado municipal" if holiday else "Incluir encerramento antecipado"
        if st.form_submit_button(button, type="primary"):
            add = calendars.add_local_holiday if holiday else calendars.add_early_closing
            done(save(add, store, user, {"office_code": office, "day": day, "name": name}, labels=labels,
                      success="Data incluída."), "Data incluída; os prazos da OM foram recalculados.")
    if listing.empty:
        return
    choices = [(r.day, r.name) for r in listing.itertuples()]
    with st.form(f"remove_{kind}"):
        pick = st.selectbox("Excluir feriado municipal" if holiday else "Excluir encerramento antecipado", choices,
                            format_func=lambda c: f"{date_br(c[0])} — {c[1]}")
        if st.form_submit_button("Excluir"):
            remove = calendars.remove_local_holiday if holiday else calendars.remove_early_closing
            done(save(remove, store, user, office, pick[0], success="Data excluída."), "Data excluída.")


if allowed(user, "manage_calendars"):
    own_days("local")
    own_days("early")


def protocol_unit() -> None:
    """The office's protocol unit code, from which its requests, decisions and documents take their NUP
    (Portaria Interministerial MJSP/ME nº 11/2019)."""
    st.subheader(f"Unidade protocolizadora de {office} (NUP)")
    unit = next((u["unit_code"] for u in numbers.protocol_units(store, user) if u["office_code"] == office), None)
    st.caption(f"Código {unit}: os pedidos, decisões e documentos da OM recebem NUP {unit}.NNNNNN/AAAA-DV, em "
               "sequência anual (Portaria Interministerial MJSP/ME nº 11/2019)." if unit else
               "Sem código cadastrado: os atos desta OM ficam sem NUP até o cadastro.")
    with st.form("protocol_unit"):
        code = st.text_input(numbers.UNIT_LABEL, value=unit or "", max_chars=5, placeholder="5 dígitos")
        if st.form_submit_button("Gravar código"):
            done(save(numbers.set_protocol_unit, store, user, office, code, labels={"unit_code": numbers.UNIT_LABEL},
                      success="Código gravado."), "Código gravado.")


if allowed(user, "manage_protocol_units"):
    protocol_unit()
