"""Visão geral: the figures the user's role may see (scoped by the store)."""
from __future__ import annotations

import plotly.express as px
import streamlit as st

from ui import session
from ui.fmt import count_br
from valuation.store import overview

LABELS = {
    "wrecks": "Naufrágios", "wrecks_position_cleared": "Com posição liberada", "organisations": "Empresas",
    "contracts": "Contratos", "items": "Bens resgatados", "items_undelivered": "Bens não entregues (art. 23)",
    "users": "Usuários", "users_active": "Ativos", "users_locked": "Bloqueados", "audit_rows": "Registros de auditoria",
    "wrecks_by_state": "Naufrágios por UF", "contracts_by_status": "Contratos por situação",
    "contracts_by_kind": "Contratos por modalidade", "items_by_category": "Bens por categoria",
    "users_by_role": "Usuários por perfil",
}
SCOPES = {"all": "todos os registros", "under_assessment": "contratos em avaliação pela Comissão",
          "own_organisation": "somente a sua empresa", "users": "usuários e auditoria"}

user = session.guard("overview")
st.title("Visão geral")
figures = overview.overview_figures(session.store(), user)
if user.role == "admin":  # issue 13: a failed nightly audit verification is shown here (and e-mailed)
    from ui.jobs_view import audit_failure_notice

    audit_failure_notice(session.store())
st.caption(f"Escopo: {SCOPES.get(figures['scope'], figures['scope'])}.")

metrics = [(k, v) for k, v in figures.items() if isinstance(v, int) and k in LABELS]
cols = st.columns(min(4, len(metrics)) or 1)
for i, (key, value) in enumerate(metrics):
    cols[i % len(cols)].metric(LABELS[key], count_br(value))

charts = [(k, v) for k, v in figures.items() if isinstance(v, dict) and v]
for i in range(0, len(charts), 2):
    row = st.columns(2)
    for col, (key, value) in zip(row, charts[i:i + 2]):
        with col:
            st.subheader(LABELS.get(key, key))
            fig = px.bar(x=list(value.keys()), y=list(value.values()), labels={"x": "", "y": "quantidade"})
            fig.update_layout(margin={"l": 0, "r": 0, "t": 10, "b": 0}, height=300)
            st.plotly_chart(fig, width="stretch")
