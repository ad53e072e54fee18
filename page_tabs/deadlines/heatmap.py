"""Mapa de calor: the pending deadlines of a year by due day, week by week."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from page_tabs.deadlines.view import DeadlinesView
from ui.charts import pt_br, show
from ui.fmt import count_br
from valuation.deadlines import views


def render(view: DeadlinesView) -> None:
    year = int(st.number_input("Ano", min_value=1900, max_value=2100, value=view.as_of.year, step=1))
    grid = views.heatmap_grid(view.frame, year)
    st.caption(f"Prazos pendentes (vencidos, a vencer e suspensos) por dia de vencimento em {year}: "
               f"{count_br(grid['total'])} no ano" + (f"; no máximo {count_br(grid['peak'])} num só dia."
                                                       if grid["peak"] else "."))
    peak = max(grid["peak"], 1)
    fig = go.Figure(go.Heatmap(
        x=[d.isoformat() for d in grid["weeks"]], y=grid["weekdays"], z=grid["z"], text=grid["text"],
        hovertemplate="%{text}<extra></extra>", zmin=0, zmax=peak, xgap=2, ygap=2, hoverongaps=False,
        colorscale=[[0, "#eef1f5"], [0.5 / peak if peak > 1 else 0.01, "#c6dbef"], [1, "#08306b"]],
        colorbar={"title": {"text": "Prazos no dia"}, "tickformat": ",d", "dtick": 1 if peak <= 10 else None}))
    fig.update_yaxes(autorange="reversed", title_text="")
    fig.update_xaxes(title_text="Semana (segunda-feira)")
    show(pt_br(fig, dates=("x",), height=330))
