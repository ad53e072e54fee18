"""The item being looked at (issue 16 §7): principal photo (click for the gallery), physical data
and where and when it was recovered; for the Commission, its comparables."""
from __future__ import annotations

from typing import Any

import streamlit as st

from ui import attachments, comparables
from ui.fmt import date_br, number_br, text
from ui.safe import md
from valuation.commission.item_facts import LABELS, item_facts
from valuation.core.errors import AccessDenied, NotFound
from valuation.db.access import Principal


def facts(store: Any, user: Principal, item_id: int) -> None:
    """Material, weight, dimensions, condition, lot, depth, recovery date (and notes)."""
    try:
        f = item_facts(store, user, item_id)
    except (NotFound, AccessDenied) as exc:
        st.info(str(exc))
        return
    values = {
        "category": text(f.category), "material": text(f.material), "quantity": number_br(f.quantity, 0),
        "weight_g": number_br(f.weight_g, 2), "dimensions": text(f.dimensions), "condition": text(f.condition),
        "lot": text(f.lot), "depth_m": number_br(f.depth_m, 2), "recovered_on": date_br(f.recovered_on),
    }
    lines = [f"**{LABELS[k]}:** {md(v)}" for k, v in values.items()]
    half = (len(lines) + 1) // 2
    c1, c2 = st.columns(2)
    c1.markdown("  \n".join(lines[:half]))
    c2.markdown("  \n".join(lines[half:]))
    if f.notes:
        st.caption(f"{LABELS['notes']}: {md(f.notes)}")


def subject(store: Any, user: Principal, item_id: int) -> str | None:
    """What the item's photos show, for their alternative text: "code — description" (None outside the scope)."""
    try:
        f = item_facts(store, user, item_id)
    except (NotFound, AccessDenied):
        return None
    return f"{f.item_code} — {text(f.description)}"


def show(store: Any, user: Principal, item_id: int, *, key: str, with_comparables: bool = True) -> None:
    """Photo beside the facts; below, the comparables (Commission and DPC)."""
    left, right = st.columns([1, 2])
    with left:
        attachments.principal_photo(store, user, item_id, key=key, alt=subject(store, user, item_id))
    with right:
        facts(store, user, item_id)
    if with_comparables:
        comparables.show(store, user, item_id)
