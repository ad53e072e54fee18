"""Showing bad input: every problem with its field, in pt-BR (nothing was written)."""
from __future__ import annotations

import streamlit as st

from valuation.errors import InputError


def show_problems(exc: InputError, *, title: str = "Nada foi gravado. Corrija os campos abaixo:") -> None:
    lines = "\n".join(f"- {p.message}" if not p.path or p.message.startswith(p.path) else f"- **{p.path}**: {p.message}"
                      for p in exc.problems)
    st.error(f"{title}\n\n{lines}")
