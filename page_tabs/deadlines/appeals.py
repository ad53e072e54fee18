"""Recursos: the reconsideration requests and appeals against the decisions, and the decisions on them
(Lei 7.542/1986 art. 33; Lei 9.784/1999 art. 59) — those recorded as a contract's deadline events, then every
decision of the Authority with its appeals (`appeal_cases`)."""
from __future__ import annotations

import streamlit as st

from page_tabs.deadlines import appeal_cases
from page_tabs.deadlines.view import DeadlinesView, deadline_table, rows_of
from valuation.core import law
from valuation.deadlines import rule_specs
from valuation.deadlines.rules import days_text


def render(view: DeadlinesView) -> None:
    part = rows_of(view.frame, rule_specs.APPEAL_RULES)
    st.caption(f"Pedido de reconsideração ou recurso em {days_text(law.APPEAL_DAYS.value)} da ciência ou da "
               f"divulgação oficial da decisão, sem efeito suspensivo (Lei 7.542/1986 art. 33; Lei 9.784/1999 "
               f"art. 59); decisão em {days_text(law.APPEAL_DECISION_DAYS.value)} do recebimento dos autos, "
               f"prorrogáveis por igual período (art. 59 §§1–2).")
    st.subheader("Nos contratos")
    if part.empty:
        st.info("Nenhum recurso registrado nos contratos. Registre a ciência da decisão na aba de registro.")
    else:
        deadline_table(part.sort_values(["contract_code", "start"], kind="stable"),
                       ("label_pt", "contract_code", "organisation", "due", "basis", "state_pt", "met_on", "reason"),
                       key="appeals")
    appeal_cases.render(view)
