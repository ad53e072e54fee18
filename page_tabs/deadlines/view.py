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
LIST_COLUMNS = ("label_pt", "due", "office_code", "reason", "contract_code", "wreck", "naval_district", "organisation",
                "basis")
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


def deadline_table(frame: pd.DataFrame, columns: tuple[str, ...] = LIST_COLUMNS) -> None:
    cols = [c for c in columns if c in frame.columns]
    st.dataframe(for_display(frame[cols].head(LIST_LIMIT), dates=["due", "met_on"], rename=SHOWN),
                 hide_index=True, width="stretch")
    if len(frame) > LIST_LIMIT:
        st.caption(f"Mostrando {count_br(LIST_LIMIT)} de {count_br(len(frame))} prazos; filtre por OM para ver os "
                   "demais.")


def rows_of(frame: pd.DataFrame, rules: tuple[str, ...]) -> pd.DataFrame:
    return frame[frame["rule"].isin(rules)] if not frame.empty else frame
