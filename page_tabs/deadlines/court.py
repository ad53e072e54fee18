"""Tribunal Marítimo (DPC): the inquiry, report, prior defence and private representation of each
casualty (Lei 2.180/1954 arts. 33, 37, 38, 41)."""
from __future__ import annotations

import streamlit as st

from page_tabs.deadlines.view import DeadlinesView, deadline_table, rows_of
from valuation.core import law
from valuation.deadlines import engine
from valuation.deadlines.rules import days_text


def render(view: DeadlinesView) -> None:
    court = rows_of(view.frame, engine.COURT_RULES)
    first, span = law.COURT_PRIVATE_REPRESENTATION_DAYS.value
    st.caption(f"Inquérito em {days_text(law.COURT_INQUIRY_OPENING_DAYS.value)} do conhecimento (art. 33 §2), "
               f"relatório em {days_text(law.COURT_INQUIRY_REPORT_DAYS.value)} (art. 37), defesa prévia em "
               f"{days_text(law.COURT_PRIOR_DEFENCE_DAYS.value)} (art. 38) e representação da parte nos "
               f"{days_text(span)} após o {first}º (art. 41 §1 a).")
    if court.empty:
        st.info("Nenhum acidente com trâmite no Tribunal Marítimo.")
        return
    deadline_table(court.sort_values(["wreck", "due"]),
                   ("wreck", "wreck_name", "label_pt", "due", "basis", "state_pt", "met_on", "reason"), key="court")
