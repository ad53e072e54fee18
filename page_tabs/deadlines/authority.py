"""O que a Autoridade deve: what each office must decide or do in the requests filed with it (Lei 9.784/1999
arts. 24, 26 §2, 41, 42 and 49), overdue and due soon, each with its article and explanation; the parties'
own periods in those requests (arts. 39 and 44); and the office's open requests by age. The store scopes the rows
(an explorer sees its own company's requests). For DPC (`manage_requests`), above them, the forms that file a
request and record its steps (page_tabs/deadlines/request_forms.py)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from page_tabs.deadlines.case_pdf import case_history_section
from page_tabs.deadlines.request_forms import offer_forms
from page_tabs.deadlines.view import PICK_LIMIT, ROW_HEIGHT, STATE_COLOURS, DeadlinesView
from ui import cache, figures
from ui.charts import pt_br, show
from ui.fmt import count_br, date_br, for_display, option_label
from valuation.core.errors import ValuationError
from valuation.deadlines.states import STATE_HEADINGS, STATE_LABELS
from valuation.proceedings import periods
from valuation.process import numbers

# the basis right after what to do and when (issue 23 item 12: it must fit the 1366 px table), the case after
DUE_COLUMNS = {"office_code": "OM", "label": "O que fazer", "due": "Vencimento", "state_pt": "Situação",
               "basis": "Fundamento", "days_late": "Dias de atraso", "case_pt": "Processo",
               "nup": "NUP", "wreck": "Naufrágio", "matter_pt": "Assunto"}
WIDTHS = {"OM": 110, "O que fazer": 190, "Vencimento": 90, "Situação": 110, "Fundamento": 260, "Dias de atraso": 70,
          "Processo": 150, "NUP": 170, "Naufrágio": 80, "Assunto": 260}
OPEN_COLUMNS = {"office_code": "OM", "id": "Requerimento nº", "nup": "NUP", "age_days": "Idade (dias)",
                "step": "Etapa atual",
                "requested_on": "Protocolado em", "matter_pt": "Assunto", "organisation": "Empresa",
                "wreck": "Naufrágio"}
AGE_BANDS = ((30, "até 30 dias"), (90, "31 a 90 dias"), (180, "91 a 180 dias"), (10 ** 6, "mais de 180 dias"))


def render(view: DeadlinesView) -> None:
    st.caption("Prazos que correm contra a Autoridade Naval nos requerimentos (Lei 9.784/1999): atos sem prazo "
               "específico em 5 dias, dilatáveis até o dobro com justificação (art. 24); parecer em 15 dias (art. 42); "
               "intimação com antecedência mínima de 3 dias úteis (arts. 26 §2 e 41); decisão em 30 dias da "
               "conclusão da instrução, prorrogável uma vez por igual período com motivação (art. 49). Do "
               "interessado: informações ou documentos pedidos, na data fixada na intimação (art. 39) ou em 5 dias "
               "(art. 24); alegações finais em 10 dias (art. 44). Contagem do "
               "art. 66 com o calendário de cada Capitania; a vencer: aviso da política de prazos.")
    offer_forms(view)   # DPC: before the tables, which are read after a write and so show it
    try:
        owed = cache.authority_deadlines(view.store, view.user, as_of=view.as_of, office=view.office)
        opened = cache.open_requests(view.store, view.user, as_of=view.as_of, office=view.office)
    except ValuationError as exc:
        st.error(str(exc))
        return
    mine = [r for r in owed if r["owed_by"] == periods.AUTHORITY]
    for state in ("overdue", "due_soon"):
        part = [r for r in mine if r["state"] == state]
        st.subheader(f"{STATE_HEADINGS[state]} — a Autoridade deve ({count_br(len(part))})")
        _table(part)
    if mine:
        _office_chart(mine)
    theirs = [r for r in owed if r["owed_by"] == periods.PARTY and r["state"] in ("overdue", "due_soon")]
    st.subheader(f"Prazos dos interessados nos requerimentos ({count_br(len(theirs))})")
    _table(theirs)
    if owed:
        _explain(owed)
    st.subheader(f"Requerimentos em aberto, por idade ({count_br(len(opened))})")
    _open_table(opened)
    case_history_section(view, opened)
    if view.manage:
        _decision_chart(cache.decision_times(view.store, view.user, as_of=view.as_of))


def _table(rows: list[dict]) -> None:
    if not rows:
        st.caption("Nenhum prazo nesta situação.")
        return
    frame = pd.DataFrame(rows)[list(DUE_COLUMNS)].sort_values(["office_code", "due"], kind="stable")
    st.dataframe(for_display(frame, dates=["due"], counts=["days_late"], rename=DUE_COLUMNS), hide_index=True,
                 width="stretch", column_config={c: st.column_config.Column(width=w) for c, w in WIDTHS.items()},
                 row_height=ROW_HEIGHT)


def _office_chart(rows: list[dict]) -> None:
    frame = pd.DataFrame(rows)
    busy = frame[frame["state"].isin(("overdue", "due_soon"))]
    if busy.empty:
        return
    counts = busy.groupby(["office_code", "state"], as_index=False).size().rename(columns={"size": "n"})
    counts["Situação"] = [STATE_HEADINGS[s] for s in counts["state"]]
    fig = figures.bar(counts, x="office_code", y="n", color="Situação", barmode="group",
                      color_discrete_map={STATE_HEADINGS[s]: STATE_COLOURS[STATE_LABELS[s]]
                                          for s in ("overdue", "due_soon")},
                      labels={"office_code": "Capitania/Delegacia/Agência", "n": "Prazos da Autoridade"})
    fig.update_traces(hovertemplate="%{x}: %{y} prazo(s)<extra></extra>")
    show(pt_br(fig, counts=("y",), legend="Situação", height=320))


def _explain(rows: list[dict]) -> None:
    picked = rows[:PICK_LIMIT]
    titles = {i: f"{r['office_code']} · {r['case_pt']} · {r['label']} · vence {date_br(r['due'])}"
              for i, r in enumerate(picked)}
    i = st.selectbox("Explicar um prazo", list(titles), format_func=option_label(titles), key="authority_explain")
    row = picked[int(i)]
    st.text(f"{row['label']} ({row['owed_by_pt']}) — {row['case_pt']}, {row['matter_pt']}\n"
            f"NUP: {row['nup'] or numbers.NO_UNIT_TEXT.format(office=row['office_code'])}\n"
            f"Situação: {row['state_pt']}\nVencimento: {date_br(row['due'])}\nFundamento: {row['basis']}\n\n"
            + "\n".join(row["steps"]))


def _open_table(rows: list[dict]) -> None:
    if not rows:
        st.caption("Nenhum requerimento em aberto.")
        return
    frame = pd.DataFrame(rows)
    frame["Idade"] = [next(label for top, label in AGE_BANDS if age <= top) for age in frame["age_days"]]
    bands = frame.groupby(["office_code", "Idade"], as_index=False).size().rename(columns={"size": "n"})
    fig = figures.bar(bands, x="office_code", y="n", color="Idade", barmode="relative",
                      category_orders={"Idade": [label for _, label in AGE_BANDS]},
                      labels={"office_code": "Capitania/Delegacia/Agência", "n": "Requerimentos em aberto"})
    fig.update_traces(hovertemplate="%{x}: %{y} requerimento(s)<extra></extra>")
    show(pt_br(fig, counts=("y",), legend="Idade", height=320))
    shown = frame.sort_values(["age_days", "office_code"], ascending=[False, True], kind="stable")[list(OPEN_COLUMNS)]
    st.dataframe(for_display(shown, dates=["requested_on"], counts=["age_days"], rename=OPEN_COLUMNS),
                 hide_index=True, width="stretch")


def _decision_chart(rows: list[dict]) -> None:
    st.subheader("Mediana de dias para decidir, nos últimos 12 meses")
    if not rows:
        st.caption("Nenhum requerimento decidido nos últimos 12 meses.")
        return
    frame = pd.DataFrame(rows)
    frame["Assunto"] = [str(m).capitalize() for m in frame["matter"]]
    fig = figures.bar(frame, x="office_code", y="median_days", color="Assunto", barmode="group",
                      labels={"office_code": "Capitania/Delegacia/Agência", "median_days": "Dias (mediana)"})
    fig.update_traces(hovertemplate="%{x}: mediana de %{y:.1f} dias<extra></extra>")
    show(pt_br(fig, counts=("y",), legend="Assunto", height=340))
    st.caption("Dias corridos do protocolo à decisão, por Capitania e assunto (prazo legal da decisão: 30 dias da "
               "conclusão da instrução, Lei 9.784/1999 art. 49).")
