"""The plotly figures the pages draw, built straight from graph objects (issue 17).

`bar`, `timeline` and `scatter_geo` take the arguments of their plotly.express namesakes that the
pages use and build the same traces and layout (one trace per colour, px's hover text, axis titles
from `labels`), in 1–3 ms instead of px's 20–80 ms per figure (its validation and data frame
pipeline run on every call and held the script thread on every page view). Then `ui.charts.pt_br`
and `ui.charts.show` as before.

    fig = figures.bar(df, x="office_code", y="n", color="Situação", barmode="group", labels=LABELS)
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

_COLORWAY: list[str] = []


def colorway() -> list[str]:
    """The default template's colour sequence (what px uses when none is given)."""
    if not _COLORWAY:
        template = pio.templates[pio.templates.default] if pio.templates.default else None
        _COLORWAY.extend((template.layout.colorway if template is not None else None) or
                         ["#636efa", "#EF553B", "#00cc96", "#ab63fa", "#FFA15A", "#19d3f3", "#FF6692",
                          "#B6E880", "#FF97FF", "#FECB52"])
    return _COLORWAY


def _column(df: Any, spec: Any) -> Any:
    """A column of `df` by name, or `spec` itself (a sequence given directly)."""
    if isinstance(spec, str):
        return df[spec].to_numpy() if df is not None else spec
    return list(spec) if spec is not None else None


def _name(spec: Any, default: str, labels: Mapping[str, str]) -> str:
    key = spec if isinstance(spec, str) else default
    return labels.get(key, key)


def _groups(df: Any, color: str | None, orders: Mapping[str, Sequence[Any]] | None) -> list[tuple[Any, Any]]:
    """[(colour value, row mask)] in px's order: `category_orders` first, then by first appearance."""
    if color is None or df is None:
        return [(None, None)]
    values = df[color].tolist()
    seen = list(dict.fromkeys(values))
    first = [v for v in (orders or {}).get(color, ()) if v in seen]
    ordered = first + [v for v in seen if v not in first]
    column = df[color].to_numpy()
    return [(v, column == v) for v in ordered]


def _colour(i: int, value: Any, discrete_map: Mapping[Any, str] | None,
            sequence: Sequence[str] | None) -> str:
    if discrete_map and value in discrete_map:
        return discrete_map[value]
    seq = list(sequence) if sequence else colorway()
    return seq[i % len(seq)]


def _layout(fig: go.Figure, *, legend: str | None, title: str | None, height: int | None) -> None:
    layout: dict[str, Any] = {"legend": {"tracegroupgap": 0}, "margin": {"t": 60}}
    if legend is not None:
        layout["legend"]["title"] = {"text": legend}
    if title is not None:
        layout["title"] = {"text": title}
    if height is not None:
        layout["height"] = height
    fig.update_layout(layout)


def bar(df: Any = None, *, x: Any, y: Any, color: str | None = None, labels: Mapping[str, str] | None = None,
        title: str | None = None, text: str | None = None, orientation: str = "v", barmode: str = "relative",
        category_orders: Mapping[str, Sequence[Any]] | None = None,
        color_discrete_map: Mapping[Any, str] | None = None, color_discrete_sequence: Sequence[str] | None = None,
        hover_data: Mapping[str, str] | None = None, height: int | None = None) -> go.Figure:
    """px.bar's figure for these arguments. `hover_data` {column: d3 format} adds lines to the hover
    (named by `labels`)."""
    labels = dict(labels or {})
    xs, ys = _column(df, x), _column(df, y)
    x_name, y_name = _name(x, "x", labels), _name(y, "y", labels)
    extra = list(hover_data or {})
    tail = "".join(f"<br>{labels.get(c, c)}=%{{customdata[{k}]{(hover_data or {})[c]}}}" for k, c in enumerate(extra))
    if text is not None and text not in (x, y):
        tail = f"<br>{_name(text, 'text', labels)}=%{{text}}" + tail
    traces = []
    for i, (value, mask) in enumerate(_groups(df, color, category_orders)):
        def pick(values: Any, mask: Any = mask) -> Any:
            return values if mask is None or values is None else values[mask]
        head = "" if color is None else f"{labels.get(color, color)}={value}<br>"
        hover = f"{head}{x_name}=%{{x}}<br>{y_name}=%{{y}}{tail}"
        trace: dict[str, Any] = {
            "type": "bar", "x": pick(xs), "y": pick(ys), "orientation": orientation,
            "name": "" if value is None else str(value), "legendgroup": "" if value is None else str(value),
            "showlegend": color is not None, "marker": {"color": _colour(i, value, color_discrete_map,
                                                                         color_discrete_sequence)},
            "hovertemplate": hover + "<extra></extra>", "textposition": "auto"}
        if color is not None and barmode == "group":
            trace.update(offsetgroup=str(value), alignmentgroup="True")
        if text is not None:
            trace["text"] = pick(_column(df, text))
        if extra:
            trace["customdata"] = pick(df[extra].to_numpy())
        traces.append(trace)
    fig = go.Figure(data=traces)
    fig.update_layout(barmode=barmode, xaxis={"title": {"text": x_name}}, yaxis={"title": {"text": y_name}})
    _layout(fig, legend=labels.get(color, color) if color else None, title=title, height=height)
    return fig


def timeline(df: Any, *, x_start: str, x_end: str, y: str, color: str | None = None,
             color_discrete_map: Mapping[Any, str] | None = None, custom_data: Sequence[str] = (),
             labels: Mapping[str, str] | None = None) -> go.Figure:
    """px.timeline's figure: horizontal bars from `x_start` to `x_end` (datetimes) on a date axis."""
    import pandas as pd

    labels = dict(labels or {})
    start = pd.to_datetime(df[x_start])
    length_ms = ((pd.to_datetime(df[x_end]) - start).dt.total_seconds() * 1000).to_numpy()
    starts = start.dt.strftime("%Y-%m-%dT%H:%M:%S").to_numpy()
    traces = []
    for i, (value, mask) in enumerate(_groups(df, color, None)):
        m = slice(None) if mask is None else mask
        trace: dict[str, Any] = {
            "type": "bar", "orientation": "h", "base": starts[m], "x": length_ms[m], "y": df[y].to_numpy()[m],
            "name": "" if value is None else str(value), "legendgroup": "" if value is None else str(value),
            "showlegend": color is not None, "textposition": "auto",
            "marker": {"color": _colour(i, value, color_discrete_map, None)},
            "hovertemplate": (f"{labels.get(color, color)}={value}<br>" if color else "")
            + f"{labels.get(x_start, x_start)}=%{{base}}<br>{labels.get(x_end, x_end)}=%{{x}}<br>"
              f"{labels.get(y, y)}=%{{y}}<extra></extra>"}
        if custom_data:
            trace["customdata"] = df[list(custom_data)].to_numpy()[m]
        traces.append(trace)
    fig = go.Figure(data=traces)
    fig.update_layout(barmode="overlay", xaxis={"type": "date"}, yaxis={"title": {"text": labels.get(y, y)}})
    _layout(fig, legend=labels.get(color, color) if color else None, title=None, height=None)
    return fig


def scatter_geo(df: Any, *, lat: str, lon: str, hover_name: str | None = None, color: str | None = None,
                hover_data: Mapping[str, bool] | None = None, labels: Mapping[str, str] | None = None,
                height: int | None = None) -> go.Figure:
    """px.scatter_geo's figure: one marker trace per colour, the hover name in bold, then the
    `hover_data` columns marked True (named by `labels`)."""
    labels = dict(labels or {})
    shown = [c for c, on in (hover_data or {}).items() if on]
    head = "<b>%{hovertext}</b><br><br>" if hover_name else ""
    hover = head + "<br>".join(f"{labels.get(c, c)}=%{{customdata[{k}]}}" for k, c in enumerate(shown))
    traces = []
    for i, (value, mask) in enumerate(_groups(df, color, None)):
        part = df if mask is None else df[mask]
        trace: dict[str, Any] = {
            "type": "scattergeo", "lat": part[lat].to_numpy(), "lon": part[lon].to_numpy(), "mode": "markers",
            "name": "" if value is None else str(value), "legendgroup": "" if value is None else str(value),
            "showlegend": color is not None, "geo": "geo",
            "marker": {"color": _colour(i, value, None, None), "symbol": "circle"},
            "hovertemplate": hover + "<extra></extra>"}
        if hover_name:
            trace["hovertext"] = part[hover_name].to_numpy()
        if shown:
            trace["customdata"] = part[shown].to_numpy()
        traces.append(trace)
    fig = go.Figure(data=traces)
    fig.update_layout(geo={"domain": {"x": [0.0, 1.0], "y": [0.0, 1.0]}, "center": {}})
    _layout(fig, legend=labels.get(color, color) if color else None, title=None, height=height)
    return fig
