"""Plotly figures in pt-BR: ',' for decimals and '.' for thousands, dates as dd/mm/aaaa
(numeric formats, so no English month name can appear), whole-number steps for counts,
capitalised Portuguese titles, and the page's config (no mode bar logo, local map outlines).

Every page draws through `show(fig, ...)`: one place decides how charts look.
"""
from __future__ import annotations

import html
from collections.abc import Iterable
from datetime import date
from typing import Any

import streamlit as st

from ui.fmt import GEO_CONFIG

MONTHS_PT = ("jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez")
DATE_TICKS = "%d/%m/%Y"
CONFIG: dict[str, Any] = {"displaylogo": False, "locale": "pt-BR", **GEO_CONFIG}


def pt_br(fig: Any, *, counts: Iterable[str] = (), money: Iterable[str] = (), dates: Iterable[str] = (),
          legend: str | None = None, height: int | None = None) -> Any:
    """Apply the pt-BR look to `fig` (axes named 'x'/'y'); returns it."""
    fig.update_layout(separators=",.", font={"family": "sans-serif"},
                      margin={"l": 10, "r": 10, "t": 30, "b": 10})
    if legend is not None:
        fig.update_layout(legend_title_text=legend)
    if height:
        fig.update_layout(height=height)
    for axis in counts:
        _axis(fig, axis).update(tickformat=",d", rangemode="tozero")
        _integer_steps(fig, axis)
    for axis in money:
        _axis(fig, axis).update(tickformat=",.2f", tickprefix="R$ ")
    for axis in dates:
        _axis(fig, axis).update(tickformat=DATE_TICKS, hoverformat=DATE_TICKS)
    return fig


def _axis(fig: Any, name: str) -> Any:
    return fig.layout.xaxis if name == "x" else fig.layout.yaxis


def _integer_steps(fig: Any, axis: str) -> None:
    """Counts step by whole numbers: dtick 1 for small ranges, otherwise let Plotly choose ≥ 1."""
    top = 0.0
    for trace in fig.data:
        values = getattr(trace, axis, None)
        if values is None:
            continue
        try:
            top = max(top, max(float(v) for v in values if v is not None))
        except ValueError:
            continue
    if top <= 10:
        _axis(fig, axis).update(dtick=1)  # never '0,5 prazo'; above 10 ',d' ticks are whole already


def today_line(fig: Any, day: date, *, label: str = "hoje") -> Any:
    """A vertical 'hoje' line on a date x axis."""
    fig.add_vline(x=day.isoformat(), line_width=2, line_dash="dash", line_color="#c0392b")
    fig.add_annotation(x=day.isoformat(), y=1, yref="paper", text=label, showarrow=False,
                       yanchor="bottom", font={"color": "#c0392b"})
    return fig


# Trace attributes that carry data (names, descriptions, codes): plotly reads <a>, <b>, <br> … in them.
_DATA_TEXT = ("x", "y", "text", "hovertext", "customdata", "labels", "parents", "ids", "name", "legendgroup")


def _escaped(value: Any) -> Any:
    if isinstance(value, str):
        return html.escape(value, quote=False)
    if isinstance(value, (list, tuple)) or (hasattr(value, "tolist") and not isinstance(value, (int, float))):
        items = value.tolist() if hasattr(value, "tolist") else list(value)
        if isinstance(items, list):
            return [_escaped(v) for v in items]
    return value


def plain_data(fig: Any) -> Any:
    """`fig` with every text that came from data HTML-escaped (templates and titles keep their markup):
    a user-written name or description never becomes a link or a tag in a chart. Returns it."""
    for trace in fig.data:
        for attr in _DATA_TEXT:
            old = trace[attr] if attr in trace else None
            if old is None or isinstance(old, (int, float)):
                continue
            new = _escaped(old)
            if new != (old.tolist() if hasattr(old, "tolist") else list(old) if isinstance(old, tuple) else old):
                trace[attr] = new
    return fig


def show(fig: Any, **kwargs: Any) -> None:
    """st.plotly_chart with the product's config (pt-BR locale, no logo, local map outlines); text from
    data is shown as text (`plain_data`)."""
    st.plotly_chart(plain_data(fig), width="stretch", config=CONFIG, **kwargs)
