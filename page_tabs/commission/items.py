"""Itens: one page of the round's items as the user may see them (own entries while the round is open,
the progress for the DPC, the anonymous median and spread after the close) and the item chosen."""
from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st

from page_tabs.commission.entry import GOTO, item_panel
from page_tabs.commission.view import ERRORS, RoundView, show_flash
from ui import comparables as comparables_ui
from ui.fmt import for_display, money_in, percent_br, yes_no
from ui.fragments import in_fragment_rerun, page_fragment
from valuation.commission.consensus import DECIDED_BY_LABELS
from valuation.commission.rounds import RoundOverview, get_round, round_overview
from valuation.commission.views import vote_label
from valuation.db.access import Principal

PAGE_SIZES = [25, 50, 100, 200]


def render(view: RoundView) -> None:
    """The tab as a fragment: choosing an item, turning a page or saving an entry reruns the tab alone (the
    page's top — contract, round, its figures — does not change with them; ui/fragments.py)."""
    page_fragment("commission", _render, view, user=view.user, refresh=_refreshed)


def _refreshed(view: RoundView, user: Principal) -> RoundView | None:
    """In the tab's own rerun: the round as it is now; None (the whole page again) once its state changed."""
    try:
        rnd = get_round(view.store, user, view.rid)
    except ERRORS:
        return None
    if rnd.status != view.round.status:
        return None
    return dataclasses.replace(view, user=user, round=rnd)


def _render(view: RoundView) -> None:
    if in_fragment_rerun():
        show_flash()        # a saved entry's outcome: the page's top, where it is shown otherwise, is not rerun
    store, user, rid = view.store, view.user, view.rid
    go_to(rid, int(st.session_state.get("cm_size", PAGE_SIZES[0])))
    a, b = st.columns(2)
    size = a.selectbox("Itens por página", PAGE_SIZES, key="cm_size")
    pages = max(1, -(-view.round.item_count // size))   # the round's items (as many as its pivot rows)
    page = b.number_input(f"Página (de {pages})", min_value=1, max_value=pages, step=1, key=f"cm_page_{rid}")
    ov = round_overview(store, user, rid, page=int(page), page_size=int(size))
    df = ov.items
    st.dataframe(for_display(items_table(view, ov), money=("Meu valor (R$)", "Mediana (R$)", "Valor (R$)"),
                             counts=("Membros que avaliaram",)), hide_index=True, width="stretch")
    if ov.visibility == "own":
        st.caption("Rodada aberta: você vê apenas as suas avaliações. A mediana e a dispersão anônimas aparecem "
                   "depois do encerramento.")
    elif ov.visibility == "progress":
        st.caption("Rodada aberta: a DPC acompanha o andamento — quantos membros avaliaram cada item e, na aba "
                   "Andamento, quantos itens cada membro avaliou. Os valores e votos aparecem no encerramento, "
                   "como para os membros (independência das avaliações).")
    if len(df) and ov.visibility != "progress":
        codes = df["item_code"].tolist()
        sel = st.selectbox("Item", range(len(codes)), key=f"cm_item_{rid}_{page}",
                           format_func=lambda k: f"{codes[k]} — {df['description'].iloc[k]}")
        row = df.iloc[sel]
        st.session_state[f"cm_last_item_{rid}"] = str(row["item_code"])   # the override form's default
        item_panel(view, row, ov)


def go_to(rid: int, size: int) -> None:
    """Open the page and the item the member's last saved entry moves on to (entry.GOTO), once."""
    pos = st.session_state.pop(GOTO.format(rid=rid), None)
    if pos is None:
        return
    page = (int(pos) - 1) // size + 1
    st.session_state[f"cm_page_{rid}"] = page
    st.session_state[f"cm_item_{rid}_{page}"] = (int(pos) - 1) % size


def items_table(view: RoundView, ov: RoundOverview) -> pd.DataFrame:
    """The page of items in words: the member's own entry, the progress, or the consensus after the close."""
    df = ov.items
    table = pd.DataFrame({"Código": df["item_code"], "Descrição": df["description"]})
    if view.is_member:
        table["Meu voto"] = [vote_label(v) for v in df["my_historical"].tolist()]
        table["Meu valor"] = [money_in(a, c) for a, c in zip(df["my_amount"].tolist(), df["my_currency"].tolist())]
        table["Meu valor (R$)"] = df["my_value_brl"].tolist()
    if ov.visibility == "progress":
        table["Membros que avaliaram"] = df["entries"].tolist()
    if ov.visibility in ("anonymous", "full"):
        table["Votos sim / não"] = [f"{f} / {g}" for f, g in zip(df["votes_for"].tolist(),
                                                                   df["votes_against"].tolist())]
        table["Mediana (R$)"] = df["median_brl"].tolist()
        table["Dispersão"] = [percent_br(v) for v in df["spread"].tolist()]
        table["Consenso"] = [vote_label(h) if d != "undecided" else DECIDED_BY_LABELS["undecided"]
                             for h, d in zip(df["historical"].tolist(), df["decided_by"].tolist())]
        table["Valor (R$)"] = df["value_brl"].tolist()
        table["Sinalizado"] = [yes_no(bool(f)) for f in df["flagged"].tolist()]
        outside = comparables_ui.flag_column(view.store, view.user, view.rid, df["item_id"].tolist())
        if outside is not None:
            table["Fora dos comparáveis"] = outside
    return table
