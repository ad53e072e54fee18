"""Resultado (after the close): the close's results in one view (issue 23 item 7) — how many items were
decided, flagged (spread above the limit or a vote divided by one), outside the comparables (with each
reason) and undecided; then the items of the kind chosen, the flag columns first after the code so that
they are read without scrolling sideways."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from page_tabs.commission.view import ERRORS, RoundView
from ui.fmt import count_br, for_display, percent_br, yes_no
from valuation.commission.closing import RESULT_KINDS, CloseResults, close_results
from valuation.commission.consensus import DECIDED_BY_LABELS
from valuation.commission.views import vote_label

PAGE_SIZE = 50
# the columns as shown and their widths in pixels: the code, the flags, the decision and the value fit in
# the 905 px a 1366 px screen leaves beside the sidebar (no scrolling sideways to read a flag)
COLUMNS = {"Código": 175, "Sinalizado": 90, "Fora dos comparáveis": 150, "Decisão": 190, "Consenso": 110,
           "Valor (R$)": 125, "Dispersão": 85, "Votos sim / não": 115, "Motivo (comparáveis)": 700,
           "Descrição": 300}


def render(view: RoundView) -> None:
    store, user, rid = view.store, view.user, view.rid
    try:
        summary = close_results(store, user, rid, page_size=1)
    except ERRORS as exc:
        st.info(str(exc))
        return
    counts = {"all": summary.items, "decided": summary.decided, "flagged": summary.flagged,
              "outside": summary.outside, "undecided": summary.undecided}
    cards = [("Decididos", summary.decided, "Com quórum e maioria (ou voto do presidente no empate)."),
             ("Sinalizados", summary.flagged, f"Dispersão acima de {percent_br(view.round.spread_threshold)} ou "
              "votação dividida por até um voto: voltam em nova rodada."),
             ("Fora dos comparáveis", summary.outside, "Consenso fora da faixa das decisões publicadas de outros "
              "contratos (motivo na tabela)."),
             ("Sem decisão", summary.undecided, "Sem quórum, ou empate sem voto do presidente.")]
    cards = [c for c in cards if c[1] is not None]
    for col, (label, n, why) in zip(st.columns(len(cards)), cards):
        col.metric(label, count_br(n), help=why)
    kinds = [k for k in RESULT_KINDS if counts[k] is not None]
    kind = st.radio("Mostrar", kinds, horizontal=True, key=f"cm_result_kind_{rid}",
                    format_func=lambda k: f"{RESULT_KINDS[k]} ({count_br(counts[k])})")
    total = counts[kind] or 0
    pages = max(1, -(-total // PAGE_SIZE))
    page = st.number_input(f"Página (de {pages})", min_value=1, max_value=pages, value=1, step=1,
                           key=f"cm_result_page_{rid}_{kind}") if pages > 1 else 1
    res = close_results(store, user, rid, kind=kind, page=int(page), page_size=PAGE_SIZE)
    if not len(res.rows):
        st.caption("Nenhum item nesta situação.")
        return
    table = results_table(res)
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={c: st.column_config.TextColumn(c, width=w)
                                for c, w in COLUMNS.items() if c in table.columns})
    reasons = [f"{c} — {r}" for c, r, o in zip(res.rows["item_code"].tolist(), res.rows["reason"].tolist(),
                                               res.rows["outside"].tolist()) if o]
    if reasons:
        st.markdown(f"**Por que estão fora da faixa dos comparáveis** ({count_br(len(reasons))} nesta página)")
        st.text("\n\n".join(reasons))


def results_table(res: CloseResults) -> pd.DataFrame:
    """The page of results in words, the flags first after the item code."""
    df = res.rows
    table = pd.DataFrame({"Código": df["item_code"].tolist()})
    table["Sinalizado"] = [yes_no(bool(f)) for f in df["flagged"].tolist()]
    if res.outside is not None:
        table["Fora dos comparáveis"] = [yes_no(bool(f)) for f in df["outside"].tolist()]
    table["Decisão"] = [DECIDED_BY_LABELS.get(d, d) for d in df["decided_by"].tolist()]
    table["Consenso"] = [vote_label(h) if d != "undecided" else "—"
                         for h, d in zip(df["historical"].tolist(), df["decided_by"].tolist())]
    table["Valor (R$)"] = df["value_brl"].tolist()
    table["Dispersão"] = [percent_br(v) for v in df["spread"].tolist()]
    table["Votos sim / não"] = [f"{f} / {g}" for f, g in zip(df["votes_for"].tolist(), df["votes_against"].tolist())]
    if res.outside is not None:
        table["Motivo (comparáveis)"] = df["reason"].tolist()
    table["Descrição"] = df["description"].tolist()
    return for_display(table, money=("Valor (R$)",))
