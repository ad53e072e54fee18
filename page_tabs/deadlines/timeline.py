"""Linha do tempo: one contract's deadlines as bars from start to due date, with today's line (the
contract with the nearest pending deadline first), and the same deadlines as a list — those without a due
date too (a suspended one, a met one that had none)."""
from __future__ import annotations

import streamlit as st

from page_tabs.deadlines.view import STATE_COLOURS, DeadlinesView, deadline_table
from ui import figures
from ui.charts import pt_br, show, today_line
from ui.fmt import count_br, date_br, is_blank, text
from valuation.deadlines import frames, views

CONTRACT_COLUMNS = ("label_pt", "due", "state_pt", "basis", "met_on", "reason")


def render(view: DeadlinesView) -> None:
    frame, as_of = view.frame, view.as_of
    codes = sorted({c for c in frame["contract_code"] if not is_blank(c)}) if not frame.empty else []
    if not codes:
        st.info("Nenhum contrato com prazos.")
        return
    orgs = dict(zip(frame["contract_code"], frame["organisation"]))
    first = views.nearest_pending_contract(frame, as_of)
    code = st.selectbox("Contrato", codes, index=codes.index(first) if first in codes else 0,
                        format_func=lambda c: f"{c} — {text(orgs.get(c))}",
                        help="Abre no contrato com o prazo pendente mais próximo da data de referência.")
    mine = frame[frame["contract_code"] == code]
    part = mine[mine["due"].notna()]  # a bar needs a due date
    tl = frames.timeline_frame(part)
    tl["from"] = [date_br(d) for d in tl["start"]]
    tl["due"] = [views.due_text(d, m) for d, m in zip(part["due"], part["moved_from"])]
    tl["why"] = part["reason"].to_numpy()
    fig = figures.timeline(tl, x_start="start", x_end="finish", y="task", color="state_pt",
                           color_discrete_map=STATE_COLOURS, custom_data=["from", "due", "state_pt", "why"],
                           labels={"task": "Prazo", "state_pt": "Situação"})
    fig.update_yaxes(autorange="reversed", title_text="")
    fig.update_xaxes(title_text="Período do prazo (do início ao vencimento)")
    fig.update_traces(hovertemplate="<b>%{y}</b><br>de %{customdata[0]} a %{customdata[1]}<br>"
                                    "%{customdata[2]}: %{customdata[3]}<extra></extra>")
    today_line(fig, as_of, label=f"hoje ({date_br(as_of)})")
    show(pt_br(fig, dates=("x",), legend="Situação", height=max(320, 26 * len(tl) + 120)))
    st.subheader(f"Prazos do contrato {code} ({count_br(len(mine))})")
    deadline_table(views.pending_first(mine), CONTRACT_COLUMNS, key="contract")
