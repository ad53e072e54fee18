"""Recursos administrativos: the Authority's decisions and the appeals against them, each case with its NUP, its
stage and its history (Lei 7.542/1986 art. 33; Lei 9.784/1999 arts. 56–65); for DPC, the forms that record a
decision with its notification, file an appeal and record its steps. The store scopes the rows (an explorer
sees its own company's cases) and validates every field."""
from __future__ import annotations

import functools

import pandas as pd
import streamlit as st

from page_tabs.deadlines.annul import annul_record_form
from page_tabs.deadlines.view import PICK_LIMIT, ROW_HEIGHT, DeadlinesView
from ui.expanders import lazy_expander
from ui.fields import choice_field, date_field
from ui.fmt import count_br, date_br, for_display, option_label
from ui.forms import save
from valuation.core.errors import ValuationError
from valuation.db import annulments
from valuation.proceedings import appeal_records as ar
from valuation.proceedings import appeal_reports
from valuation.proceedings import appeals as ap

# what to look at first (issue 23 item 12: a 1366 px screen gives the table ~900 px): the case, its state, the decision
CASE_COLUMNS = {"nup": "NUP", "office_code": "OM", "state_pt": "Situação", "kind_pt": "Decisão",
                "notified_on": "Ciência", "organisation": "Empresa", "wreck": "Naufrágio"}
WIDTHS = {"NUP": 160, "OM": 90, "Situação": 260, "Decisão": 220, "Ciência": 85, "Empresa": 150, "Naufrágio": 80}
RECORD_KINDS = [k for k, v in ar.KINDS.items() if v.table is not None]


def render(view: DeadlinesView) -> None:
    st.subheader("Recursos administrativos")
    st.caption("Toda decisão da Autoridade Naval admite recurso em 10 dias da ciência ou da divulgação oficial "
               "(Lei 7.542/1986 art. 33; Lei 9.784/1999 art. 59): a autoridade que decidiu pode reconsiderar em 5 "
               "dias ou encaminha à superior (art. 56 §1); os demais interessados alegam em 5 dias úteis (art. 62); "
               "decisão em 30 dias do recebimento, prorrogáveis por mais 30 com justificativa (art. 59 §§1–2); no "
               "máximo três instâncias, a que decidiu e duas acima dela: dois recursos (art. 57); sem efeito "
               "suspensivo, salvo concessão motivada (art. 61); fora do prazo ou exaurida a esfera administrativa, o "
               "recurso não é conhecido (art. 63 I e IV).")
    try:
        cases = ar.appeals_of(view.store, view.user, as_of=view.as_of, office=view.office)
    except ValuationError as exc:
        st.error(str(exc))
        return
    # the cases with an appeal running first, then the newest notification first
    cases.sort(key=lambda c: (not c["state_pt"].startswith("em recurso"), -c["notified_on"].toordinal()))
    if not cases:
        st.caption("Nenhuma decisão registrada nesta Capitania.")
    else:
        _cases_table(cases)
        _case_detail(view, cases)
    if view.manage:
        with lazy_expander("Registrar decisão da Autoridade", key="appeal_decision_box") as opened:
            if opened:
                _decision_form(view)
        if cases:
            with lazy_expander("Interpor recurso", key="appeal_file_box") as opened:
                if opened:
                    _appeal_form(view, cases)
            with lazy_expander("Registrar etapa de recurso", key="appeal_step_box") as opened:
                if opened:
                    _step_form(view, cases)
            with lazy_expander("Registrar a ciência da decisão de um recurso", key="appeal_notice_box") as opened:
                if opened:
                    _notice_form(view, cases)
            with lazy_expander("Anular etapa de recurso registrada por engano", key="appeal_annul_box") as opened:
                if opened:
                    _annul_form(view, cases)


def _cases_table(cases: list[dict]) -> None:
    frame = pd.DataFrame(cases)[list(CASE_COLUMNS)]
    st.caption(f"{count_br(len(cases))} decisões; em recurso: "
               f"{count_br(sum(1 for c in cases if c['state_pt'].startswith('em recurso')))}.")
    st.dataframe(for_display(frame, dates=["notified_on"], rename=CASE_COLUMNS), hide_index=True, width="stretch",
                 column_config={c: st.column_config.Column(width=w) for c, w in WIDTHS.items()},
                 row_height=ROW_HEIGHT)   # wrapped: the state and the decision read whole


def _title(c: dict) -> str:
    return f"{c['nup']} · {c['office_code']} · {c['kind_pt']} · ciência {date_br(c['notified_on'])}"


def _case_detail(view: DeadlinesView, cases: list[dict]) -> None:
    picked = cases[:PICK_LIMIT]
    titles = {i: _title(c) for i, c in enumerate(picked)}
    i = st.selectbox("Ver o caso", list(titles), format_func=option_label(titles), key="appeal_case")
    c = picked[int(i)]
    lines = [f"Decisão {c['nup']} — {c['kind_pt']}", f"Autoridade: {c['authority']}",
             f"Decidida em {date_br(c['decided_on'])}; {c['notice']} em {date_br(c['notified_on'])}",
             f"Teor: {c['summary']}", f"Situação: {c['state_pt']}"]
    for a in c["appeals"]:
        lines += ["", f"Recurso {a['nup']} — {a['title_pt']}, interposto em {date_br(a['filed_on'])} "
                      f"por {a['appellant']}" + (f" — {a['late_pt']}" if a["late_pt"] else ""),
                  "Efeito suspensivo: " + (f"concedido ({a['suspensive_reason']})" if a["suspensive"] else
                                           "não concedido (Lei 7.542/1986 art. 33)"),
                  f"Etapa atual: {a['stage_pt']}"]
        lines += [f"  {date_br(s['day'])} — {s['label']}" + (f": {s['outcome_pt']}" if s["outcome_pt"] else "")
                  + (f" — {s['reason']}" if s["reason"] else "") for s in a["steps"]]
        lines += [f"  {date_br(s['day'])} — {s['label']} (anulada; não conta) — "
                  f"{annulments.annulment_text(s['annulment'])}" for s in a["annulled_steps"]]
        if a["notice_pt"]:
            lines.append(f"  {a['notice_pt'].capitalize()} (o prazo do recurso seguinte corre dela, "
                         "Lei 9.784/1999 art. 59)")
    st.text("\n".join(lines))   # what people wrote is shown as plain text, never Markdown
    st.download_button("Baixar histórico do caso (PDF)", functools.partial(
        appeal_reports.decision_history_pdf, view.store, view.user, int(c["id"]), as_of=view.as_of),
        file_name=f"historico-decisao-{c['id']}-{view.as_of:%Y-%m-%d}.pdf", mime="application/pdf",
        icon=":material/picture_as_pdf:", key="appeal_case_pdf")


def _decision_form(view: DeadlinesView) -> None:
    kind = st.selectbox("Decisão", list(ar.KINDS), format_func=option_label(ar.KIND_LABELS), key="decision_kind")
    with st.form("administrative_decision"):
        data: dict = {"kind": kind}
        if kind in RECORD_KINDS:
            data["record_id"] = st.number_input(f"{ar.LABELS['record_id']} (nº do registro: "
                                                f"{ar.KINDS[kind].label.split(' (')[0].lower()})", min_value=1,
                                                step=1, value=None, key="decision_record")
        else:
            data["wreck_code"] = st.text_input(ar.LABELS["wreck_code"], max_chars=40, key="decision_wreck")
        data["summary"] = st.text_area(ar.LABELS["summary"], max_chars=2000, key="decision_summary")
        data["authority"] = st.text_input(ar.LABELS["authority"], max_chars=200, key="decision_authority")
        data["decided_on"] = date_field(ar.LABELS["decided_on"], required=True, path="decided_on")
        data["notice"] = st.selectbox(ar.LABELS["notice"], list(ar.NOTICES), format_func=option_label(ar.NOTICES))
        data["notified_on"] = date_field(ar.LABELS["notified_on"], required=True, path="notified_on")
        if not st.form_submit_button("Registrar decisão", type="primary"):
            return
    data = {k: (v.strip() or None) if isinstance(v, str) else v for k, v in data.items()}
    if data.get("record_id") is not None:
        data["record_id"] = int(data["record_id"])
    save(ar.record_decision, view.store, view.user, data, labels=ar.LABELS,
         success="Decisão nº {result} registrada, com o seu NUP.")


def _appeal_form(view: DeadlinesView, cases: list[dict]) -> None:
    titles = {int(c["id"]): _title(c) for c in cases[:PICK_LIMIT]}
    with st.form("appeal"):
        decision = choice_field("Decisão recorrida", list(titles), what="a decisão", format_func=option_label(titles))
        filed = date_field(ar.LABELS["filed_on"], required=True, path="filed_on")
        appellant = st.text_input(ar.LABELS["appellant"], max_chars=200)
        grounds = st.text_area(ar.LABELS["grounds"], max_chars=4000)
        suspensive = st.checkbox(ar.LABELS["suspensive"], help="Lei 9.784/1999 art. 61 parágrafo único.")
        why = st.text_input(ar.LABELS["suspensive_reason"], max_chars=1000)
        if not st.form_submit_button("Interpor recurso", type="primary"):
            return
    save(ar.file_appeal, view.store, view.user, decision,
         {"filed_on": filed, "appellant": appellant.strip() or None, "grounds": grounds.strip() or None,
          "suspensive": suspensive, "suspensive_reason": why.strip() or None}, labels=ar.LABELS,
         success="Recurso nº {result} registrado, com o seu NUP e o seu número (1º ou 2º recurso; um 3º só é "
                 "declarado não conhecido, art. 63 IV).")


def _notice_form(view: DeadlinesView, cases: list[dict]) -> None:
    """The day an appeal's decision reached the party (Lei 9.784/1999 art. 59): the next appeal runs from it."""
    waiting = {int(a["id"]): f"{a['nup']} · {a['title_pt']} · {a['stage_pt']}"
               for c in cases for a in c["appeals"] if a["stage_pt"].startswith(("decidido", "decisão reconsiderada"))
               and a["notified_on"] is None}
    if not waiting:
        st.caption("Nenhum recurso decidido aguarda o registro da ciência.")
        return
    with st.form("appeal_notice"):
        appeal = st.selectbox("Recurso decidido", list(waiting), format_func=option_label(waiting), index=None,
                              placeholder="Escolha o recurso")
        notice = st.selectbox(ar.LABELS["notice"], list(ar.NOTICES), format_func=option_label(ar.NOTICES))
        day = date_field(ar.LABELS["notified_on"], required=True, path="notified_on")
        if not st.form_submit_button("Registrar a ciência", type="primary"):
            return
    if appeal is None:
        st.error("Recurso decidido: escolha o recurso.")
        return
    save(ar.record_appeal_notice, view.store, view.user, int(appeal), {"notice": notice, "notified_on": day},
         labels=ar.LABELS, success="Ciência registrada; o prazo do recurso seguinte corre dela.")


def _step_form(view: DeadlinesView, cases: list[dict]) -> None:
    open_appeals = {int(a["id"]): f"{a['nup']} · {a['title_pt']} · {a['stage_pt']}"
                    for c in cases for a in c["appeals"]}
    if not open_appeals:
        st.caption("Nenhum recurso registrado.")
        return
    with st.form("appeal_step"):
        appeal = choice_field("Recurso", list(open_appeals), what="o recurso", format_func=option_label(open_appeals))
        kind = st.selectbox("Etapa", list(ap.STEP_KINDS), format_func=option_label(ap.STEP_LABELS))
        day = date_field(ar.LABELS["day"], required=True, path="day")
        outcome = st.selectbox(ar.LABELS["outcome"], [None, *ap.OUTCOMES],
                               format_func=lambda o: "—" if o is None else ap.OUTCOMES[o],
                               help="Na decisão do recurso ou na reconsideração.")
        reason = st.text_input(ar.LABELS["reason"], max_chars=1000, help="Obrigatória na prorrogação (art. 59 §2).")
        note = st.text_input(ar.LABELS["note"], max_chars=1000)
        if not st.form_submit_button("Registrar etapa", type="primary"):
            return
    save(ar.record_appeal_step, view.store, view.user, appeal,
         {"kind": kind, "day": day, "outcome": outcome, "reason": reason.strip() or None,
          "note": note.strip() or None}, labels={**ar.LABELS, "kind": "Etapa"},
         success="Etapa registrada; os prazos do recurso foram recalculados.")


def _annul_form(view: DeadlinesView, cases: list[dict]) -> None:
    """Annul an appeal's step recorded by mistake, with its reason (Lei 9.784/1999 arts. 50 and 53): it stays in the
    case's history with its annulment; the appeal's stage and periods are computed again without it."""
    steps = {int(s["id"]): f"etapa nº {s['id']} · {s['label']} em {date_br(s['day'])} · recurso {a['nup']}"
             for c in cases for a in c["appeals"] for s in a["steps"]}
    if not steps:
        st.caption("Nenhuma etapa de recurso registrada.")
        return
    annul_record_form(view, ar.annul_appeal_step, steps, form="annul_appeal_step", pick_label="Etapa a anular",
                      what="a etapa", keys=("annul_appeal_step_pick", "annul_appeal_reason"), button="Anular etapa",
                      success="Etapa nº {id} anulada; os prazos do recurso foram recalculados. Ela continua no "
                              "histórico do caso, com a anulação.",
                      note="Uma decisão que deu provimento não se anula.")
