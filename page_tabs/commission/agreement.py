"""Concordância (after the close): how far the panel agreed — Krippendorff's alpha of the votes, ICC(2,1)
of the log values, each member's deviation from the item medians, and the flagged items."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from page_tabs.commission.view import ERRORS, RoundView
from ui.charts import pt_br, show
from ui.fmt import count_br, for_display, number_br, percent_br
from valuation.commission.agreement_queries import RoundAgreement, agreement
from valuation.commission.consensus import DECIDED_BY_LABELS


def render(view: RoundView) -> None:
    try:
        ag = agreement(view.store, view.user, view.rid)
    except ERRORS as exc:
        st.info(str(exc))
        return
    g = st.columns(4)
    g[0].metric("Alfa de Krippendorff (votos)", number_br(ag.alpha_votes, 3))
    g[1].metric("CCI(2,1) log-valores", number_br(ag.icc_log_values, 3),
                help=f"{ag.icc_items} itens com valor de todos os membros")
    g[2].metric("Membros", count_br(ag.n_members))
    g[3].metric("Itens sinalizados", count_br(ag.flagged_total))
    if ag.deviations:
        deviations_chart(ag)
    st.markdown(f"**Itens sinalizados** ({count_br(ag.flagged_total)})")
    if len(ag.flagged):
        fl = ag.flagged.copy()
        fl["spread"] = [percent_br(v) for v in fl["spread"].tolist()]
        st.dataframe(for_display(
            fl, money=("median_brl",), counts=("n_values", "votes_for", "votes_against"),
            labels={"decided_by": DECIDED_BY_LABELS},
            only=("item_code", "description", "n_values", "median_brl", "spread", "votes_for",
                  "votes_against", "decided_by"),
            rename={"item_code": "Código", "description": "Descrição", "n_values": "Valores",
                    "median_brl": "Mediana (R$)", "spread": "Dispersão", "votes_for": "Votos sim",
                    "votes_against": "Votos não", "decided_by": "Decisão"}), hide_index=True, width="stretch")
    else:
        st.caption("Nenhum item sinalizado nesta rodada.")


def deviations_chart(ag: RoundAgreement) -> None:
    """One box per member: the spread of (value − item median) / median, in percent."""
    fig = go.Figure()
    for d in ag.deviations:
        fig.add_trace(go.Box(name=d.member, x=[d.member], q1=[d.p25 * 100], median=[d.median * 100],
                             q3=[d.p75 * 100], lowerfence=[d.minimum * 100], upperfence=[d.maximum * 100],
                             mean=[d.mean * 100], boxpoints=False, showlegend=False))
    pt_br(fig, height=360)
    fig.update_layout(title="Desvio de cada membro em relação à mediana do item",
                      yaxis_title="Desvio da mediana (%)", yaxis_ticksuffix=" %",
                      margin={"l": 10, "r": 10, "t": 40, "b": 10})
    show(fig)
