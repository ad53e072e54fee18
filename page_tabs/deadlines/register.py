"""Registrar (DPC) / Registrar entrega (explorer): record an event — a delivery, a notification, a
decision… — against its contract, wreck or office (the deadlines are computed again), waive or suspend a
deadline (DPC), and the latest events with their reports."""
from __future__ import annotations

import streamlit as st

from page_tabs.deadlines.annul import annul_record_form
from page_tabs.deadlines.view import PICK_LIMIT, DeadlinesView
from ui import attachments as attachments_ui  # issue 16: the reports of the events
from ui.expanders import lazy_expander
from ui.fields import Typed, choice_field, date_field
from ui.fmt import date_br, for_display, is_blank, option_label, yes_no
from ui.forms import save
from ui.people import with_names
from valuation.core.dates import MONTH_PLACEHOLDER
from valuation.db.access import allowed
from valuation.deadlines import appeals, engine, events, views, vocabulary
from valuation.registry.contracts import list_contracts
from valuation.registry.offices import office_choices
from valuation.registry.organisations import list_organisations
from valuation.registry.wrecks import list_wrecks

EVENT_TABLE = {"id": "Nº", "kind_label": "Evento", "event_date": "Data", "contract_code": "Contrato",
               "wreck_code": "Naufrágio", "office_code": "OM", "reference": "Referência", "note": "Observação",
               "current": "Em vigor", "recorded_by": "Registrado por", "recorded_at": "Registrado em",
               "annulment": "Anulação"}
SUBJECT_LABELS = {"contract": "Contrato", "wreck": "Naufrágio", "office": "Capitania/Delegacia/Agência"}


def render(view: DeadlinesView) -> None:
    event_form(view)
    if view.manage and not view.frame.empty:
        waiver_form(view)
    if view.manage and allowed(view.user, "annul_records"):
        with lazy_expander("Anular evento registrado por engano", key="event_annul_box") as opened:
            if opened:
                annul_form(view)
    recent_events(view)


def contract_widget(view: DeadlinesView) -> Typed:
    contracts = list_contracts(view.store, view.user, counts=False)
    names = dict(zip(contracts["code"], contracts["organisation_name"]))
    return choice_field("Contrato", contracts["code"].tolist(), what="o contrato", path="contract_code",
                        format_func=lambda c: f"{c} — {names[c]}")


def subject_widget(view: DeadlinesView, kind: engine.EventKind) -> tuple[str | None, Typed | None]:
    """The subject picker for `kind` (a contract's is chosen before the form): (field, code), on no choice."""
    if kind.subject == "wreck":
        w = list_wrecks(view.store, view.user)
        names = dict(zip(w["code"], w["name"]))
        return "wreck_code", choice_field("Naufrágio", w["code"].tolist(), what="o naufrágio", path="wreck_code",
                                          format_func=lambda c: f"{c} — {names[c]}")
    if kind.subject == "office":
        return "office_code", choice_field(SUBJECT_LABELS["office"], list(office_choices(view.store, view.user)),
                                           what="a Capitania, Delegacia ou Agência", path="office_code")
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
        return choice_field(label, list(labels), what="a decisão" if labels else "o contrato antes da decisão",
                            format_func=option_label(labels), path="reference",
                            help="Decisões da Comissão, demonstrativos de partilha emitidos e cancelamento.")
    if kind.reference == "key":
        frame = view.frame
        pending = views.pending_first(frame[frame["state"].isin(engine.PENDING_STATES)]).head(PICK_LIMIT) \
            if not frame.empty else frame
        titles = {r["key"]: views.row_title(r) for r in pending.to_dict("records")}
        return choice_field(label, list(titles), what="o prazo", format_func=option_label(titles), path="reference")
    return st.text_input(label + ("" if kind.reference == "text" else " (opcional)"))


def event_form(view: DeadlinesView) -> None:
    store, user, as_of = view.store, view.user, view.as_of
    kinds = [k for k in engine.EVENT_KINDS if view.manage or k.explorer]
    kind = st.selectbox("Evento", kinds, format_func=lambda k: k.label)
    labels = {**events.FIELD_LABELS, "reference": kind.reference_label}
    chosen = contract_widget(view) if kind.subject == "contract" else None
    contract = chosen.value if chosen is not None else None
    with st.form("event"):
        if view.manage:
            event_date = date_field("Data do evento", value=as_of, required=True, path="event_date")
        else:      # the company dates nothing: the day it reaches the system is the delivery's (protocol)
            event_date = None
            st.caption(f"Data da entrega: o dia em que o sistema a recebe ({date_br(store.today())}), registrada "
                       "com a hora; a empresa não informa a data.")
        field, subject = ("contract_code", chosen) if kind.subject == "contract" else subject_widget(view, kind)
        reference = reference_widget(view, kind, contract)
        org = None
        if kind.key == vocabulary.EXCURSION_NOTIFIED:
            orgs = list_organisations(store, user)
            names = dict(zip(orgs["id"], orgs["name"]))
            org = choice_field("Empresa", orgs["id"].tolist(), what="a empresa", format_func=option_label(names),
                               path="organisation_id", help="Quem comunicou a excursão (NORMAM-10 (ed. 2002) 0307).")
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
        data["organisation_id"] = org
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
        key = choice_field("Dispensar ou suspender o prazo", list(titles), what="o prazo", path="key",
                           format_func=option_label(titles))
        reason = st.text_input("Motivo", help=f"Obrigatório, de {events.MIN_REASON} a {events.MAX_REASON} caracteres.")
        if not st.form_submit_button("Dispensar prazo"):
            return
    save(events.waive_deadline, view.store, view.user, key, reason, labels={"reason": "Motivo"},
         success="Dispensa registrada.")


def annul_form(view: DeadlinesView) -> None:
    """Annul an event recorded by mistake, with its reason (Lei 9.784/1999 arts. 50 and 53): it stays in the list
    below with its annulment, and the deadlines are computed again without it."""
    recent = events.list_events(view.store, view.user, limit=PICK_LIMIT)
    current = recent[recent["current"].astype(bool)] if not recent.empty else recent
    titles = {int(r["id"]): f"nº {r['id']} · {r['kind_label']} · {date_br(r['event_date'])} · "
                            f"{r['contract_code'] or r['wreck_code'] or r['office_code'] or '—'}"
              for r in current.to_dict("records")}
    if not titles:
        st.caption("Nenhum evento em vigor para anular.")
        return
    st.caption("O evento não é apagado: fica no histórico com a anulação (quem, quando e por quê), e os prazos que "
               "ele iniciou ou cumpriu são recalculados sem ele (Lei 9.784/1999 art. 53; motivação, art. 50).")
    annul_record_form(view, events.annul_event, titles, form="annul_event", pick_label="Evento a anular",
                      what="o evento", keys=("annul_event_pick", "annul_event_reason"), button="Anular evento",
                      success="Evento nº {id} anulado; os prazos foram recalculados. Ele continua no histórico, com "
                              "a anulação.")


def recent_events(view: DeadlinesView) -> None:
    recent = events.list_events(view.store, view.user, limit=50)
    st.subheader("Últimos eventos")
    if recent.empty:
        st.caption("Nenhum evento registrado.")
        return
    recent["reference"] = [views.event_reference_text(k, r) for k, r in zip(recent["kind"], recent["reference"])]
    recent["current"] = [yes_no(bool(v)) for v in recent["current"]]
    recent = with_names(view.store, view.user, recent, "recorded_by", "annulled_by")
    recent["annulment"] = [None if is_blank(why) else f"em {date_br(at)} por {by}: {why}"
                           for by, at, why in zip(recent["annulled_by"], recent["annulled_at"],
                                                  recent["annulled_reason"])]
    st.dataframe(for_display(recent, dates=["event_date"], moments=["recorded_at"], only=list(EVENT_TABLE),
                             rename=EVENT_TABLE),
                 hide_index=True, width="stretch")
    attachments_ui.event_reports(view.store, view.user, recent)
