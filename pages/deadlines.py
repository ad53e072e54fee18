"""Prazos: the DPC dashboard of rules.md §7 (explorers see their own contracts' deadlines only).

Lists of overdue and due-soon deadlines by office and naval district, a timeline per
contract, a calendar heat map, the automatic-cancellation candidates (NORMAM-10 0305 f),
the Maritime Court track (Lei 2.180 arts. 33, 37, 38, 41), events and waivers, and the
exports (.ics feeds, the annual wrecks map of NORMAM-10 0404). The store scopes every row.
"""
from __future__ import annotations

import functools
from datetime import date

import pandas as pd
import plotly.express as px
import streamlit as st

from ui import session
from ui.fmt import for_display
from valuation.errors import AccessDenied, InputError, NotFound, ValuationError
from valuation.store import deadline_engine as engine
from valuation.store import deadline_events as events
from valuation.store import wreck_map
from valuation.store.offices import list_offices

LIST_LIMIT = 300  # rows shown per list; the rest is summarised (never ship a whole table)
SHOWN = {"label_pt": "Prazo", "contract_code": "Contrato", "organisation": "Empresa", "wreck": "Naufrágio",
         "office_code": "OM", "naval_district": "DN", "due": "Vencimento", "raw_due": "Data bruta",
         "state_pt": "Situação", "met_on": "Cumprido em", "reason": "Observação", "basis": "Fundamento"}
WEEKDAYS = ("seg", "ter", "qua", "qui", "sex", "sáb", "dom")

user = session.guard("deadlines")
store = session.store()
dpc = user.role == "dpc"
st.title("Prazos")
st.caption("Contagem da Lei 9.784/1999 art. 66; prazos de NORMAM-10, Lei 7.542/1986 e Lei 2.180/1954 "
           "(rules.md §7). Situação em relação à data de referência.")


def problems(exc: InputError) -> None:
    st.error("Corrija os campos indicados:\n\n" + "\n".join(f"- {p.message}" for p in exc.problems))


def table(frame: pd.DataFrame, columns: tuple[str, ...] = tuple(SHOWN)) -> None:
    cols = [c for c in columns if c in frame.columns]
    st.dataframe(for_display(frame[cols].head(LIST_LIMIT), dates=["due", "raw_due", "met_on"], rename=SHOWN),
                 hide_index=True, width="stretch")
    if len(frame) > LIST_LIMIT:
        st.caption(f"Mostrando {LIST_LIMIT} de {len(frame)} prazos; filtre por OM para ver os demais.")


c1, c2 = st.columns(2)
as_of: date = c1.date_input("Data de referência", value=session.now().date(), format="DD/MM/YYYY")
codes = list_offices(store, user)["code"].tolist()
office = c2.selectbox("Capitania/Delegacia/Agência", [None, *codes], format_func=lambda c: c or "Todas")
try:
    df = engine.compute_deadlines(store, user, as_of=as_of, office=office)
except ValuationError as exc:  # AccessDenied included: its message says why
    st.error(str(exc))
    st.stop()

counts = df["state"].value_counts() if not df.empty else {}
m = st.columns(4)
for col, state in zip(m, ("overdue", "due_soon", "upcoming", "met")):
    col.metric(engine.STATE_LABELS[state].capitalize(), int(counts.get(state, 0)))

names = ["Vencidos e a vencer", "Linha do tempo", "Mapa de calor"]
names += ["Cancelamento automático", "Tribunal Marítimo", "Registrar", "Exportar"] if dpc else ["Registrar entrega",
                                                                                               "Exportar"]
tabs = dict(zip(names, st.tabs(names)))

with tabs["Vencidos e a vencer"]:
    if dpc and not df.empty:
        by_office = engine.summary_by_office(df)
        fig = px.bar(by_office.rename(columns={"overdue": "vencidos", "due_soon": "vencem em breve"}),
                     x="office_code", y=["vencidos", "vencem em breve"], barmode="group",
                     labels={"office_code": "OM", "value": "prazos", "variable": "situação"})
        st.plotly_chart(fig, width="stretch")
        st.dataframe(by_office.rename(columns={"naval_district": "DN", "office_code": "OM", "uf": "UF",
                                               "overdue": "vencidos", "due_soon": "vencem em breve",
                                               "upcoming": "a vencer", "suspended": "suspensos", "met": "cumpridos",
                                               "waived": "dispensados"}), hide_index=True, width="stretch")
    for state in ("overdue", "due_soon", "suspended"):
        part = df[df["state"] == state] if not df.empty else df
        st.subheader(f"{engine.STATE_LABELS[state].capitalize()} ({len(part)})")
        if part.empty:
            st.caption("Nenhum prazo nesta situação.")
        else:
            table(part.sort_values(["naval_district", "office_code", "due"], kind="stable"))
    if not df.empty:
        key = st.selectbox("Explicar um prazo", df["key"].tolist()[:2000],
                           format_func=lambda k: k.replace(":", " · "))
        row = df[df["key"] == key].iloc[0]
        st.text(f"{row['label_pt']} — {row['state_pt']} ({row['reason']})\nFundamento: {row['basis']}\n\n"
                f"{row['steps']}")

with tabs["Linha do tempo"]:
    contracts = sorted(c for c in df["contract_code"].dropna().unique()) if not df.empty else []
    if not contracts:
        st.info("Nenhum contrato com prazos.")
    else:
        code = st.selectbox("Contrato", contracts)
        tl = engine.timeline_frame(df[df["contract_code"] == code])
        fig = px.timeline(tl, x_start="start", x_end="finish", y="task", color="state_pt",
                          labels={"task": "", "state_pt": "situação"})
        fig.update_yaxes(autorange="reversed")
        st.plotly_chart(fig, width="stretch")

with tabs["Mapa de calor"]:
    year = st.number_input("Ano", min_value=1900, max_value=2100, value=as_of.year, step=1)
    hm = engine.heatmap_frame(df, int(year))
    if hm.empty:
        st.info("Nenhum prazo pendente vence neste ano.")
    else:
        hm["dia"] = [WEEKDAYS[d] for d in hm["weekday"]]
        fig = px.density_heatmap(hm, x="week", y="dia", z="count", histfunc="sum", nbinsx=53,
                                 category_orders={"dia": list(WEEKDAYS)},
                                 labels={"week": "semana do ano", "dia": "", "count": "prazos"})
        st.plotly_chart(fig, width="stretch")

if dpc:
    with tabs["Cancelamento automático"]:
        cand = engine.cancellation_candidates(store, user, as_of=as_of, frame=df)
        st.caption("Autorizações canceladas automaticamente quando o relatório mensal não é entregue pelo "
                   "segundo mês consecutivo (NORMAM-10 0305 f).")
        if cand.empty:
            st.success("Nenhum contrato nesta situação.")
        else:
            st.dataframe(for_display(cand[["contract_code", "organisation", "office_code", "due", "reason"]],
                                     dates=["due"], rename={**SHOWN, "due": "Cancelado a partir de"}),
                         hide_index=True, width="stretch")
    with tabs["Tribunal Marítimo"]:
        court = df[df["rule"].isin(engine.COURT_RULES)] if not df.empty else df
        st.caption("Inquérito em 5 dias do conhecimento (art. 33 §2), relatório em 10 dias (art. 37), defesa "
                   "prévia em 10 dias (art. 38) e representação da parte nos 30 dias após o 180º (art. 41 §1 a).")
        if court.empty:
            st.info("Nenhum acidente com trâmite no Tribunal Marítimo.")
        else:
            table(court.sort_values(["wreck", "due"]), ("wreck", "wreck_name", "label_pt", "due", "state_pt",
                                                         "met_on", "reason", "basis"))

with tabs["Registrar" if dpc else "Registrar entrega"]:
    kinds = [k for k in engine.EVENT_KINDS if dpc or k.explorer]
    with st.form("event"):
        kind = st.selectbox("Evento", kinds, format_func=lambda k: k.label)
        event_date = st.date_input("Data do evento", value=as_of, format="DD/MM/YYYY")
        if dpc:
            subject = st.text_input("Contrato, naufrágio ou OM (código)", help="Contrato para relatórios, início e "
                                    "prorrogação; naufrágio para Tribunal, edital, resgate e excursão; OM para mapa "
                                    "e achados.")
        else:
            own = sorted(df["contract_code"].dropna().unique()) if not df.empty else []
            subject = st.selectbox("Contrato", own)
        reference = st.text_input("Referência", help="Mês do relatório (AAAA-MM), ano do mapa, data da excursão, "
                                  "chave do prazo cumprido ou descrição.")
        org = st.number_input("Empresa (id, para excursões)", min_value=0, value=0, step=1) if dpc else 0
        note = st.text_input("Observação")
        if st.form_submit_button("Registrar", type="primary"):
            field = {"contract": "contract_code", "wreck": "wreck_code", "office": "office_code"}.get(kind.subject)
            data = {"kind": kind.key, "event_date": event_date, "reference": reference, "note": note}
            if field:
                data[field] = subject
            if org:
                data["organisation_id"] = int(org)
            try:
                new_id = events.record_event(store, user, data)
            except InputError as exc:
                problems(exc)
            except (AccessDenied, NotFound, ValuationError) as exc:
                st.error(str(exc))
            else:
                st.success(f"Evento {new_id} registrado; os prazos foram recalculados.")
    if dpc and not df.empty:
        pending = df[df["state"].isin(engine.PENDING_STATES)]["key"].tolist()[:2000]
        with st.form("waiver"):
            key = st.selectbox("Dispensar ou suspender o prazo", pending)
            reason = st.text_input("Motivo (obrigatório)")
            if st.form_submit_button("Dispensar prazo"):
                try:
                    events.waive_deadline(store, user, key or "", reason)
                except InputError as exc:
                    problems(exc)
                else:
                    st.success("Dispensa registrada.")
    recent = events.list_events(store, user, limit=50)
    st.subheader("Últimos eventos")
    st.dataframe(for_display(recent[["id", "kind_label", "event_date", "contract_code", "wreck_code", "office_code",
                                     "reference", "current", "recorded_by"]], dates=["event_date"]),
                 hide_index=True, width="stretch")

with tabs["Exportar"]:
    feed = functools.partial(engine.deadlines_ics, store, user, as_of=as_of, office=office, frame=df)
    st.download_button("Baixar calendário de prazos (.ics)", feed, file_name=f"prazos-{office or 'todos'}.ics",
                       mime="text/calendar", icon=":material/event:")
    if dpc:
        orgs = df.dropna(subset=["organisation_id"]).drop_duplicates("organisation_id") if not df.empty else df
        if not orgs.empty:
            pick = st.selectbox("Calendário de uma empresa", orgs["organisation_id"].tolist(),
                                format_func=dict(zip(orgs["organisation_id"], orgs["organisation"])).get)
            org_feed = functools.partial(engine.deadlines_ics, store, user, as_of=as_of, organisation_id=int(pick))
            st.download_button("Baixar calendário da empresa (.ics)", org_feed, file_name=f"prazos-empresa-{pick}.ics",
                               mime="text/calendar")
        st.subheader("Mapa anual de embarcações naufragadas (NORMAM-10 0404, Anexo 4-B)")
        mc1, mc2 = st.columns(2)
        map_office = mc1.selectbox("OM do mapa", codes)
        map_year = int(mc2.number_input("Ano dos sinistros", min_value=1900, max_value=9998,
                                        value=as_of.year - 1, step=1))
        if map_office:
            result = wreck_map.wreck_map(store, user, office=map_office, year=map_year)
            if result.negative:
                st.info(f"Sem sinistros em {map_year}: transmitir a mensagem {result.message}.")
            else:
                st.write(f"{len(result.rows)} embarcação(ões) naufragada(s) em {map_year}.")
            st.caption(f"Prazo de envio: {result.deadline.due:%d/%m/%Y}"
                       + (f"; enviado em {result.sent_on:%d/%m/%Y}." if result.sent_on else "; ainda não enviado."))
            b1, b2 = st.columns(2)
            b1.download_button("Baixar PDF", functools.partial(wreck_map.wreck_map_pdf, store, user,
                                                                office=map_office, year=map_year),
                               file_name=f"mapa-naufragios-{map_office}-{map_year}.pdf", mime="application/pdf")
            b2.download_button("Baixar XLSX", functools.partial(wreck_map.wreck_map_xlsx, store, user,
                                                                 office=map_office, year=map_year),
                               file_name=f"mapa-naufragios-{map_office}-{map_year}.xlsx",
                               mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
