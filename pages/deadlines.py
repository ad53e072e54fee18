"""Prazos: the DPC dashboard of the legal deadlines (explorers see their own contracts' deadlines only).

Lists of overdue and due-soon deadlines by office and naval district, a timeline per
contract, a calendar heat map, the appeals against the decisions (Lei 7.542 art. 33), the
automatic-cancellation candidates (NORMAM-10 0305 f), the Maritime Court track (Lei 2.180
arts. 33, 37, 38, 41), the removal orders and owner's balances (arts. 5, 9, 10, 13 §2), events
and waivers, and the exports (.ics feeds, the annual wrecks map of NORMAM-10 0404). The store
scopes every row.
"""
from __future__ import annotations

import functools
from datetime import date

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ui import attachments as attachments_ui  # issue 16: the reports of the events
from ui import cache, figures, session
from ui.charts import pt_br, show, today_line
from ui.fmt import count_br, date_br, for_display, is_blank, option_label, text, yes_no
from ui.forms import save
from ui.tabs import LazyTabs
from valuation.core import law
from valuation.core.errors import ValuationError
from valuation.db.access import allowed
from valuation.deadlines import appeals, engine, events, frames, views, vocabulary, wreck_map
from valuation.deadlines.rules import days_text
from valuation.registry.contracts import list_contracts
from valuation.registry.offices import list_offices
from valuation.registry.organisations import list_organisations
from valuation.registry.wrecks import list_wrecks

LIST_LIMIT = 300  # rows shown per list; the rest is summarised (never ship a whole table)
PICK_LIMIT = 2000
SHOWN = {"label_pt": "Prazo", "contract_code": "Contrato", "organisation": "Empresa", "wreck": "Naufrágio",
         "wreck_name": "Nome do naufrágio", "office_code": "OM", "naval_district": "DN", "due": "Vencimento",
         "state_pt": "Situação", "met_on": "Cumprido em", "reason": "Observação", "basis": "Fundamento"}
LIST_COLUMNS = ("label_pt", "due", "office_code", "reason", "contract_code", "wreck", "naval_district", "organisation",
                "basis")
METRICS = {"overdue": "Vencidos", "due_soon": "Vencem em breve", "upcoming": "A vencer",
           "met": "Cumpridos ou encerrados"}
HEADINGS = {"overdue": "Vencidos", "due_soon": "Vencem em breve", "suspended": "Suspensos"}
STATE_COLOURS = {"vencido": "#c0392b", "vence em breve": "#e67e22", "a vencer": "#2e86c1", "cumprido": "#27ae60",
                 "encerrado": "#7f8c8d", "dispensado": "#95a5a6", "suspenso": "#8e44ad"}
OFFICE_TABLE = {"naval_district": "DN", "office_code": "OM", "uf": "UF", "overdue": "Vencidos",
                "due_soon": "Vencem em breve", "upcoming": "A vencer", "suspended": "Suspensos", "met": "Cumpridos",
                "waived": "Dispensados"}
EVENT_TABLE = {"id": "Nº", "kind_label": "Evento", "event_date": "Data", "contract_code": "Contrato",
               "wreck_code": "Naufrágio", "office_code": "OM", "reference": "Referência", "note": "Observação",
               "current": "Em vigor", "recorded_by": "Registrado por"}
SUBJECT_LABELS = {"contract": "Contrato", "wreck": "Naufrágio", "office": "Capitania/Delegacia/Agência"}

user = session.guard("deadlines")
store = session.store()
manage = allowed(user, "manage_deadlines")      # DPC: every event kind, waivers, the office-wide tabs
st.title("Prazos")
st.caption("Contagem da Lei 9.784/1999 art. 66 (exclui o dia do começo, inclui o do vencimento; o prazo que vence "
           "em dia sem expediente é prorrogado para o primeiro dia útil seguinte); prazos da NORMAM-10, da Lei "
           "7.542/1986 e da Lei 2.180/1954. Situação na data de referência.")


def deadline_table(frame: pd.DataFrame, columns: tuple[str, ...] = LIST_COLUMNS) -> None:
    cols = [c for c in columns if c in frame.columns]
    st.dataframe(for_display(frame[cols].head(LIST_LIMIT), dates=["due", "met_on"], rename=SHOWN),
                 hide_index=True, width="stretch")
    if len(frame) > LIST_LIMIT:
        st.caption(f"Mostrando {count_br(LIST_LIMIT)} de {count_br(len(frame))} prazos; filtre por OM para ver os "
                   "demais.")


def office_chart(by_office: pd.DataFrame) -> None:
    busy = by_office[(by_office["overdue"] + by_office["due_soon"]) > 0]
    if busy.empty:
        st.success("Nenhum prazo vencido ou por vencer em breve.")
        return
    long = busy.melt(id_vars=["office_code"], value_vars=["overdue", "due_soon"], var_name="state", value_name="n")
    long["Situação"] = [HEADINGS[s] for s in long["state"]]
    fig = figures.bar(long, x="office_code", y="n", color="Situação", barmode="group",
                      color_discrete_map={"Vencidos": STATE_COLOURS["vencido"],
                                          "Vencem em breve": STATE_COLOURS["vence em breve"]},
                      labels={"office_code": "Capitania/Delegacia/Agência", "n": "Prazos"})
    fig.update_traces(hovertemplate="%{x}: %{y} prazo(s)<extra></extra>")
    show(pt_br(fig, counts=("y",), legend="Situação", height=340))


def explain(frame: pd.DataFrame) -> None:
    ordered = views.pending_first(frame).head(PICK_LIMIT)
    titles = {r["key"]: views.row_title(r) for r in ordered.to_dict("records")}
    key = st.selectbox("Explicar um prazo", list(titles), format_func=option_label(titles))
    row = frame[frame["key"] == key].iloc[0]
    st.text(f"{views.key_text(key)}\nSituação: {row['state_pt']} — {row['reason']}\n"
            f"Vencimento: {views.due_text(row['due'], row['moved_from'])}\nFundamento: {row['basis']}\n\n"
            f"{row['steps']}")


def lists_tab(frame: pd.DataFrame) -> None:
    if manage and not frame.empty:
        by_office = frames.summary_by_office(frame)
        office_chart(by_office)
        st.dataframe(for_display(by_office, counts=["overdue", "due_soon", "upcoming", "suspended", "met", "waived"],
                                 rename=OFFICE_TABLE), hide_index=True, width="stretch")
    for state, heading in HEADINGS.items():
        part = frame[frame["state"] == state] if not frame.empty else frame
        st.subheader(f"{heading} ({count_br(len(part))})")
        if part.empty:
            st.caption("Nenhum prazo nesta situação.")
        else:
            deadline_table(part.sort_values(["naval_district", "office_code", "due"], kind="stable"))
    if not frame.empty:
        explain(frame)


def timeline_tab(frame: pd.DataFrame, as_of: date) -> None:
    codes = sorted({c for c in frame["contract_code"] if not is_blank(c)}) if not frame.empty else []
    if not codes:
        st.info("Nenhum contrato com prazos.")
        return
    orgs = dict(zip(frame["contract_code"], frame["organisation"]))
    first = views.nearest_pending_contract(frame, as_of)
    code = st.selectbox("Contrato", codes, index=codes.index(first) if first in codes else 0,
                        format_func=lambda c: f"{c} — {text(orgs.get(c))}",
                        help="Abre no contrato com o prazo pendente mais próximo da data de referência.")
    part = frame[(frame["contract_code"] == code) & frame["due"].notna()]  # a bar needs a due date
    tl = frames.timeline_frame(part)
    tl["from"] = [date_br(d) for d in tl["start"]]
    tl["due"] = [views.due_text(d, m) for d, m in zip(part["due"], part["moved_from"])]
    tl["why"] = part["reason"].to_numpy()
    fig = figures.timeline(tl, x_start="start", x_end="finish", y="task", color="state_pt",
                           color_discrete_map=STATE_COLOURS, custom_data=["from", "due", "state_pt", "why"],
                           labels={"task": "Prazo", "state_pt": "Situação"})
    fig.update_yaxes(autorange="reversed", title_text="")
    fig.update_xaxes(title_text="Período do prazo (do início ao vencimento)")
    fig.update_traces(hovertemplate="<b>%{y}</b><br>de %{customdata[0]} a %{customdata[1]}<br>"
                                    "%{customdata[2]}: %{customdata[3]}<extra></extra>")
    today_line(fig, as_of, label=f"hoje ({date_br(as_of)})")
    show(pt_br(fig, dates=("x",), legend="Situação", height=max(320, 26 * len(tl) + 120)))


def heatmap_tab(frame: pd.DataFrame, as_of: date) -> None:
    year = int(st.number_input("Ano", min_value=1900, max_value=2100, value=as_of.year, step=1))
    grid = views.heatmap_grid(frame, year)
    st.caption(f"Prazos pendentes (vencidos, a vencer e suspensos) por dia de vencimento em {year}: "
               f"{count_br(grid['total'])} no ano" + (f"; no máximo {count_br(grid['peak'])} num só dia."
                                                       if grid["peak"] else "."))
    peak = max(grid["peak"], 1)
    fig = go.Figure(go.Heatmap(
        x=[d.isoformat() for d in grid["weeks"]], y=grid["weekdays"], z=grid["z"], text=grid["text"],
        hovertemplate="%{text}<extra></extra>", zmin=0, zmax=peak, xgap=2, ygap=2, hoverongaps=False,
        colorscale=[[0, "#eef1f5"], [0.5 / peak if peak > 1 else 0.01, "#c6dbef"], [1, "#08306b"]],
        colorbar={"title": {"text": "Prazos no dia"}, "tickformat": ",d", "dtick": 1 if peak <= 10 else None}))
    fig.update_yaxes(autorange="reversed", title_text="")
    fig.update_xaxes(title_text="Semana (segunda-feira)")
    show(pt_br(fig, dates=("x",), height=330))


def cancellation_tab(frame: pd.DataFrame, as_of: date) -> None:
    cand = frames.cancellation_candidates(store, user, as_of=as_of, frame=frame)
    st.caption("Autorizações canceladas automaticamente quando o relatório mensal não é entregue pelo "
               "segundo mês consecutivo (NORMAM-10 0305 f).")
    if cand.empty:
        st.success("Nenhum contrato nesta situação.")
        return
    st.dataframe(for_display(cand, dates=["due"], only=["contract_code", "organisation", "office_code", "due",
                                                        "reason"],
                             rename={**SHOWN, "due": "Cancelado a partir de"}), hide_index=True, width="stretch")


def rows_of(frame: pd.DataFrame, rules: tuple[str, ...]) -> pd.DataFrame:
    return frame[frame["rule"].isin(rules)] if not frame.empty else frame


def court_tab(frame: pd.DataFrame) -> None:
    court = rows_of(frame, engine.COURT_RULES)
    first, span = law.COURT_PRIVATE_REPRESENTATION_DAYS.value
    st.caption(f"Inquérito em {days_text(law.COURT_INQUIRY_OPENING_DAYS.value)} do conhecimento (art. 33 §2), "
               f"relatório em {days_text(law.COURT_INQUIRY_REPORT_DAYS.value)} (art. 37), defesa prévia em "
               f"{days_text(law.COURT_PRIOR_DEFENCE_DAYS.value)} (art. 38) e representação da parte nos "
               f"{days_text(span)} após o {first}º (art. 41 §1 a).")
    if court.empty:
        st.info("Nenhum acidente com trâmite no Tribunal Marítimo.")
        return
    deadline_table(court.sort_values(["wreck", "due"]),
                   ("wreck", "wreck_name", "label_pt", "due", "state_pt", "met_on", "reason", "basis"))


def appeals_tab(frame: pd.DataFrame) -> None:
    part = rows_of(frame, vocabulary.APPEAL_RULES)
    st.caption(f"Pedido de reconsideração ou recurso em {days_text(law.APPEAL_DAYS.value)} da ciência ou da "
               f"divulgação oficial da decisão, sem efeito suspensivo (Lei 7.542/1986 art. 33; Lei 9.784/1999 "
               f"art. 59); decisão em {days_text(law.APPEAL_DECISION_DAYS.value)} do recebimento dos autos, "
               f"prorrogáveis por igual período (art. 59 §§1–2).")
    if part.empty:
        st.info("Nenhum recurso registrado. Registre a ciência da decisão na aba de registro.")
        return
    deadline_table(part.sort_values(["contract_code", "start"], kind="stable"),
                   ("label_pt", "contract_code", "organisation", "due", "state_pt", "met_on", "reason", "basis"))


def removals_tab(frame: pd.DataFrame) -> None:
    part = rows_of(frame, (*vocabulary.REMOVAL_RULES, "owner_balance"))
    st.caption("Determinações de remoção ou demolição com os prazos fixados pela Autoridade "
               f"Naval ({law.REMOVAL_ORDER}); "
               f"edital de {days_text(law.REMOVAL_EDITAL_DAYS.value)} (art. 9 §2); sem cumprimento, a Autoridade "
               "assume por conta do responsável (art. 10). Saldo da alienação à disposição do responsável até 5 anos "
               "do sinistro, depois receita da União (art. 13 §2). Registro na página Domínio.")
    if part.empty:
        st.info("Nenhuma determinação de remoção nem saldo do responsável.")
        return
    deadline_table(part.sort_values(["wreck", "start"], kind="stable"),
                   ("wreck", "wreck_name", "label_pt", "due", "state_pt", "met_on", "reason", "basis"))


def contract_widget() -> str | None:
    contracts = list_contracts(store, user)
    names = dict(zip(contracts["code"], contracts["organisation_name"]))
    return st.selectbox("Contrato", contracts["code"].tolist(), format_func=lambda c: f"{c} — {names[c]}")


def subject_widget(kind: engine.EventKind) -> tuple[str | None, str | None]:
    """The subject picker for `kind` (a contract's is chosen before the form): (field, code)."""
    if kind.subject == "wreck":
        w = list_wrecks(store, user)
        names = dict(zip(w["code"], w["name"]))
        return "wreck_code", st.selectbox("Naufrágio", w["code"].tolist(), format_func=lambda c: f"{c} — {names[c]}")
    if kind.subject == "office":
        return "office_code", st.selectbox(SUBJECT_LABELS["office"], list_offices(store, user)["code"].tolist())
    return None, None


def reference_widget(kind: engine.EventKind, frame: pd.DataFrame, as_of: date, contract: str | None) -> object:
    label = kind.reference_label
    if kind.reference is None:
        return None
    if kind.reference == "month":
        return st.text_input(label, placeholder="AAAA-MM", help="O mês do relatório entregue, p. ex. 2025-06.")
    if kind.reference == "year":
        return int(st.number_input(label, min_value=1900, max_value=9998, value=as_of.year - 1, step=1))
    if kind.reference == "date":
        return st.date_input(label, value=None, format="DD/MM/YYYY")
    if kind.reference == "expiry":
        return st.date_input(label, value=None, format="DD/MM/YYYY",
                             help="Em branco: o vencimento atual da autorização.")
    if kind.reference == "decision":
        found = appeals.appealable_decisions(store, user, contract) if contract else None
        labels = dict(zip(found["reference"], found["label"])) if found is not None else {}
        return st.selectbox(label, list(labels), format_func=option_label(labels),
                            placeholder="Nenhuma decisão no contrato",
                            help="Decisões da Comissão, demonstrativos de partilha emitidos e cancelamento.")
    if kind.reference == "key":
        pending = views.pending_first(frame[frame["state"].isin(engine.PENDING_STATES)]).head(PICK_LIMIT) \
            if not frame.empty else frame
        titles = {r["key"]: views.row_title(r) for r in pending.to_dict("records")}
        return st.selectbox(label, list(titles), format_func=option_label(titles))
    return st.text_input(label + ("" if kind.reference == "text" else " (opcional)"))


def event_form(frame: pd.DataFrame, as_of: date) -> None:
    kinds = [k for k in engine.EVENT_KINDS if manage or k.explorer]
    kind = st.selectbox("Evento", kinds, format_func=lambda k: k.label)
    labels = {**events.FIELD_LABELS, "reference": kind.reference_label}
    contract = contract_widget() if kind.subject == "contract" else None
    with st.form("event"):
        event_date = st.date_input("Data do evento", value=as_of, format="DD/MM/YYYY")
        field, subject = ("contract_code", contract) if kind.subject == "contract" else subject_widget(kind)
        reference = reference_widget(kind, frame, as_of, contract)
        org = None
        if kind.key == vocabulary.EXCURSION_NOTIFIED:
            orgs = list_organisations(store, user)
            names = dict(zip(orgs["id"], orgs["name"]))
            org = st.selectbox("Empresa", orgs["id"].tolist(), format_func=option_label(names),
                               help="Quem comunicou a excursão (NORMAM-10 0307).")
        note = st.text_input("Observação")
        report = attachments_ui.report_uploader(key="event_report") if attachments_ui.may_attach(
            user, "deadline_event", "report") and kind.subject == "contract" else None
        if not st.form_submit_button("Registrar", type="primary"):
            return
    data = {"kind": kind.key, "event_date": event_date, "reference": reference, "note": note}
    if field:
        data[field] = subject
    if org is not None:
        data["organisation_id"] = int(org)
    new_id = save(events.record_event, store, user, data, labels=labels,
                  success="Evento nº {result} registrado; os prazos foram recalculados.")
    if new_id is not None:
        attachments_ui.attach_report(store, user, new_id, report)


def waiver_form(frame: pd.DataFrame) -> None:
    pending = views.pending_first(frame[frame["state"].isin(engine.PENDING_STATES)]).head(PICK_LIMIT)
    if pending.empty:
        return
    titles = {r["key"]: views.row_title(r) for r in pending.to_dict("records")}
    with st.form("waiver"):
        key = st.selectbox("Dispensar ou suspender o prazo", list(titles), format_func=option_label(titles))
        reason = st.text_input("Motivo", help=f"Obrigatório, de {events.MIN_REASON} a {events.MAX_REASON} caracteres.")
        if not st.form_submit_button("Dispensar prazo"):
            return
    save(events.waive_deadline, store, user, key or "", reason, labels={"key": "Prazo", "reason": "Motivo"},
         success="Dispensa registrada.")


def recent_events() -> None:
    recent = events.list_events(store, user, limit=50)
    st.subheader("Últimos eventos")
    if recent.empty:
        st.caption("Nenhum evento registrado.")
        return
    recent["reference"] = [views.event_reference_text(k, r) for k, r in zip(recent["kind"], recent["reference"])]
    recent["current"] = [yes_no(bool(v)) for v in recent["current"]]
    st.dataframe(for_display(recent, dates=["event_date"], only=list(EVENT_TABLE), rename=EVENT_TABLE),
                 hide_index=True, width="stretch")
    attachments_ui.event_reports(store, user, recent)


def wreck_map_section(codes: list[str], as_of: date) -> None:
    st.subheader("Mapa anual de embarcações naufragadas (NORMAM-10 0404, Anexo 4-B)")
    mc1, mc2 = st.columns(2)
    office = mc1.selectbox("OM do mapa", codes)
    year = int(mc2.number_input("Ano dos sinistros", min_value=1900, max_value=9998, value=as_of.year - 1, step=1))
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


def export_tab(frame: pd.DataFrame, as_of: date, office: str | None, codes: list[str]) -> None:
    st.caption("Calendário com os prazos pendentes (vencidos, a vencer e suspensos); prazos cumpridos, encerrados "
               "ou dispensados não entram.")
    feed = functools.partial(frames.deadlines_ics, store, user, as_of=as_of, office=office, frame=frame)
    st.download_button("Baixar calendário de prazos (.ics)", feed, file_name=f"prazos-{office or 'todos'}.ics",
                       mime="text/calendar", icon=":material/event:")
    if not manage:
        return
    orgs = frame[[not is_blank(v) for v in frame["organisation_id"]]].drop_duplicates("organisation_id") \
        if not frame.empty else frame
    if not orgs.empty:
        names = dict(zip(orgs["organisation_id"], orgs["organisation"]))
        pick = st.selectbox("Calendário de uma empresa", list(names), format_func=option_label(names))
        org_feed = functools.partial(frames.deadlines_ics, store, user, as_of=as_of, organisation_id=int(pick))
        st.download_button("Baixar calendário da empresa (.ics)", org_feed, file_name=f"prazos-empresa-{pick}.ics",
                           mime="text/calendar")
    wreck_map_section(codes, as_of)


c1, c2 = st.columns(2)
as_of: date = c1.date_input("Data de referência", value=session.today(), format="DD/MM/YYYY")
codes = list_offices(store, user)["code"].tolist()
office = c2.selectbox("Capitania/Delegacia/Agência", [None, *codes], format_func=lambda c: c or "Todas")
try:
    df = cache.deadlines(store, user, as_of=as_of, office=office)  # issue 17: once per database revision
except ValuationError as exc:  # AccessDenied and an as-of out of range included: the message says why
    st.error(str(exc))
    st.stop()

counts = df["state"].value_counts() if not df.empty else {}
m = st.columns(4)
for col, (state, label) in zip(m, METRICS.items()):
    col.metric(label, count_br(int(counts.get(state, 0))))

names = ["Vencidos e a vencer", "Linha do tempo", "Mapa de calor", "Recursos"]
names += ["Cancelamento automático", "Tribunal Marítimo", "Remoções e saldos", "Registrar", "Exportar"] if manage \
    else ["Registrar entrega", "Exportar"]
tabs = LazyTabs("deadlines", names)   # issue 17: only the open tab runs


def register_tab() -> None:
    event_form(df, as_of)
    if manage and not df.empty:
        waiver_form(df)
    recent_events()


RENDERERS = {
    "Vencidos e a vencer": lambda: lists_tab(df),
    "Linha do tempo": lambda: timeline_tab(df, as_of),
    "Mapa de calor": lambda: heatmap_tab(df, as_of),
    "Recursos": lambda: appeals_tab(df),
    "Cancelamento automático": lambda: cancellation_tab(df, as_of),
    "Tribunal Marítimo": lambda: court_tab(df),
    "Remoções e saldos": lambda: removals_tab(df),
    "Registrar": register_tab,
    "Registrar entrega": register_tab,
    "Exportar": lambda: export_tab(df, as_of, office, codes),
}
with tabs.panel():
    RENDERERS[tabs.current]()
