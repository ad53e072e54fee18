"""Visão geral: the figures the user's role may see."""
from __future__ import annotations

import plotly.express as px
import streamlit as st

from ui import session
from valuation.store import overview

user = session.guard("overview")
st.title("Visão geral")
figures = overview.overview_figures(session.store(), user)

metrics = [(k, v) for k, v in figures.items() if isinstance(v, int)]
if metrics:
    cols = st.columns(min(4, len(metrics)))
    for i, (key, value) in enumerate(metrics):
        cols[i % len(cols)].metric(overview.LABELS.get(key, key), f"{value:n}".replace(",", "."))

for key, value in figures.items():
    if isinstance(value, dict) and value:
        st.subheader(overview.LABELS.get(key, key))
        fig = px.bar(x=list(value.keys()), y=list(value.values()), labels={"x": "", "y": "quantidade"})
        st.plotly_chart(fig, width="stretch")
