"""Remoções e saldos (DPC): the removal or demolition orders and the owner's balances (Lei 7.542/1986
arts. 5, 9, 10, 13 §2)."""
from __future__ import annotations

import streamlit as st

from page_tabs.deadlines.view import DeadlinesView, deadline_table, rows_of
from valuation.core import law
from valuation.deadlines import rule_specs
from valuation.deadlines.rules import days_text


def render(view: DeadlinesView) -> None:
    part = rows_of(view.frame, rule_specs.REMOVAL_TAB_RULES)   # the removal orders and the owner's balances
    st.caption("Determinações de remoção ou demolição com os prazos fixados pela Autoridade "
               f"Naval ({law.REMOVAL_ORDER}); "
               f"edital de {days_text(law.REMOVAL_EDITAL_DAYS.value)} (art. 9 §2); sem cumprimento, a Autoridade "
               "assume por conta do responsável (art. 10). Saldo da alienação à disposição do responsável até 5 anos "
               "do sinistro, depois receita da União (art. 13 §2). Registro na página Domínio.")
    if part.empty:
        st.info("Nenhuma determinação de remoção nem saldo do responsável.")
        return
    deadline_table(part.sort_values(["wreck", "start"], kind="stable"),
                   ("wreck", "wreck_name", "label_pt", "due", "basis", "state_pt", "met_on", "reason"), key="removals")
