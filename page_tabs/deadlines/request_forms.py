"""The DPC's forms on "O que a Autoridade deve": file a request with the wreck's office (Protocolar requerimento)
and record a step of a request's process (Registrar etapa) — validated by the store, every bad field named in
Portuguese and nothing written (`ui.forms.save`); dates typed dd/mm/aaaa (`ui.fields.date_field`). Offered only
to a user allowed `manage_requests`."""
from __future__ import annotations

from typing import Any

import streamlit as st

from page_tabs.deadlines.annul import annul_record_form
from page_tabs.deadlines.view import PICK_LIMIT, DeadlinesView
from ui import cache
from ui.expanders import lazy_expander
from ui.fields import choice_field, date_field
from ui.fmt import date_br, option_label
from ui.forms import blanks_to_none, save
from ui.safe import md
from valuation.core import nup
from valuation.db.access import allowed
from valuation.proceedings import periods, requests
from valuation.process import numbers
from valuation.registry.organisations import list_organisations
from valuation.registry.owners import list_owners
from valuation.registry.wrecks import list_wrecks

NOBODY = "— nenhum —"
MAX_NOTE = 1000


def offer_forms(view: DeadlinesView) -> None:
    """Both forms, each in its expander, for a user allowed `manage_requests` (nothing for anyone else)."""
    if not allowed(view.user, "manage_requests"):
        return
    with lazy_expander("Protocolar requerimento", key="request_file_box") as opened:
        if opened:
            filing_form(view)
    with lazy_expander("Registrar etapa", key="request_step_box") as opened:
        if opened:
            step_form(view)
    if allowed(view.user, "annul_records"):
        with lazy_expander("Anular etapa registrada por engano", key="request_annul_box") as opened:
            if opened:
                annul_form(view)


def _choices(frame: Any, key: str, label: str) -> dict[int | None, str]:
    return {None: NOBODY, **{int(i): str(n) for i, n in zip(frame[key], frame[label])}}


def filing_form(view: DeadlinesView) -> None:
    store, user, labels = view.store, view.user, requests.LABELS
    wrecks = list_wrecks(store, user, office=view.office)
    if wrecks.empty:
        st.caption("Nenhum naufrágio nesta Capitania/Delegacia/Agência.")
        return
    wreck_names = {str(c): f"{c} — {n} ({o})"
                   for c, n, o in zip(wrecks["code"], wrecks["name"], wrecks["office_code"])}
    people = _choices(list_owners(store, user), "id", "name")
    companies = _choices(list_organisations(store, user), "id", "name")
    with st.form("file_request", clear_on_submit=False):
        a, b = st.columns(2)
        data = {"wreck_code": choice_field(labels["wreck_code"], list(wreck_names), what="o naufrágio", where=a,
                                           format_func=option_label(wreck_names), path="wreck_code"),
                "matter": b.selectbox(labels["matter"], list(requests.MATTERS),
                                      format_func=option_label(requests.MATTERS)),
                "requester_id": a.selectbox(labels["requester_id"], list(people), format_func=option_label(people),
                                            help="O responsável pelo naufrágio que requer (arts. 4 a 6)."),
                "organisation_id": b.selectbox(labels["organisation_id"], list(companies),
                                               format_func=option_label(companies),
                                               help="A empresa que requer; informe o responsável, a empresa "
                                                    "ou ambos."),
                "filed_on": date_field(labels["filed_on"], value=view.as_of, required=True, where=a, path="filed_on",
                                       key="request_filed_on"),
                "note": b.text_input(labels["note"], max_chars=MAX_NOTE, key="request_note"),
                "nup": a.text_input(numbers.ADOPT_LABEL, max_chars=nup.MAX_INPUT, placeholder=nup.EXAMPLE,
                                    help=numbers.ADOPT_HELP, key="request_nup")}
        if not st.form_submit_button("Protocolar", type="primary"):
            return
    new_id = save(requests.file_request, store, user, blanks_to_none(data),
                  labels={**labels, "nup": numbers.ADOPT_LABEL}, success=None)
    if new_id is not None:
        shown = requests.request_history(store, user, new_id)["request"]["nup_shown"]
        st.success(f"Requerimento nº {new_id} protocolado — NUP: {md(shown)}.")


def _request_titles(view: DeadlinesView) -> dict[int, str]:
    rows = cache.undecided_requests(view.store, view.user, office=view.office)[:PICK_LIMIT]
    return {int(r["id"]): requests.request_title(r) for r in rows}


def step_form(view: DeadlinesView) -> None:
    labels = requests.LABELS
    titles = _request_titles(view)
    if not titles:
        st.caption("Nenhum requerimento sem decisão nesta Capitania/Delegacia/Agência.")
        return
    with st.form("record_step", clear_on_submit=False):
        chosen = choice_field("Requerimento", list(titles), what="o requerimento", format_func=option_label(titles),
                              key="step_request")
        a, b = st.columns(2)
        data = {"kind": a.selectbox(labels["kind"], list(periods.STEP_KINDS),
                                    format_func=option_label(periods.STEP_LABELS)),
                "day": date_field(labels["day"], value=view.as_of, required=True, where=b, path="day",
                                  key="step_day"),
                "reference_day": date_field(labels["reference_day"], where=a, path="reference_day", key="step_ref",
                                            help="O dia do comparecimento ou diligência marcada (arts. 26 §2 e 41) "
                                                 "ou, no pedido de informações ao interessado, o último dia "
                                                 "fixado na intimação (art. 39; em branco: 5 dias, art. 24)"),
                "reason": b.text_input(labels["reason"], max_chars=MAX_NOTE, key="step_reason",
                                       help="Obrigatória para dilatar ou prorrogar um prazo (arts. 24 e 49)."),
                "note": st.text_input(labels["note"], max_chars=MAX_NOTE, key="step_note")}
        if not st.form_submit_button("Registrar etapa", type="primary"):
            return
    save(requests.record_step, view.store, view.user, chosen, blanks_to_none(data), labels=labels,
         success=f"Etapa registrada no requerimento nº {chosen.value}; os prazos abaixo foram recalculados.")


def annul_form(view: DeadlinesView) -> None:
    """Annul a step recorded by mistake, with its reason (Lei 9.784/1999 arts. 50 and 53): it stays in the
    request's history with its annulment, and the request's periods are computed again without it."""
    rows = requests.recent_steps(view.store, view.user, office=view.office, limit=PICK_LIMIT)
    titles = {int(r["id"]): f"etapa nº {r['id']} · {r['label']} em {date_br(r['day'])} · requerimento nº "
                            f"{r['request_id']} · NUP {r['nup'] or 'sem NUP'} · {r['wreck']} · {r['matter_pt']}"
              for r in rows}
    if not titles:
        st.caption("Nenhuma etapa registrada nesta Capitania/Delegacia/Agência.")
        return
    st.caption("A etapa não é apagada: fica no histórico do processo com a anulação (quem, quando e por quê), e os "
               "prazos que ela iniciou são recalculados sem ela (Lei 9.784/1999 art. 53; motivação, art. 50).")
    annul_record_form(view, requests.annul_step, titles, form="annul_request_step", pick_label="Etapa a anular",
                      what="a etapa", keys=("annul_step_pick", "annul_step_reason"), button="Anular etapa",
                      success="Etapa nº {id} anulada; os prazos foram recalculados. Ela continua no histórico do "
                              "processo, com a anulação.")

