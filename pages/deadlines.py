"""Prazos: the DPC dashboard of the legal deadlines (explorers see their own contracts' deadlines only).

Lists of overdue and due-soon deadlines by office and naval district, a timeline per
contract, a calendar heat map, the appeals against the decisions (Lei 7.542 art. 33), the
automatic-cancellation candidates (NORMAM-10 0305 f), the Maritime Court track (Lei 2.180
arts. 33, 37, 38, 41), the removal orders and owner's balances (arts. 5, 9, 10, 13 §2), events
and waivers, and the exports (.ics feeds, the annual wrecks map of NORMAM-10 0404); what the Authority itself owes in
the requests filed with each office (Lei 9.784/1999 arts. 24, 41, 42, 49). The store
scopes every row.

This file chooses the reference date and the office, states the deadlines once and draws the tab bar;
each tab is a module of page_tabs/deadlines/.
"""
from __future__ import annotations

from collections import Counter
from datetime import date

import pandas as pd
import streamlit as st

from page_tabs.deadlines import (
    appeals,
    authority,
    cancellation,
    court,
    export,
    heatmap,
    lists,
    register,
    removals,
    timeline,
)
from page_tabs.deadlines.view import DeadlinesView
from ui import cache, session
from ui.expanders import lazy_expander
from ui.fields import date_field, value_or_stop
from ui.fmt import count_br, date_br, text
from ui.forms import problem_lines
from ui.safe import md
from ui.tabs import LazyTabs
from valuation.core import nup
from valuation.core.errors import InputError, NotFound, ValuationError
from valuation.db.access import allowed
from valuation.deadlines.states import STATE_HEADINGS
from valuation.proceedings.periods import AUTHORITY
from valuation.proceedings.requests import MATTERS
from valuation.process import cases
from valuation.registry.offices import list_offices

METRICS = {**{s: STATE_HEADINGS[s] for s in ("overdue", "due_soon", "upcoming")}, "met": "Cumpridos ou encerrados"}
AUTHORITY_METRICS = {s: f"{STATE_HEADINGS[s]} — a Autoridade deve" for s in ("overdue", "due_soon")}
AUTHORITY_HELP = ("Prazos que correm contra a Autoridade Naval nos requerimentos protocolados na Capitania escolhida "
                  "(Lei 9.784/1999 arts. 24, 26 §2, 41, 42 e 49); detalhes na aba «O que a Autoridade deve».")
TABS = {"Vencidos e a vencer": lists.render, "Linha do tempo": timeline.render, "Mapa de calor": heatmap.render,
        "Recursos": appeals.render, "O que a Autoridade deve": authority.render,
        "Cancelamento automático": cancellation.render, "Tribunal Marítimo": court.render,
        "Remoções e saldos": removals.render, "Registrar": register.render, "Registrar entrega": register.render,
        "Exportar": export.render}

user = session.guard("deadlines")
store = session.store()
manage = allowed(user, "manage_deadlines")      # DPC: every event kind, waivers, the office-wide tabs
st.title("Prazos")
st.caption("Contagem da Lei 9.784/1999 art. 66 (exclui o dia do começo, inclui o do vencimento; o prazo que vence "
           "em dia sem expediente é prorrogado para o primeiro dia útil seguinte); prazos da NORMAM-10, da Lei "
           "7.542/1986 e da Lei 2.180/1954. Situação na data de referência.")



def nup_search() -> None:
    """Find a case by its NUP (Portaria Interministerial MJSP/ME nº 11/2019), typed with or without punctuation."""
    typed = st.text_input(cases.FIELD, max_chars=nup.MAX_INPUT, placeholder=nup.EXAMPLE,
                          help="Com ou sem pontuação. O sistema confere os dígitos verificadores (Portaria "
                               "Interministerial MJSP/ME nº 11/2019).")
    if not typed.strip():
        return
    try:
        case = cases.find_case(store, user, typed)
    except InputError as exc:
        st.error("\n".join(md(line) for line in problem_lines(exc, {cases.FIELD: cases.FIELD})))
        return
    except NotFound as exc:
        st.warning(md(str(exc)))
        return
    where = f"contrato {md(case['contract_code'])} · " if case["contract_code"] else ""
    st.success(f"**NUP {case['nup']}** — {md(case['subject_label'])}: {md(case['party'] or '—')}  \n"
               f"Naufrágio {md(case['wreck_name'])} ({md(case['wreck_code'])}) · {where}"
               f"{md(case['office_name'] or case['office_code'])} · em {date_br(case['act_on'])}")
    if case["documents"]:     # the process's documents in their order (issue 42 item 2)
        def said(d: dict) -> str:      # a request's matter by its name; the rest as its author wrote it
            return text(MATTERS.get(str(d["what"]), d["what"]) if d["subject"] == "request" else d["what"])[:300]

        st.dataframe(pd.DataFrame([{"Nº": d["document_no"], "Documento": d["kind_pt"], "Data": date_br(d["day"]),
                                    "Teor": said(d)} for d in case["documents"]]), hide_index=True, width="stretch")


if allowed(user, "find_by_nup"):
    with lazy_expander("Buscar processo pelo NUP", expanded=False, key="deadlines_nup_box") as opened:
        if opened:
            nup_search()

c1, c2 = st.columns(2)
as_of: date = value_or_stop(date_field("Data de referência", value=session.today(), required=True, where=c1))
own_office = session.user_office(user)      # an office officer: its own office, no other choice
codes = [own_office] if own_office else list_offices(store, user)["code"].tolist()
office = c2.selectbox("Capitania/Delegacia/Agência", codes if own_office else [None, *codes],
                      format_func=lambda c: c or "Todas")
try:
    df = cache.deadlines(store, user, as_of=as_of, office=office)  # issue 17: once per database revision
except ValuationError as exc:  # AccessDenied and an as-of out of range included: the message says why
    st.error(str(exc))
    st.stop()

counts = df["state"].value_counts() if not df.empty else {}
m = st.columns(4)
for col, (state, label) in zip(m, METRICS.items()):
    col.metric(label, count_br(int(counts.get(state, 0))))
if allowed(user, "read_requests"):   # what the Authority itself owes in the requests (Lei 9.784/1999)
    try:
        owed = cache.authority_deadlines(store, user, as_of=as_of, office=office)
    except ValuationError as exc:
        st.error(str(exc))
    else:
        mine = Counter(r["state"] for r in owed if r["owed_by"] == AUTHORITY)
        for col, (state, label) in zip(st.columns([3, 3, 2]), AUTHORITY_METRICS.items()):   # labels fit at 1366 px
            col.metric(label, count_br(mine[state]), help=AUTHORITY_HELP)

names = ["Vencidos e a vencer", "Linha do tempo", "Mapa de calor", "Recursos", "O que a Autoridade deve"]
names += ["Cancelamento automático", "Tribunal Marítimo", "Remoções e saldos", "Registrar", "Exportar"] if manage \
    else ["Registrar entrega", "Exportar"]
tabs = LazyTabs("deadlines", names)   # issue 17: only the open tab runs
view = DeadlinesView(user=user, store=store, manage=manage, frame=df, as_of=as_of, office=office, offices=codes)
with tabs.panel():
    TABS[tabs.current](view)
