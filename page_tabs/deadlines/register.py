"""Registrar (DPC) / Registrar entrega (explorer): record an event — a delivery, a notification, a
decision… — against its contract, wreck or office (the deadlines are computed again), waive or suspend a
deadline (DPC), and the latest events with their reports."""
from __future__ import annotations

import streamlit as st

from page_tabs.deadlines.view import PICK_LIMIT, DeadlinesView
from ui import attachments as attachments_ui  # issue 16: the reports of the events
from ui.fields import date_field
from ui.fmt import date_br, for_display, option_label, yes_no
from ui.forms import save
from ui.people import with_names
from valuation.core.dates import MONTH_PLACEHOLDER
from valuation.deadlines import appeals, engine, events, views, vocabulary
from valuation.registry.contracts import list_contracts
from valuation.registry.offices import office_choices
from valuation.registry.organisations import list_organisations
from valuation.registry.wrecks import list_wrecks

EVENT_TABLE = {"id": "Nº", "kind_label": "Evento", "event_date": "Data", "contract_code": "Contrato",
               "wreck_code": "Naufrágio", "office_code": "OM", "reference": "Referência", "note": "Observação",
               "current": "Em vigor", "recorded_by": "Registrado por", "recorded_at": "Registrado em"}
SUBJECT_LABELS = {"contract": "Contrato", "wreck": "Naufrágio", "office": "Capitania/Delegacia/Agência"}


def render(view: DeadlinesView) -> None:
    event_form(view)
    if view.manage and not view.frame.empty:
        waiver_form(view)
    recent_events(view)


def contract_widget(view: DeadlinesView) -> str | None:
    contracts = list_contracts(view.store, view.user, counts=False)
    names = dict(zip(contracts["code"], contracts["organisation_name"]))
    return st.selectbox("Contrato", contracts["code"].tolist(), format_func=lambda c: f"{c} — {names[c]}")


def subject_widget(view: DeadlinesView, kind: engine.EventKind) -> tuple[str | None, str | None]:
    """The subject picker for `kind` (a contract's is chosen before the form): (field, code)."""
    if kind.subject == "wreck":
        w = list_wrecks(view.store, view.user)
        names = dict(zip(w["code"], w["name"]))
        return "wreck_code", st.selectbox("Naufrágio", w["code"].tolist(), format_func=lambda c: f"{c} — {names[c]}")
    if kind.subject == "office":
        return "office_code", st.selectbox(SUBJECT_LABELS["office"],
                                           list(office_choices(view.store, view.user)))
    return None, None


def reference_widget(view: DeadlinesView, kind: engine.EventKind, contract: str | None) -> object:
    label = kind.reference_label
    if kind.reference is None:
        return None
    if kind.reference == "month":
        return st.text_input(label, placeholder=MONTH_PLACEHOLDER,
                             help="O mês do relatório entregue, p. ex. 06/2025 (ou 2025-06).")
    if kind.reference == "year":
        return int(st.number_input(label, min_value=1900, max_value=9998, value=view.as_of.year - 1, step=1))
    if kind.reference == "date":
        return date_field(label, path="reference")
    if kind.reference == "expiry":
        return date_field(label, help="Em branco: o vencimento atual da autorização", path="reference")
    if kind.reference == "decision":
        found = appeals.appealable_decisions(view.store, view.user, contract) if contract else None
        labels = dict(zip(found["reference"], found["label"])) if found is not None else {}
        return st.selectbox(label, list(labels), format_func=option_label(labels),
                            placeholder="Nenhuma decisão no contrato",
                            help="Decisões da Comissão, demonstrativos de partilha emitidos e cancelamento.")
    if kind.reference == "key":
        frame = view.frame
        pending = views.pending_first(frame[frame["state"].isin(engine.PENDING_STATES)]).head(PICK_LIMIT) \
            if not frame.empty else frame
        titles = {r["key"]: views.row_title(r) for r in pending.to_dict("records")}
        return st.selectbox(label, list(titles), format_func=option_label(titles))
    return st.text_input(label + ("" if kind.reference == "text" else " (opcional)"))


def event_form(view: DeadlinesView) -> None:
    store, user, as_of = view.store, view.user, view.as_of
    kinds = [k for k in engine.EVENT_KINDS if view.manage or k.explorer]
    kind = st.selectbox("Evento", kinds, format_func=lambda k: k.label)
    labels = {**events.FIELD_LABELS, "reference": kind.reference_label}
    contract = contract_widget(view) if kind.subject == "contract" else None
    with st.form("event"):
        if view.manage:
            event_date = date_field("Data do evento", value=as_of, required=True, path="event_date")
        else:      # the company dates nothing: the day it reaches the system is the delivery's (protocol)
            event_date = None
            st.caption(f"Data da entrega: o dia em que o sistema a recebe ({date_br(store.today())}), registrada "
                       "com a hora; a empresa não informa a data.")
        field, subject = ("contract_code", contract) if kind.subject == "contract" else subject_widget(view, kind)
        reference = reference_widget(view, kind, contract)
        org = None
        if kind.key == vocabulary.EXCURSION_NOTIFIED:
            orgs = list_organisations(store, user)
            names = dict(zip(orgs["id"], orgs["name"]))
            org = st.selectbox("Empresa", orgs["id"].tolist(), format_func=option_label(names),
                               help="Quem comunicou a excursão (NORMAM-10 (ed. 2002) 0307).")
        note = st.text_input("Observação")
        report = attachments_ui.report_uploader(key="event_report") if attachments_ui.may_attach(
            user, "deadline_event", "report") and kind.subject == "contract" else None
        if not st.form_submit_button("Registrar", type="primary"):
            return
    data = {"kind": kind.key, "reference": reference, "note": note}
    if event_date is not None:
        data["event_date"] = event_date
    if field:
        data[field] = subject
    if org is not None:
        data["organisation_id"] = int(org)
    new_id = save(events.record_event, store, user, data, labels=labels,
                  success="Evento nº {result} registrado; os prazos foram recalculados.")
    if new_id is not None:
        attachments_ui.attach_report(store, user, new_id, report)


def waiver_form(view: DeadlinesView) -> None:
    frame = view.frame
    pending = views.pending_first(frame[frame["state"].isin(engine.PENDING_STATES)]).head(PICK_LIMIT)
    if pending.empty:
        return
    titles = {r["key"]: views.row_title(r) for r in pending.to_dict("records")}
    with st.form("waiver"):
        key = st.selectbox("Dispensar ou suspender o prazo", list(titles), format_func=option_label(titles))
        reason = st.text_input("Motivo", help=f"Obrigatório, de {events.MIN_REASON} a {events.MAX_REASON} caracteres.")
        if not st.form_submit_button("Dispensar prazo"):
            return
    save(events.waive_deadline, view.store, view.user, key or "", reason, labels={"key": "Prazo", "reason": "Motivo"},
         success="Dispensa registrada.")


def recent_events(view: DeadlinesView) -> None:
    recent = events.list_events(view.store, view.user, limit=50)
    st.subheader("Últimos eventos")
    if recent.empty:
        st.caption("Nenhum evento registrado.")
        return
    recent["reference"] = [views.event_reference_text(k, r) for k, r in zip(recent["kind"], recent["reference"])]
    recent["current"] = [yes_no(bool(v)) for v in recent["current"]]
    recent = with_names(view.store, view.user, recent, "recorded_by")
    st.dataframe(for_display(recent, dates=["event_date"], moments=["recorded_at"], only=list(EVENT_TABLE),
                             rename=EVENT_TABLE),
                 hide_index=True, width="stretch")
    attachments_ui.event_reports(view.store, view.user, recent)
