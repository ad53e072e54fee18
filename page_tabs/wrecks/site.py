"""Sítio arqueológico: the wreck site's registration (Constituição Federal art. 20 X; Lei 3.924/1961) and,
for DPC, the form that records it."""
from __future__ import annotations

import streamlit as st

from page_tabs.wrecks.view import WreckView
from ui.fields import date_field
from ui.forms import blanks_to_none, save
from valuation.db.access import allowed
from valuation.registry import sites


def render(view: WreckView) -> None:
    site = sites.site_of(view.store, view.user, view.wreck_id)
    if site is not None:
        st.text(sites.site_caption(site))
        if site["note"]:
            st.text(f"Observação: {site['note']}")
        return
    st.caption("Sem registro como sítio arqueológico. Registrado, o sítio é bem da União (Constituição Federal "
               "art. 20 X; Lei 3.924/1961), qualquer que seja o prazo de 5 anos do art. 6 da Lei 7.542/1986.")
    if allowed(view.user, "manage_archaeological_sites"):
        site_form(view)


def site_form(view: WreckView) -> None:
    labels = sites.LABELS
    with st.form(f"archaeological_site_{view.wreck_id}", clear_on_submit=True):
        a, b, c = st.columns(3)
        data = {"wreck_code": view.wreck["code"],
                "authority": a.text_input(labels["authority"], value="IPHAN"),
                "number": b.text_input(labels["number"], placeholder="CNSA BA-00123"),
                "registered_on": date_field(labels["registered_on"], where=c, path="registered_on"),
                "note": st.text_input(labels["note"])}
        if st.form_submit_button("Registrar sítio arqueológico", type="primary"):
            save(sites.record_site, view.store, view.user, blanks_to_none(data), labels=labels,
                 success="Sítio arqueológico registrado: domínio da União (Constituição Federal art. 20 X).")
