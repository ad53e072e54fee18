"""Vencidos e a vencer: the overdue, due-soon and suspended deadlines (for the DPC first by office, with
a chart), and the explanation of one deadline — its state, due date, basis and counting steps."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from page_tabs.deadlines.view import PICK_LIMIT, STATE_COLOURS, DeadlinesView, deadline_table
from ui import figures
from ui.charts import pt_br, show
from ui.fmt import count_br, for_display, option_label
from valuation.deadlines import frames, views
from valuation.deadlines.states import STATE_HEADINGS, STATE_LABELS, STATES

HEADINGS = {s: STATE_HEADINGS[s] for s in ("overdue", "due_soon", "suspended")}   # the lists, in this order
OFFICE_TABLE = {"naval_district": "DN", "office_code": "OM", "uf": "UF", **STATE_HEADINGS}


def render(view: DeadlinesView) -> None:
    frame = view.frame
    if view.manage and not frame.empty:
        by_office = frames.summary_by_office(frame)
        office_chart(by_office)
        st.dataframe(for_display(by_office, counts=list(STATES), rename=OFFICE_TABLE), hide_index=True,
                     width="stretch")
    for state, heading in HEADINGS.items():
        part = frame[frame["state"] == state] if not frame.empty else frame
        st.subheader(f"{heading} ({count_br(len(part))})")
        if part.empty:
            st.caption("Nenhum prazo nesta situação.")
        else:
            deadline_table(part.sort_values(["naval_district", "office_code", "due"], kind="stable"), key=state)
    if not frame.empty:
        explain(frame)


def office_chart(by_office: pd.DataFrame) -> None:
    busy = by_office[(by_office["overdue"] + by_office["due_soon"]) > 0]
    if busy.empty:
        st.success("Nenhum prazo vencido ou por vencer em breve.")
        return
    long = busy.melt(id_vars=["office_code"], value_vars=["overdue", "due_soon"], var_name="state", value_name="n")
    long["Situação"] = [HEADINGS[s] for s in long["state"]]
    fig = figures.bar(long, x="office_code", y="n", color="Situação", barmode="group",
                      color_discrete_map={HEADINGS[s]: STATE_COLOURS[STATE_LABELS[s]] for s in ("overdue", "due_soon")},
                      labels={"office_code": "Capitania/Delegacia/Agência", "n": "Prazos"})
    fig.update_traces(hovertemplate="%{x}: %{y} prazo(s)<extra></extra>")
    show(pt_br(fig, counts=("y",), legend="Situação", height=340))


def explain(frame: pd.DataFrame) -> None:
    ordered = views.pending_first(frame).head(PICK_LIMIT)
    titles = {r["key"]: views.row_title(r) for r in ordered.to_dict("records")}
    key = st.selectbox("Explicar um prazo", list(titles), format_func=option_label(titles))
    row = frame[frame["key"] == key].iloc[0]
    st.text(f"{views.key_text(key)}\nSituação: {row['state_pt']} — {row['reason']}\n"
            f"Vencimento: {views.due_text(row['due'], row['moved_from'])}\nFundamento: {row['basis']}\n\n"
            f"{row['steps']}")
