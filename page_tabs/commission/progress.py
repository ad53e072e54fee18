"""Andamento (the DPC while the round is open): how many items each member has assessed — counts only,
never a value or a vote before the close."""
from __future__ import annotations

import streamlit as st

from page_tabs.commission.view import RoundView
from ui.fmt import for_display
from valuation.commission.views import round_progress


def render(view: RoundView) -> None:
    st.markdown("**Andamento da rodada**: quantos itens cada membro já avaliou.")
    progress_table(view)
    st.caption("Enquanto a rodada está aberta, os valores e votos de cada membro não aparecem para ninguém além "
               "do próprio membro; a DPC os vê no encerramento, como os membros.")


def progress_table(view: RoundView) -> None:
    """How many items each member has assessed (counts only: never a value before the close)."""
    st.dataframe(for_display(round_progress(view.store, view.user, view.rid), counts=("entries", "items"), rename={
        "member": "Membro", "body": "Órgão", "entries": "Itens avaliados", "items": "Itens da rodada"}),
        hide_index=True, width="stretch")
