"""Visão geral: the figures the user's role may see (scoped by the store)."""
from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from ui import figures as plots
from ui import session
from ui.charts import pt_br, show
from ui.fmt import count_br
from ui.registry import BY_KEY
from valuation.db.access import ROLE_LABELS, allowed, may_view_page
from valuation.oversight import first_run, overview

LABELS = {
    "wrecks": "Naufrágios", "wrecks_position_cleared": "Com posição liberada", "organisations": "Empresas",
    "contracts": "Contratos", "items": "Bens resgatados", "items_undelivered": "Bens não entregues (art. 23)",
    "users": "Usuários", "users_active": "Ativos", "users_locked": "Acessos em espera",
    "audit_rows": "Registros de auditoria",
    "wrecks_by_state": "Naufrágios por UF", "contracts_by_status": "Contratos por situação",
    "contracts_by_kind": "Contratos por modalidade", "items_by_category": "Bens por categoria",
    "users_by_role": "Usuários por perfil",
}
# chart → (axis title of the categories, what is counted, codes → labels)
CHARTS = {
    "wrecks_by_state": ("UF", "Naufrágios", {}),
    "contracts_by_status": ("Situação", "Contratos", {}),
    "contracts_by_kind": ("Modalidade", "Contratos", {}),
    "items_by_category": ("Categoria", "Bens", {}),
    "users_by_role": ("Perfil", "Usuários", ROLE_LABELS),
}
HORIZONTAL = {"items_by_category", "users_by_role"}  # long names read across, largest first
SCOPES = {"all": "todos os registros", "under_assessment": "contratos em avaliação pela Comissão",
          "own_organisation": "somente a sua empresa", "own_office": "somente a sua Capitania",
          "users": "usuários e auditoria"}


def first_steps(steps: list[first_run.Step]) -> None:
    """A new database: what is still missing before an office can work, each with the page where it is done."""
    missing = [s for s in steps if not s.done]
    if not missing:
        return
    with st.container(border=True):
        st.subheader("Primeiros passos")
        st.caption("O que ainda falta para que a DPC, as Capitanias e a Comissão trabalhem neste banco de dados.")
        for step in steps:
            a, b = st.columns([3, 1])
            icon = ":material/check_circle:" if step.done else ":material/radio_button_unchecked:"
            a.markdown(f"{icon} **{step.label}** — {step.detail}")
            spec = BY_KEY.get(step.page)
            if not step.done and spec is not None and spec.exists() and may_view_page(user, spec.key):
                try:
                    b.page_link(spec.path, label=f"Abrir {spec.title}", icon=spec.icon)
                except StreamlitPageNotFoundError:    # a page run outside the navigation (its address alone)
                    b.caption(f"Na página {spec.title}")


def chart(key: str, counts: dict[str, int]) -> None:
    axis, counted, names = CHARTS.get(key, ("", "Quantidade", {}))
    labels = [names.get(k, k[:1].upper() + k[1:]) for k in counts]
    values = list(counts.values())
    hover = f"%{{{'y' if key in HORIZONTAL else 'x'}}}: %{{{'x' if key in HORIZONTAL else 'y'}:,d}} " \
            f"{counted.lower()}<extra></extra>"
    if key in HORIZONTAL:
        pairs = sorted(zip(values, labels))
        fig = plots.bar(x=[v for v, _ in pairs], y=[c for _, c in pairs], orientation="h",
                        labels={"x": counted, "y": axis})
        pt_br(fig, counts=("x",), height=max(300, 28 * len(pairs) + 80))
    else:
        fig = plots.bar(x=labels, y=values, labels={"x": axis, "y": counted})
        pt_br(fig, counts=("y",), height=320)
    fig.update_traces(hovertemplate=hover, marker_color="#2e5f8a")
    show(fig)


user = session.guard("overview")
st.title("Visão geral")
figures = overview.overview_figures(session.store(), user)
# consultar o registro de auditoria (admin) — issue 13: a failed nightly audit verification is shown here
# (and e-mailed)
if allowed(user, "read_audit"):
    from ui.jobs_view import audit_failure_notice

    audit_failure_notice(session.store())
st.caption(f"Escopo: {SCOPES.get(figures['scope'], figures['scope'])}.")
first_steps(first_run.setup_steps(session.store(), user))

metrics = [(k, v) for k, v in figures.items() if isinstance(v, int) and k in LABELS]
cols = st.columns(min(4, len(metrics)) or 1)
for i, (key, value) in enumerate(metrics):
    cols[i % len(cols)].metric(LABELS[key], count_br(value))

charts = [(k, v) for k, v in figures.items() if isinstance(v, dict) and len(v) > 0]
for i in range(0, len(charts), 2):
    row = st.columns(2)
    for col, (key, groups) in zip(row, charts[i:i + 2]):
        with col:
            st.subheader(LABELS.get(key, key))
            chart(key, groups)
