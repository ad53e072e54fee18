"""Responsáveis: who answers for the wreck's vessel and cargo on the reference day — cessions of the owner's
rights (Lei 7.542 art. 8: void against the Authority until communicated, §2; cedente and cessionário jointly
liable, §1), the cargo's responsible (arts. 13 §1 and 14) — the requests each filed and whether they count;
for DPC, the forms that record them. DPC only (the owner is a person's data)."""
from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from page_tabs.wrecks.view import WreckView
from ui import session
from ui.expanders import lazy_expander
from ui.fields import date_field
from ui.fmt import for_display, option_label
from ui.forms import blanks_to_none, save
from valuation.core.responsible import PART_LABELS, PARTS
from valuation.db.access import allowed
from valuation.registry import owners, parties

PARTIES = {"part": "Coisas", "name": "Responsável", "role": "Papel", "basis": "Fundamento"}
CESSIONS = {"part": "Direitos sobre", "cedent": "Cedente", "cessionary": "Cessionário", "ceded_on": "Cessão em",
            "act": "Instrumento", "state": "Perante a Autoridade Naval"}
REQUESTS = {"nup": "NUP", "part": "Coisas", "requester": "Quem pediu", "requested_on": "Pedido em",
            "counts": "Para o prazo de 5 anos"}


def render(view: WreckView) -> None:
    as_of = session.today()
    shown = parties.responsible_parties(view.store, view.user, view.wreck_id, as_of)
    st.caption("O responsável perante a Autoridade Naval é o cessionário de uma cessão comunicada (Lei 7.542/1986 "
               "art. 8 §2); cedente e cessionário respondem solidariamente (§1); com carga, o responsável pela "
               "embarcação responde solidariamente pelos danos da carga (art. 13 §1).")
    table = pd.DataFrame(shown["rows"])
    table["name"] = [f"{n} ◀ responsável" if r else n for n, r in zip(table["name"], table["responsible"])]
    st.dataframe(for_display(table, only=list(PARTIES), rename=PARTIES), hide_index=True, width="stretch")
    if shown["cessions"]:
        st.markdown("**Cessões (art. 8)**")
        st.dataframe(for_display(pd.DataFrame(shown["cessions"]), dates=["ceded_on"], only=list(CESSIONS),
                                 rename=CESSIONS), hide_index=True, width="stretch")
    if shown["requests"]:
        st.markdown("**Pedidos dos responsáveis (arts. 4, 6 e 14)**")
        st.dataframe(for_display(pd.DataFrame(shown["requests"]), dates=["requested_on"], only=list(REQUESTS),
                                 rename=REQUESTS), hide_index=True, width="stretch")
    if allowed(view.user, "manage_cessions"):
        forms(view, shown)


def forms(view: WreckView, shown: dict[str, Any]) -> None:
    people = owners.list_owners(view.store, view.user)
    names = dict(zip((int(i) for i in people["id"]), people["name"]))
    pick = option_label(names)
    labels, code = parties.LABELS, view.wreck["code"]
    parts = PARTS if shown["cargo"] else PARTS[:1]
    with lazy_expander("Registrar cessão (art. 8)", key="wreck_assignment_box") as opened:
        if opened:
            with st.form(f"cession_{view.wreck_id}", clear_on_submit=True):
                a, b, c = st.columns(3)
                data = {"wreck_code": code,
                        "part": a.selectbox(labels["part"], parts, format_func=option_label(PART_LABELS)),
                        "cedent_id": b.selectbox(labels["cedent_id"], list(names), format_func=pick),
                        "cessionary_id": c.selectbox(labels["cessionary_id"], list(names), format_func=pick),
                        "ceded_on": date_field(labels["ceded_on"], where=a, path="ceded_on"),
                        "communicated_on": date_field(labels["communicated_on"], where=b, path="communicated_on"),
                        "act": c.text_input(labels["act"])}
                if st.form_submit_button("Registrar cessão"):
                    save(parties.record_cession, view.store, view.user, blanks_to_none(data), labels=labels,
                         success="Cessão nº {result} registrada.")
    pending = {int(c["id"]): f"{c['cedent']} → {c['cessionary']}" for c in shown["cessions"]
               if c["communicated_on"] is None}
    if pending:
        with st.form(f"cession_communicated_{view.wreck_id}", clear_on_submit=True):
            a, b = st.columns(2)
            which = a.selectbox("Cessão não comunicada", list(pending), format_func=option_label(pending))
            day = date_field(labels["day"], where=b, path="day")
            if st.form_submit_button("Registrar comunicação à Autoridade Naval (art. 8 §2)"):
                save(parties.record_cession_communicated, view.store, view.user, which, {"day": day}, labels=labels,
                     success="Comunicação registrada: a cessão vale perante a Autoridade Naval a partir dessa data.")
    with lazy_expander("Registrar pedido de um responsável (arts. 4 e 14)", key="wreck_claim_box") as opened:
        if opened:
            with st.form(f"licence_request_{view.wreck_id}", clear_on_submit=True):
                a, b, c = st.columns(3)
                data = {"wreck_code": code,
                        "part": a.selectbox(labels["part"], parts, format_func=option_label(PART_LABELS)),
                        "requester_id": b.selectbox(labels["requester_id"], list(names), format_func=pick),
                        "requested_on": date_field(labels["requested_on"], where=c, path="requested_on"),
                        "note": st.text_input(labels["note"])}
                if st.form_submit_button("Registrar pedido"):
                    save(parties.record_licence_request, view.store, view.user, blanks_to_none(data), labels=labels,
                         success="Pedido nº {result} registrado.")
    if not shown["cargo"]:
        cargo_form(view, names)


def cargo_form(view: WreckView, names: dict[int, str]) -> None:
    labels = parties.LABELS
    with lazy_expander("Registrar carga e seu responsável (arts. 13 §1 e 14)", key="wreck_cargo_box") as opened:
        if opened:
            with st.form(f"cargo_{view.wreck_id}", clear_on_submit=True):
                a, b, c = st.columns(3)
                data = {"wreck_code": view.wreck["code"], "description": a.text_input(labels["description"]),
                        "owner_id": b.selectbox(labels["owner_id"], [None, *names],
                                                format_func=lambda i: "desconhecido" if i is None else names[i]),
                        "declared_lost": date_field(labels["declared_lost"], where=c, path="declared_lost")}
                if st.form_submit_button("Registrar carga"):
                    save(parties.record_cargo, view.store, view.user, blanks_to_none(data), labels=labels,
                         success="Carga registrada.")
