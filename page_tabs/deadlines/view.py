"""What every tab of Prazos works on — the user, the store, the deadlines stated on the reference date
(the store scopes the rows) — and the deadline list the tabs share."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import pandas as pd
import streamlit as st

from ui.fmt import count_br, for_display
from valuation.db.access import Principal
from valuation.db.store import Store
from valuation.deadlines.states import CLOSED_LABEL, STATE_LABELS

LIST_LIMIT = 300  # rows shown per list; the rest is summarised (never ship a whole table)
PICK_LIMIT = 2000
SHOWN = {"label_pt": "Prazo", "contract_code": "Contrato", "organisation": "Empresa", "wreck": "Naufrágio",
         "wreck_name": "Nome do naufrágio", "office_code": "OM", "naval_district": "DN", "due": "Vencimento",
         "state_pt": "Situação", "met_on": "Cumprido em", "reason": "Observação", "basis": "Fundamento"}
# Contrato, Empresa and Fundamento first (issue 23 item 12): at 1366 px the main area holds ~900 px of columns,
# so they and the due date come before the columns one may scroll to (DN last: the lists are sorted by it).
LIST_COLUMNS = ("label_pt", "contract_code", "organisation", "due", "basis", "office_code", "reason", "wreck",
                "naval_district")
# Column widths in pixels; text wraps (ROW_HEIGHT holds four lines: Streamlit wraps above 4rem).
WIDTHS = {"label_pt": 185, "contract_code": 125, "organisation": 175, "due": 90, "basis": 195, "office_code": 120,
          "reason": 160, "wreck": 80, "naval_district": 50, "wreck_name": 150, "state_pt": 130, "met_on": 95}
ROW_HEIGHT = 84
HEADER_HEIGHT = 38
FIT_ROWS = 8   # a list up to this many rows is drawn whole; a longer one scrolls, says so and offers "ver todos"
_COLOURS = {"overdue": "#c0392b", "due_soon": "#e67e22", "upcoming": "#2e86c1", "met": "#27ae60", "waived": "#95a5a6",
            "suspended": "#8e44ad"}
STATE_COLOURS = {**{STATE_LABELS[s]: c for s, c in _COLOURS.items()}, CLOSED_LABEL: "#7f8c8d"}  # by state_pt


@dataclass(frozen=True)
class DeadlinesView:
    user: Principal
    store: Store
    manage: bool              # DPC: every event kind, waivers, the office-wide tabs
    frame: pd.DataFrame       # the deadlines on `as_of` (engine.compute_deadlines, cached per revision)
    as_of: date
    office: str | None        # the office chosen above the tabs (None: every office)
    offices: list[str]        # the codes of the offices the user may read


def deadline_table(frame: pd.DataFrame, columns: tuple[str, ...] = LIST_COLUMNS, *, key: str = "list") -> None:
    """A list of deadlines: the chosen columns at their widths, wrapped; a list longer than FIT_ROWS scrolls
    inside the table, says how many rows it has and offers to show them all (the table then fits them)."""
    cols = [c for c in columns if c in frame.columns]
    n = len(frame)
    whole = n <= FIT_ROWS
    if not whole:
        whole = st.toggle(f"Ver todos os {count_br(n)} prazos desta lista", key=f"dl_all_{key}",
                          help="Mostra a lista inteira na página, sem rolagem dentro da tabela.")
        if not whole:
            st.caption(f"{count_br(n)} prazos: a tabela mostra {count_br(FIT_ROWS)} por vez; role dentro dela ou "
                       "marque «Ver todos».")
    rows = frame[cols] if whole else frame[cols].head(LIST_LIMIT)
    shown = len(rows) if whole else FIT_ROWS
    st.dataframe(for_display(rows, dates=["due", "met_on"], rename=SHOWN), hide_index=True, width="stretch",
                 column_config={SHOWN[c]: st.column_config.Column(width=WIDTHS[c]) for c in cols if c in WIDTHS},
                 row_height=ROW_HEIGHT, height=HEADER_HEIGHT + ROW_HEIGHT * max(shown, 1) + 2)
    if not whole and n > LIST_LIMIT:
        st.caption(f"A tabela traz os primeiros {count_br(LIST_LIMIT)} de {count_br(n)}; «Ver todos» traz todos.")


def rows_of(frame: pd.DataFrame, rules: tuple[str, ...]) -> pd.DataFrame:
    return frame[frame["rule"].isin(rules)] if not frame.empty else frame
