"""Tabs that run only the open tab's content (issue 17).

Streamlit's plain `st.tabs` runs and sends every tab's content on every script run; Prazos has nine
tabs, the Commission's page five, and under load those pages were the slowest (bench/README.md,
load). Here the tabs track which one is open (`on_change="rerun"`): a page asks `tabs.current` and
draws that tab alone; switching tabs is a script run of the new tab's content only.

    tabs = LazyTabs("deadlines", names)
    with tabs.panel():              # the open tab's container
        RENDERERS[tabs.current]()

    if tabs.is_open("Ata"):         # or tab by tab
        with tabs["Ata"]:
            ...

The state's key names the page and its set of tabs, so a page whose tabs depend on the role or on
the record shown (the Commission's round, open or closed) never carries an open tab that is not
among its current ones. What a user typed into a tab's form is kept while it is open; switching
away discards it (Streamlit drops the widgets a run does not draw), as leaving the page does.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import streamlit as st


def tabs_key(page: str, names: Sequence[str]) -> str:
    """The session-state key of a page's set of tabs (tests open a tab by setting it to its label)."""
    digest = hashlib.sha1("|".join(names).encode("utf-8"), usedforsecurity=False).hexdigest()[:8]
    return f"tabs_{page}_{digest}"


class LazyTabs:
    """A page's tabs, of which only the open one is drawn."""

    def __init__(self, page: str, names: Sequence[str]) -> None:
        if not names or len(set(names)) != len(names):
            raise ValueError("tabs need distinct, non-empty names")
        self.names = list(names)
        containers = st.tabs(self.names, key=tabs_key(page, self.names), on_change="rerun")
        self._tabs = dict(zip(self.names, containers))

    @property
    def current(self) -> str:
        """The label of the open tab (the first until the user picks another)."""
        for name, tab in self._tabs.items():
            if tab.open:
                return name
        return self.names[0]

    def __contains__(self, name: object) -> bool:
        return name in self._tabs

    def __getitem__(self, name: str) -> Any:
        return self._tabs[name]

    def is_open(self, name: str) -> bool:
        """Whether `name` is one of the page's tabs and the open one: draw its content only then."""
        return name in self._tabs and self.current == name

    def panel(self) -> Any:
        """The container of the open tab."""
        return self._tabs[self.current]
