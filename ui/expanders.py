"""Expanders that draw their content only while open (issue 28: pages by address).

A plain `st.expander` sends and draws its content on every run, closed or not: the forms a page keeps in
closed expanders ("Registrar …", "Cadastrar …", "Novo usuário") were most of what a fresh tab drew for
Achados — its twelve-field registration form and the costs' form, never seen until opened — and drawing them
was a quarter of a second of that tab (bench/README.md, pages by address: 1.28 → 1.03 s on the 1M file,
alternated). Here the expander tracks whether it is open (`on_change="rerun"`, like ui/tabs.LazyTabs): a
page draws the content only when it is, and opening it is one script run of the page.

    with lazy_expander("Registrar coisa achada", key="found_register") as shown:
        if shown:
            ...                  # the form

The key names the expander (tests open it by setting `st.session_state[key] = True`); an expander repeated per
record carries the record in its key. What a user typed into a form is kept while the expander is open; closing
it discards it, as leaving the page does. Expanders whose content is a few lines of text stay plain
`st.expander` (nothing to save).
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

import streamlit as st


@contextlib.contextmanager
def lazy_expander(label: str, *, key: str, expanded: bool = False) -> Iterator[bool]:
    """The expander's container, entered; yields whether it is open (draw its content only then)."""
    box = st.expander(label, expanded=expanded, key=key, on_change="rerun")
    with box:
        yield bool(box.open)
