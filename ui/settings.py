"""Where the DuckDB file is: one setting (env VALUATION_DB, else secrets [valuation] db_path)."""
from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

DEFAULT_DB = Path(__file__).resolve().parent.parent / "data" / "valuation.duckdb"


def db_path() -> str:
    env = os.environ.get("VALUATION_DB")
    if env:
        return env
    try:
        return str(st.secrets["valuation"]["db_path"])
    except (KeyError, FileNotFoundError, AttributeError):
        return str(DEFAULT_DB)
    except Exception:  # no secrets.toml at all: Streamlit raises its own error type
        return str(DEFAULT_DB)


def oidc_configured() -> bool:
    """True when `.streamlit/secrets.toml` has an [auth] section for st.login (OIDC single sign-on)."""
    try:
        return "auth" in st.secrets and bool(st.secrets["auth"].get("client_id") or st.secrets["auth"])
    except Exception:
        return False
