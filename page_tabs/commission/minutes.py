"""Ata (after the close): the round's minutes and its photo annex, as PDF."""
from __future__ import annotations

import streamlit as st

from page_tabs.commission.view import RoundView
from ui import attachments as attachments_ui
from ui import signatures as signatures_ui
from valuation.attachments.photo_sheet import round_photo_sheet
from valuation.commission.minutes import round_minutes_pdf


def render(view: RoundView) -> None:
    store, user, rid, rnd = view.store, view.user, view.rid, view.round
    if view.is_open:
        st.info("A ata só é lavrada depois do encerramento da rodada.")
        return
    if rnd.nup_label:
        st.caption(f"NUP da decisão: {rnd.nup_label}")
    st.caption("Ata da rodada em PDF: identificação, membros, regras, itens, decisões divergentes, itens "
               "sinalizados, concordância e assinaturas.")
    # issued once (issue 43): the registered copy, or its latest signed revision, until the minutes change
    st.download_button("Baixar ata (PDF)", data=lambda: signatures_ui.current_copy(
                           store, user, "assessment_rounds", rid, round_minutes_pdf(store, user, rid)),
                       file_name=f"ata_{rnd.contract_code.replace('/', '-')}_rodada{rnd.number}.pdf",
                       mime="application/pdf", key="cm_minutes")
    attachments_ui.photo_sheet("Baixar anexo fotográfico (PDF)", lambda: round_photo_sheet(store, user, rid),
                               f"anexo_fotos_{rnd.contract_code.replace('/', '-')}_rodada{rnd.number}.pdf",
                               key="cm_photo_sheet")
    signatures_ui.panel(store, user, "assessment_rounds", rid, key="cm_signatures")   # issue 27 §2
