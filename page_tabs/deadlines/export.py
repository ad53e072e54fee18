"""Exportar: the .ics calendar of the pending deadlines (of the office chosen, or of one company: DPC) and
the annual wrecks map of an office (NORMAM-10 0404, Anexo 4-B) as PDF and XLSX."""
from __future__ import annotations

import functools

import streamlit as st

from page_tabs.deadlines.view import DeadlinesView
from ui.fmt import count_br, date_br, is_blank, option_label
from valuation.deadlines import frames, wreck_map


def render(view: DeadlinesView) -> None:
    store, user, frame, as_of, office = view.store, view.user, view.frame, view.as_of, view.office
    st.caption("Calendário com os prazos pendentes (vencidos, a vencer e suspensos); prazos cumpridos, encerrados "
               "ou dispensados não entram.")
    feed = functools.partial(frames.deadlines_ics, store, user, as_of=as_of, office=office, frame=frame)
    st.download_button("Baixar calendário de prazos (.ics)", feed, file_name=f"prazos-{office or 'todos'}.ics",
                       mime="text/calendar", icon=":material/event:")
    if not view.manage:
        return
    orgs = frame[[not is_blank(v) for v in frame["organisation_id"]]].drop_duplicates("organisation_id") \
        if not frame.empty else frame
    if not orgs.empty:
        names = dict(zip(orgs["organisation_id"], orgs["organisation"]))
        pick = st.selectbox("Calendário de uma empresa", list(names), format_func=option_label(names))
        org_feed = functools.partial(frames.deadlines_ics, store, user, as_of=as_of, organisation_id=int(pick))
        st.download_button("Baixar calendário da empresa (.ics)", org_feed, file_name=f"prazos-empresa-{pick}.ics",
                           mime="text/calendar")
    wreck_map_section(view)


def wreck_map_section(view: DeadlinesView) -> None:
    store, user = view.store, view.user
    st.subheader("Mapa anual de embarcações naufragadas (NORMAM-10 0404, Anexo 4-B)")
    mc1, mc2 = st.columns(2)
    office = mc1.selectbox("OM do mapa", view.offices)
    year = int(mc2.number_input("Ano dos sinistros", min_value=1900, max_value=9998, value=view.as_of.year - 1,
                                step=1))
    if not office:
        return
    result = wreck_map.wreck_map(store, user, office=office, year=year)
    if result.negative:
        st.info(f"Sem sinistros em {year}: transmitir a mensagem {result.message}.")
    else:
        n = len(result.rows)
        st.write(f"{count_br(n)} embarcação naufragada em {year}." if n == 1 else
                 f"{count_br(n)} embarcações naufragadas em {year}.")
    st.caption(f"Prazo de envio: {result.deadline_text}"
               + (f"; enviado em {date_br(result.sent_on)}." if result.sent_on else "; ainda não enviado."))
    b1, b2 = st.columns(2)
    b1.download_button("Baixar PDF", functools.partial(wreck_map.wreck_map_pdf, store, user, office=office, year=year),
                       file_name=f"mapa-naufragios-{office}-{year}.pdf", mime="application/pdf")
    b2.download_button("Baixar XLSX", functools.partial(wreck_map.wreck_map_xlsx, store, user, office=office,
                                                         year=year),
                       file_name=f"mapa-naufragios-{office}-{year}.xlsx",
                       mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
