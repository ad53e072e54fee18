"""`on_script_error` of the service (issue 13, item 6): log the exception with a short incident
id and show a Portuguese message instead of Streamlit's English exception box."""
from __future__ import annotations

import logging
import secrets

import streamlit as st

log = logging.getLogger("valuation.incidents")
MESSAGE = ("Algo deu errado nesta página (ocorrência {incident}). A equipe foi notificada; "
           "seus dados não foram alterados.")


def new_incident_id() -> str:
    return secrets.token_hex(2).upper()


def on_script_error(exc: Exception) -> bool:
    """Log `exc` under a new incident id and show MESSAGE; True suppresses Streamlit's own box.
    "seus dados não foram alterados": every write is one transaction that rolls back on error."""
    incident = new_incident_id()
    log.error("incident %s: uncaught %s on a page", incident, type(exc).__name__,
              exc_info=(type(exc), exc, exc.__traceback__))
    try:
        st.error(MESSAGE.format(incident=incident), icon=":material/error:")
    except Exception:  # no script context: let Streamlit show its own (details are hidden by config)
        return False
    return True
