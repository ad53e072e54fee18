"""Exportar: the .ics calendar of the pending deadlines (of the office chosen, or of one company: DPC), with the
reminders (VALARM) of the calendar subscription; for the DPC, the PDF of an office's deadlines (overdue, due
soon, suspended, with their basis: for an ofício — the explorers' and, in the office's requests, the Authority's
own and the parties') and the annual wrecks map of an office (NORMAM-10 0404, Anexo
4-B) as PDF and XLSX — both opening on the office chosen above the tabs."""
from __future__ import annotations

import functools

import pandas as pd
import streamlit as st

from page_tabs.deadlines.view import DeadlinesView
from ui.fmt import count_br, date_br, is_blank, option_label
from valuation.deadlines import feeds, frames, office_report, wreck_map
from valuation.proceedings import reports


def render(view: DeadlinesView) -> None:
    store, user, frame, as_of, office = view.store, view.user, view.frame, view.as_of, view.office
    alarms = feeds.alarm_days(store)   # the subscription's reminders (policy calendar_alarm_days)
    st.caption("Calendário com os prazos pendentes (vencidos, a vencer e suspensos); prazos cumpridos, encerrados "
               f"ou dispensados não entram. Lembretes de cada prazo, como na assinatura de calendário: "
               f"{feeds.alarms_text(alarms)}.")
    feed = functools.partial(frames.deadlines_ics, store, user, as_of=as_of, office=office, frame=frame,
                             alarm_days=alarms)
    st.download_button("Baixar calendário de prazos (.ics)", feed, file_name=f"prazos-{office or 'todos'}.ics",
                       mime="text/calendar", icon=":material/event:")
    if not view.manage:
        return
    orgs = frame[[not is_blank(v) for v in frame["organisation_id"]]].drop_duplicates("organisation_id") \
        if not frame.empty else frame
    if not orgs.empty:
        names = dict(zip(orgs["organisation_id"], orgs["organisation"]))
        pick = st.selectbox("Calendário de uma empresa", list(names), format_func=option_label(names))
        org_feed = functools.partial(frames.deadlines_ics, store, user, as_of=as_of, organisation_id=int(pick),
                                     alarm_days=alarms)
        st.download_button("Baixar calendário da empresa (.ics)", org_feed, file_name=f"prazos-empresa-{pick}.ics",
                           mime="text/calendar")
    office_pdf_section(view)
    wreck_map_section(view)


def office_index(view: DeadlinesView) -> int:
    """The office chosen above the tabs among `view.offices` (the first when none is chosen)."""
    return view.offices.index(view.office) if view.office in view.offices else 0


def office_pdf_section(view: DeadlinesView) -> None:
    st.subheader("Prazos de uma Organização Militar (PDF)")
    st.caption("Vencidos, a vencer em breve e suspensos na data de referência, cada um com o seu fundamento legal, "
               "para anexar a um ofício.")
    if not view.offices:
        return
    office = st.selectbox("OM dos prazos", view.offices, index=office_index(view), key=f"dl_pdf_office_{view.office}")
    frame = view.frame if view.office == office else None   # the page's frame is of that office already
    pdf = functools.partial(office_pdf, view, office, frame)
    st.download_button("Baixar PDF dos prazos da OM", pdf, file_name=f"prazos-{office}-{view.as_of:%Y-%m-%d}.pdf",
                       mime="application/pdf", icon=":material/picture_as_pdf:")


def office_pdf(view: DeadlinesView, office: str, frame: pd.DataFrame | None) -> bytes:
    """The office's deadlines PDF: the engine's (explorers', owners') and, after them, what the Authority and the
    parties owe in the office's requests (Lei 9.784/1999) — computed when the button is pressed."""
    extra = reports.authority_sections(view.store, view.user, office=office, as_of=view.as_of)
    return office_report.office_deadlines_pdf(view.store, view.user, office=office, as_of=view.as_of, frame=frame,
                                              extra=extra)


def wreck_map_section(view: DeadlinesView) -> None:
    store, user = view.store, view.user
    st.subheader("Mapa anual de embarcações naufragadas (NORMAM-10 (ed. 2002) 0404, Anexo 4-B)")
    mc1, mc2 = st.columns(2)
    office = mc1.selectbox("OM do mapa", view.offices, index=office_index(view), key=f"dl_map_office_{view.office}")
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
