"""Plotly figures in pt-BR: ',' for decimals and '.' for thousands, dates as dd/mm/aaaa
(numeric formats, so no English month name can appear), whole-number steps for counts,
capitalised Portuguese titles, and the page's config (no mode bar logo, local map outlines).

Every page draws through `show(fig, ...)`: one place decides how charts look.
"""
from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Any

import streamlit as st

from ui import session
from ui.fmt import GEO_CONFIG

MONTHS_PT = ("jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez")
DATE_TICKS = "%d/%m/%Y"
# Plotly's own localisation (config.locales): the plotly.js Streamlit bundles registers only "en" and "en-US",
# so "locale": "pt-BR" alone changed nothing and the mode bar read "Download plot as a PNG" (issue 23 item 9).
# Its strings in Portuguese, after plotly.js's locale-pt-br; every button of the mode bar is in it.
PLOTLY_PT_BR: dict[str, Any] = {
    "dictionary": {
        "Autoscale": "Escala automática", "Box Select": "Seleção retangular", "Click to enter Colorscale title":
        "Clique para editar o título da escala de cor", "Compare data on hover": "Comparar dados ao pairar",
        "Double-click to zoom back out": "Clique duas vezes para afastar", "Download plot": "Baixar gráfico",
        "Download plot as a PNG": "Baixar gráfico em PNG", "Download plot as a png": "Baixar gráfico em PNG",
        "Download plot as JSON": "Baixar gráfico em JSON", "Draw circle": "Desenhar círculo",
        "Draw closed freeform": "Desenhar forma livre fechada", "Draw line": "Desenhar linha",
        "Draw open freeform": "Desenhar forma livre aberta", "Draw rectangle": "Desenhar retângulo",
        "Erase active shape": "Apagar a forma ativa", "Lasso Select": "Seleção por laço",
        "Orbital rotation": "Rotação orbital", "Pan": "Mover", "Produced with Plotly.js": "Gerado com Plotly.js",
        "Reset": "Restaurar", "Reset axes": "Restaurar eixos", "Reset camera to default": "Restaurar câmera",
        "Reset camera to last save": "Restaurar a última câmera salva", "Reset view": "Restaurar vista",
        "Reset views": "Restaurar vistas", "Show closest data on hover": "Mostrar o dado mais próximo ao pairar",
        "Snapshot succeeded": "Imagem gerada", "Sorry, there was a problem downloading your snapshot!":
        "Não foi possível baixar a imagem.", "Taking snapshot - this may take a few seconds":
        "Gerando a imagem; pode levar alguns segundos", "Toggle Spike Lines": "Linhas de referência",
        "Toggle show closest data on hover": "Mostrar o dado mais próximo ao pairar",
        "Turntable rotation": "Rotação em plataforma", "Zoom": "Zoom", "Zoom in": "Aproximar",
        "Zoom out": "Afastar", "Share chart...": "Compartilhar gráfico…",
    },
    "format": {
        "days": ["Domingo", "Segunda-feira", "Terça-feira", "Quarta-feira", "Quinta-feira", "Sexta-feira", "Sábado"],
        "shortDays": ["Dom", "Seg", "Ter", "Qua", "Qui", "Sex", "Sáb"],
        "months": ["Janeiro", "Fevereiro", "Março", "Abril", "Maio", "Junho", "Julho", "Agosto", "Setembro",
                   "Outubro", "Novembro", "Dezembro"],
        "shortMonths": ["Jan", "Fev", "Mar", "Abr", "Mai", "Jun", "Jul", "Ago", "Set", "Out", "Nov", "Dez"],
        "date": "%d/%m/%Y", "decimal": ",", "thousands": ".",
    },
}
CONFIG: dict[str, Any] = {"displaylogo": False, "locale": "pt-BR", "locales": {"pt-BR": PLOTLY_PT_BR}, **GEO_CONFIG}


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


# The trace types of the partial plotly.js the service serves (front_end/plotly/entry.js: scatter is in its core).
DRAWN_TRACES = frozenset({"scatter", "bar", "scattergeo"})
COMPONENT = "valuation_service.plotly_chart"
# Streamlit's light chart theme as st.plotly_chart draws it (the "streamlit" template with the colours its
# front end puts in place of the placeholders), for the charts the service draws itself.
THEME: dict[str, Any] = json.loads((Path(__file__).with_name("chart_theme.json")).read_text(encoding="utf-8"))


def _placeholder_colours() -> dict[str, str]:
    """Streamlit's plotly template holds placeholder colours ("#000001"…) that its front end replaces with the
    theme's; a figure made with it (px.* sets them on its traces) gets the same colours here, pair by pair from
    Streamlit's template and the theme it drew."""
    import plotly.io as pio

    mine, drawn = pio.templates["streamlit"].layout, THEME["layout"]
    pairs = list(zip(mine.colorway, drawn["colorway"]))
    for scale in ("sequential", "diverging"):
        pairs += [(a[1], b[1]) for a, b in zip(getattr(mine.colorscale, scale), drawn["colorscale"][scale])]
    return {placeholder.lower(): colour for placeholder, colour in pairs}


PLACEHOLDERS = _placeholder_colours()
_PLACEHOLDER = re.compile(r'"(#0000[0-4][0-9])"', re.IGNORECASE)


def trace_types(fig: Any) -> set[str]:
    return {trace.type or "scatter" for trace in fig.data}


def spec(fig: Any) -> dict[str, Any]:
    """The figure as the served chart draws it: plotly's JSON (numbers as typed arrays, dates as text) with the
    product's theme as its template and Streamlit's placeholder colours replaced by the theme's."""
    text = _PLACEHOLDER.sub(lambda m: '"' + PLACEHOLDERS.get(m.group(1).lower(), m.group(1)) + '"', fig.to_json())
    doc: dict[str, Any] = json.loads(text)
    doc.setdefault("layout", {})["template"] = THEME
    return {"data": doc.get("data", []), "layout": doc["layout"]}


def show(fig: Any, **kwargs: Any) -> None:
    """A chart with the product's config (pt-BR locale, no logo, local map outlines); text from data is shown
    as text (`plain_data`). Under the service, drawn by its own component with the partial plotly.js
    (service/chart_bundle.py, issue 28: a page with a chart opened in a fresh tab waited ~1 s for Streamlit's
    whole plotly.js); elsewhere (`streamlit run`, AppTest) and for a trace type that build lacks, by
    st.plotly_chart."""
    fig = plain_data(fig)
    bundle = getattr(session.service(), "chart_bundle", None)
    if bundle and session.components_served() and not kwargs and trace_types(fig) <= DRAWN_TRACES:
        # the chart's element comes with the component (not from its script), so a page is not drawn until
        # the chart is (bench/live.py: settled)
        renderer = st.components.v2.component(COMPONENT, html='<div class="valuation-chart"></div>',
                                              js="plotly_chart.js", isolate_styles=False)
        renderer(data={"figure": spec(fig), "config": CONFIG, "bundle": bundle})
        return
    st.plotly_chart(fig, width="stretch", config=CONFIG, **kwargs)
