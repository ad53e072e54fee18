"""The one form that annuls a record made by mistake (issue 42 item 5; Lei 9.784/1999 art. 53, its reason art. 50):
a deadline event, a request's step or an appeal's step — pick the record (nothing chosen at first), write the
reason, and the store's annul function records the annulment. Prazos → Registrar, Requerimentos and Recursos use it."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from page_tabs.deadlines.view import DeadlinesView
from ui.fields import choice_field
from ui.fmt import option_label
from ui.forms import save
from valuation.db import annulments


def annul_record_form(view: DeadlinesView, annul: Callable[..., Any], titles: dict[int, str], *, form: str,
                      pick_label: str, what: str, keys: tuple[str, str], button: str, success: str,
                      note: str = "") -> None:
    """`titles` {record id: its title}; `keys` the (choice, reason) widget keys; `success` a message with `{id}`;
    `note` a sentence added to the reason's help."""
    with st.form(form):
        pick = choice_field(pick_label, list(titles), what=what, format_func=option_label(titles), key=keys[0])
        reason = st.text_input(annulments.REASON_LABEL, max_chars=annulments.MAX_REASON, key=keys[1],
                               help=f"Obrigatório, de {annulments.MIN_REASON} a {annulments.MAX_REASON} caracteres, "
                                    f"em uma linha.{' ' + note if note else ''}")
        if not st.form_submit_button(button):
            return
    save(annul, view.store, view.user, pick, reason, labels={"reason": annulments.REASON_LABEL},
         success=success.format(id=pick.value))
