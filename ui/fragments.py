"""A part of a page that reruns alone (`st.fragment`), without giving up what a whole run guarantees (issue 28).

A click inside a fragment reruns only the fragment's function: Streamlit does not run app.py, so neither the
session check (`session.current_user`: "Sair" elsewhere, an admin's deactivation or role change, the idle
timeout) nor the run log (`ui/run_timing`) would see it. `page_fragment` restores both. In a fragment's own
rerun it first validates the session again — gone or changed, the whole app reruns (the login form, or the
pages of the new role) and the fragment draws nothing; then it asks the caller's `refresh` whether what
the page's top chose (the round, its state) still holds — if not, the whole page reruns; and the run is
recorded under the page's key, as a whole run is. In a whole run of the page the fragment is drawn as part of
it (app.py has already done both).

Used where a person repeats one action many times and nothing above the fragment changes with it: the
Commission member's item list and entry form (choose an item, save a value).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from ui import run_timing, session
from valuation.db import access

V = TypeVar("V")


def in_fragment_rerun() -> bool:
    """Whether this script run is a fragment's own rerun (not a whole run of the page)."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def page_fragment(page_key: str, body: Callable[[V], None], view: V, *, user: access.Principal,
                  refresh: Callable[[V, access.Principal], V | None]) -> None:
    """Draw `body(view)` as a fragment of the page `page_key`, drawn for `user`. In the fragment's own reruns,
    `refresh(view, user)` gets the re-validated user and returns the view to draw with, or None when the page's
    top must be drawn again (the whole page reruns)."""

    def run(view: V) -> None:
        if not in_fragment_rerun():
            body(view)
            return
        started = run_timing.start()
        signed_in = session.still_signed_in(user)
        if signed_in is None:
            st.rerun()                              # the login form, or the pages of the user's new role
        assert signed_in is not None
        fresh = refresh(view, signed_in)
        if fresh is None:
            st.rerun()
        assert fresh is not None
        with run_timing.recorded(started, page_key, signed_in):
            body(fresh)

    st.fragment(run)(view)
