"""Cancelamento automático (DPC): the authorisations cancelled when the monthly report is missing for the
second month running (NORMAM-10 0305 f)."""
from __future__ import annotations

import streamlit as st

from page_tabs.deadlines.view import SHOWN, DeadlinesView
from ui.fmt import for_display
from valuation.deadlines import frames


def render(view: DeadlinesView) -> None:
    cand = frames.cancellation_candidates(view.store, view.user, as_of=view.as_of, frame=view.frame)
    st.caption("Autorizações canceladas automaticamente quando o relatório mensal não é entregue pelo "
               "segundo mês consecutivo (NORMAM-10 0305 f).")
    if cand.empty:
        st.success("Nenhum contrato nesta situação.")
        return
    st.dataframe(for_display(cand, dates=["due"], only=["contract_code", "organisation", "office_code", "due",
                                                        "reason"],
                             rename={**SHOWN, "due": "Cancelado a partir de"}), hide_index=True, width="stretch")
