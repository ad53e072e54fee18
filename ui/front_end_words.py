"""Streamlit's own English in Portuguese (issue 23 item 9).

Streamlit 1.67 offers no setting for the language of its front end: the upload box ("Upload",
"200MB per file", "Drag and drop a file here"), the table's toolbar and column menu ("Download as CSV",
"Search", "Show/hide columns"), an element's "Fullscreen" are English. Under the service every page of a
logged-in person mounts service/assets/front_end_words.js (a served v2 component, like the cookie bridge:
same origin, CSP script-src 'self'), whose MutationObserver replaces those exact strings in text, tooltips
(title), aria-label and placeholder — never inside what the pages wrote (markdown, text, table cells).
Plotly's mode bar speaks Portuguese through Plotly's own locale (ui/charts.CONFIG's `locales`). Under
`streamlit run` and AppTest nothing is mounted (the component is not served there).

The limit a person reads in the upload box is the widget's own (`max_upload_size`, set where a limit is
smaller than server.maxUploadSize in .streamlit/config.toml).
"""
from __future__ import annotations

import streamlit as st

COMPONENT = "valuation_service.front_end_words"


def mount() -> None:
    """Mount the translator on the current run (the caller mounts it under the service only)."""
    renderer = st.components.v2.component(COMPONENT, js="front_end_words.js")
    renderer(data={}, key="valuation_front_end_words", height=0)
