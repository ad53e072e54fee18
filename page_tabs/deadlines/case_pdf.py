"""O que a Autoridade deve → one case → its history as a PDF (issue 26 §4): the request chosen among the open ones
the tab lists, its NUP, office, parties, steps and the deadlines each step started with their bases; issued with
its verification code (valuation.proceedings.reports.case_history_pdf, which checks the access: an explorer only
its own company's requests)."""
from __future__ import annotations

import functools
from typing import Any

import streamlit as st

from page_tabs.deadlines.view import PICK_LIMIT, DeadlinesView
from ui.fmt import count_br, option_label
from valuation.proceedings import appeal_reports, reports

BUTTON = "Baixar histórico do processo (PDF)"


def _title(r: dict[str, Any], nup: str | None) -> str:
    matter = str(r.get("matter_pt") or "").split(" (", 1)[0]
    return " · ".join(v for v in (f"{r['office_code']}", f"requerimento nº {r['id']}", nup and f"NUP {nup}",
                                  str(r.get("wreck") or ""), matter, str(r.get("step") or "")) if v)


def _history(view: DeadlinesView, request_id: int) -> bytes:
    """The request's history with the decisions taken on it and their appeals (built when the button is pressed)."""
    extra = appeal_reports.request_decision_sections(view.store, view.user, request_id, as_of=view.as_of)
    return reports.case_history_pdf(view.store, view.user, request_id, as_of=view.as_of, extra=extra)


def case_history_section(view: DeadlinesView, opened: list[dict[str, Any]]) -> None:
    """The choice of a case among `opened` (requests.open_requests rows, oldest first) and its PDF's button."""
    st.subheader("Histórico de um processo (PDF)")
    if not opened:
        st.caption("Nenhum requerimento em aberto para emitir o histórico.")
        return
    picked = opened[:PICK_LIMIT]
    nups = reports.request_nups(view.store, [int(r["id"]) for r in picked])
    titles = {int(r["id"]): _title(r, nups.get(int(r["id"]))) for r in picked}
    st.caption("Requerimento, NUP, OM, partes, etapas com as datas e os prazos que cada etapa iniciou, com o "
               "fundamento de cada um (Lei 9.784/1999), na data de referência; emitido com código de verificação."
               + (f" Mostrando os {count_br(PICK_LIMIT)} mais antigos de {count_br(len(opened))}."
                  if len(opened) > PICK_LIMIT else ""))
    request_id = st.selectbox("Requerimento do histórico", list(titles), format_func=option_label(titles),
                              key="authority_case_pdf")
    if request_id is None:
        return
    pdf = functools.partial(_history, view, int(request_id))
    st.download_button(BUTTON, pdf, file_name=f"historico-requerimento-{request_id}-{view.as_of:%Y-%m-%d}.pdf",
                       mime="application/pdf", icon=":material/picture_as_pdf:", key="authority_case_pdf_button")
