"""Front-end warm-up on the login page (issue 17).

In a browser that has not opened the dashboard before, the first page after the login waited ~0.8 s
for the chart and table code to be fetched and compiled (bench/README.md, login). Under the service, the
login page mounts service/assets/front_end_warmup.js with the paths of those modules — Streamlit's table
module and the service's partial plotly.js (service/chart_bundle.py, which the charts draw with since
issue 28) — which imports them while the person types; the later import of the same URL finds them loaded.
Under `streamlit run` and AppTest (no service, no served component) nothing is mounted.
"""
from __future__ import annotations

import functools
from pathlib import Path

import streamlit as st

COMPONENT = "valuation_service.front_end_warmup"
# Streamlit's front-end modules the first pages draw with: every page's tables.
MODULES = ("DataFrame",)


@functools.lru_cache(maxsize=1)
def module_paths() -> tuple[str, ...]:
    """The served paths (`static/js/<name>.<hash>.js`) of MODULES in the installed Streamlit."""
    folder = Path(st.__file__).resolve().parent / "static" / "static" / "js"
    found: list[str] = []
    for name in MODULES:
        found += sorted(f"static/js/{p.name}" for p in folder.glob(f"{name}.*.js"))
    return tuple(found)


def mount(chart_bundle: str | None) -> None:
    """Mount the warm-up on the current page (the login page), with the service's chart bundle (Visão geral's
    charts); the caller mounts it under the service only (its component is served there)."""
    modules = [*module_paths(), *([chart_bundle] if chart_bundle else [])]
    if not modules:
        return
    renderer = st.components.v2.component(COMPONENT, js="front_end_warmup.js")
    renderer(data={"modules": modules}, key="valuation_front_end_warmup", height=0)
