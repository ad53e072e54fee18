"""What every tab of Avaliação da Comissão works on: the user, the store and the round shown, and the
one way a write states its outcome (above the tabs, after a rerun; inside the Itens tab when only that tab
reruns — ui/fragments.py)."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from valuation.commission.rounds import Round
from valuation.core.errors import AccessDenied, ConflictError, NotFound
from valuation.db.access import Principal
from valuation.db.store import Store

VOTES = {None: "Não votar", True: "Histórico (art. 20 §3)", False: "Não histórico"}
ERRORS = (AccessDenied, ConflictError, NotFound)
FLASH = "commission_flash"
FLASH_WARNING = "commission_flash_warning"


@dataclass(frozen=True)
class RoundView:
    user: Principal
    store: Store
    round: Round
    is_member: bool      # enters assessments
    is_president: bool   # opens, closes, decides and publishes rounds
    sees_names: bool     # reads the members' names beside their entries

    @property
    def rid(self) -> int:
        return self.round.id

    @property
    def is_open(self) -> bool:
        return self.round.is_open


def show_flash() -> None:
    """The outcome of the write that reran the page, once."""
    flash = st.session_state.pop(FLASH, None)
    if flash:
        st.success(flash)
    warning = st.session_state.pop(FLASH_WARNING, None)
    if warning:
        st.warning(warning, icon=":material/warning:")


def done(saved: object, message: str, warning: str | None = None) -> None:
    """After a write that went through: show `message` on the page as it is now (rerun) — once, above the
    tabs: the writes here pass `success=None` to `save`, which would otherwise state it in the tab too."""
    if saved is not None:
        flash(message, warning)
        st.rerun()


def flash(message: str, warning: str | None = None) -> None:
    """`message` (and `warning`) shown once above the tabs on the page's next drawing — the one after a submit
    callback's write is the run the click started."""
    st.session_state[FLASH] = message
    if warning:
        st.session_state[FLASH_WARNING] = warning
