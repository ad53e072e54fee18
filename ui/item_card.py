"""The item being looked at (issue 16 §7): principal photo (click for the gallery), physical data
and where and when it was recovered; for the Commission, its comparables."""
from __future__ import annotations

from typing import Any

import streamlit as st

from ui import attachments, comparables
from ui.fmt import date_br, number_br, text
from ui.safe import md
from valuation.commission.item_facts import LABELS, ItemFacts, item_facts
from valuation.core.errors import AccessDenied, NotFound
from valuation.db.access import Principal


def facts(store: Any, user: Principal, item_id: int) -> None:
    """Material, weight, dimensions, condition, lot, depth, recovery date (and notes)."""
    try:
        f = item_facts(store, user, item_id)
    except (NotFound, AccessDenied) as exc:
        st.info(str(exc))
        return
    draw_facts(f)


def draw_facts(f: ItemFacts) -> None:
    """The facts read once (`item_facts`), in two columns."""
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


def subject(f: ItemFacts) -> str:
    """What the item's photos show, for their alternative text: "code — description"."""
    return f"{f.item_code} — {text(f.description)}"


def show(store: Any, user: Principal, item_id: int, *, key: str, with_comparables: bool = True) -> None:
    """Photo beside the facts; below, the comparables (Commission and DPC)."""
    try:
        f: ItemFacts | None = item_facts(store, user, item_id)     # read once: the photo's text and the facts
    except (NotFound, AccessDenied) as exc:
        f, refused = None, str(exc)
    left, right = st.columns([1, 2])
    with left:
        attachments.principal_photo(store, user, item_id, key=key, alt=None if f is None else subject(f))
    with right:
        if f is None:
            st.info(refused)
        else:
            draw_facts(f)
    if with_comparables:
        comparables.show(store, user, item_id)
