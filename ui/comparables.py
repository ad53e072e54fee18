"""The Commission's earlier published decisions on similar items (issue 16 §§8–9)."""
from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from ui.fmt import brl, count_br, for_display, yes_no
from ui.safe import md
from valuation.commission import comparables as cp
from valuation.core.errors import AccessDenied, NotFound
from valuation.db.access import Principal, allowed


def _key_text(c: cp.Comparables) -> str:
    base = f"{c.category} de {c.material}"
    return base + (f", {c.denomination}" if c.denomination else "")


def show(store: Any, user: Principal, item_id: int, *, recent: int = cp.RECENT) -> None:
    """Count, median and interquartile range of the comparables, and the latest few."""
    try:
        c = cp.comparables_for_item(store, user, item_id, recent=recent)
    except (NotFound, AccessDenied):
        return
    st.markdown(f"**Comparáveis** — decisões publicadas da Comissão em outros contratos: {md(_key_text(c))}")
    if not c.count:
        st.caption("Nenhuma decisão publicada de item semelhante em outros contratos.")
        return
    m = st.columns(4)
    m[0].metric("Decisões", count_br(c.count))
    m[1].metric("1º quartil (Q1)", brl(c.q1))
    m[2].metric("Mediana", brl(c.median))
    m[3].metric("3º quartil (Q3)", brl(c.q3), help=f"Intervalo interquartil (Q3 − Q1): {brl(c.iqr)}")
    st.caption(f"Intervalo interquartil (Q3 − Q1): {brl(c.iqr)}. Valores em reais como decididos (sem correção "
               f"monetária); quartis por interpolação linear. As {count_br(len(c.recent))} decisões mais recentes:")
    rows = pd.DataFrame([{"contract": r.contract_code, "item": r.item_code, "description": r.description,
                          "value": r.value_brl, "historical": yes_no(r.historical), "on": r.decided_on}
                         for r in c.recent])
    st.dataframe(for_display(rows, money=("value",), dates=("on",), rename={
        "contract": "Contrato", "item": "Item", "description": "Descrição", "value": "Valor decidido",
        "historical": "Histórico", "on": "Decidido em"}), hide_index=True, width="stretch")


def flag_column(store: Any, user: Principal, round_id: int, item_ids: list[int]) -> list[str] | None:
    """'sim'/'não' per item for the items table (president and DPC); None for others."""
    if not allowed(user, "read_comparable_flags"):
        return None
    flagged = cp.flagged_ids(store, user, round_id, item_ids)   # the page's items only
    return [yes_no(int(i) in flagged) for i in item_ids]
