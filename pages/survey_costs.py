"""Custos de pesquisa (dpc; explorer for its own contracts): the cost sheet filed with the survey
request (NORMAM-10 0301 a 6), the final report's actual costs (0301 c), overruns approved by the DPC
with their reason, the variance per line, where the deduction goes (0303 c 2 I), and the inspection
expenses and inspectors' insurance per contract (0306)."""
from __future__ import annotations

import html

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ui import session
from ui.charts import pt_br, show
from ui.expanders import lazy_expander
from ui.fields import date_field, money_field
from ui.fmt import brl, brl_fit, count_br, date_br, for_display, number_br, option_label
from ui.forms import save
from ui.people import with_names
from ui.safe import md
from ui.tabs import LazyTabs
from valuation.core.money import format_brl
from valuation.db import access
from valuation.partition import survey_sheets
from valuation.registry import contracts

user = session.guard("survey_costs")
store = session.store()
approves_overruns = access.allowed(user, "approve_survey_overruns")
st.title("Custos de pesquisa e despesas de fiscalização")
st.caption("Os gastos do pesquisador que localizou o naufrágio são deduzidos do valor líquido do vencedor e pagos a "
           "ele (NORMAM-10 (ed. 2002) 0303 c 2 I, na licitação da Lei 7.542/1986 art. 27). Gasto acima da planilha de "
           "custos só conta até o excesso aprovado pela Autoridade Naval, e nunca além do efetivamente gasto.")

INSPECTION_LABELS = {"kind": "Tipo", "amount": "Valor (R$)", "incurred_on": "Data", "description": "Descrição",
                     "inspector": "Fiscal", "policy_number": "Apólice (seguro)",
                     "coverage_from": "Cobertura de (seguro)", "coverage_to": "Cobertura até (seguro)"}

tabs = LazyTabs("survey_costs", ["Planilha de custos da pesquisa", "Despesas de fiscalização (NORMAM-10 (ed. 2002) "
                                                                   "0306)"])
if tabs.is_open("Planilha de custos da pesquisa"):
    with tabs["Planilha de custos da pesquisa"]:
        surveys = survey_sheets.list_survey_contracts(store, user)
        if not len(surveys):
            st.info("Nenhum contrato de pesquisa visível para o seu perfil.")
        else:
            wreck = dict(zip(surveys["code"], surveys["wreck_name"]))
            codes = surveys["code"].tolist()
            filed = [k for k, n in zip(codes, surveys["lines"]) if n]
            code = st.selectbox("Pesquisa", codes, index=codes.index(filed[0]) if filed else 0,
                                format_func=lambda k: f"{k} — {wreck[k]}")
            sheet = survey_sheets.cost_sheet(store, user, code)
            m = st.columns(4)
            m[0].metric("Previsto", brl_fit(sheet.planned_total, 4), help=format_brl(sheet.planned_total))
            m[1].metric("Real", brl_fit(sheet.actual_total, 4), help=format_brl(sheet.actual_total))
            m[2].metric("Aceito", brl_fit(sheet.accepted_total, 4), help=format_brl(sheet.accepted_total))
            m[3].metric("Entregue em", date_br(sheet.filed_on) if sheet.filed_on else "não entregue")
            for w in sheet.winners:
                st.info(f"Naufrágio explorado/removido por outro concessionário: o aceito é deduzido no demonstrativo "
                        f"de {md(w['code'])} ({md(w['organisation_name'])}) e creditado a esta empresa "
                        "(NORMAM-10 (ed. 2002) 0303 c 2 I).")
            if sheet.lines:
                lines = pd.DataFrame([{"Nº": ln.line_no, "Linha": ln.line, "Previsto": ln.planned, "Real": ln.actual,
                                       "Excesso aprovado": ln.approved_overrun, "Motivo": ln.overrun_reason or "—",
                                       "Aceito": ln.accepted, "Variação": ln.variance} for ln in sheet.lines])
                st.dataframe(for_display(lines, money=("Previsto", "Real", "Excesso aprovado", "Aceito", "Variação")),
                             hide_index=True, width="stretch")
                fig = go.Figure()
                names = [f"Linha {ln.line_no}" for ln in sheet.lines]
                full = [html.escape(ln.line) for ln in sheet.lines]   # plotly reads tags in hover text
                for label, attr in (("Previsto", "planned"), ("Real", "actual"), ("Aceito", "accepted")):
                    fig.add_bar(name=label, x=names, y=[float(getattr(ln, attr) or 0) for ln in sheet.lines],
                                customdata=full,
                                hovertemplate="%{customdata}<br>R$ %{y:,.2f}<extra>" + label + "</extra>")
                fig.add_scatter(name="Variação (real − previsto)", mode="markers", x=names,
                                y=[float(ln.variance or 0) for ln in sheet.lines],
                                marker={"size": 12, "symbol": "diamond"},
                                customdata=full, hovertemplate="%{customdata}<br>R$ %{y:,.2f}<extra>Variação</extra>")
                pt_br(fig, money=("y",), legend="Valores", height=360)
                fig.update_layout(barmode="group", title="Previsto, real e aceito por linha da planilha",
                                  yaxis_title="Valor", margin={"l": 10, "r": 10, "t": 40, "b": 10})
                show(fig)
                st.caption(" · ".join(f"Linha {ln.line_no}: {md(ln.line)}" for ln in sheet.lines))
            if sheet.reported_on is None:
                with lazy_expander("Entregar (ou substituir) a planilha de custos", expanded=not sheet.lines,
                                   key=f"sc_plan_box_{code}") as opened:
                    if opened:
                        blank_rows = ["", "", ""]
                        start = pd.DataFrame({"Linha": [ln.line for ln in sheet.lines] or blank_rows,
                                              "Previsto (R$)": [number_br(ln.planned, 2) for ln in sheet.lines]
                                              or blank_rows})
                        grid = st.data_editor(start, num_rows="dynamic", hide_index=True, width="stretch",
                                              key=f"plan_{code}")
                        filed_on = date_field("Data de entrega (com o requerimento)", value=session.today(),
                                              key=f"filed_{code}", required=True)
                        if st.button("Entregar planilha", type="primary"):
                            rows = [{"line": r["Linha"], "planned": r["Previsto (R$)"]} for r in grid.to_dict("records")
                                    if str(r.get("Linha") or "").strip() or str(r.get("Previsto (R$)") or "").strip()]
                            if save(survey_sheets.file_cost_sheet, store, user, code, rows, filed_on=filed_on,
                                    success="Planilha entregue com {result} linha(s).") is not None:
                                st.rerun()
            if sheet.lines:
                with lazy_expander("Custos reais do relatório final (NORMAM-10 (ed. 2002) 0301 c)",
                                   key=f"sc_actual_box_{code}") as opened:
                    if opened:
                        grid = st.data_editor(pd.DataFrame({
                            "Nº": [ln.line_no for ln in sheet.lines], "Linha": [ln.line for ln in sheet.lines],
                            "Real (R$)": ["" if ln.actual is None else number_br(ln.actual, 2) for ln in sheet.lines]}),
                            num_rows="dynamic", hide_index=True, width="stretch", disabled=["Nº"], key=f"actual_{code}")
                        reported = date_field("Data do relatório final", value=session.today(), key=f"rep_{code}",
                                              required=True)
                        if st.button("Gravar custos reais"):
                            rows = []
                            for r in grid.to_dict("records"):
                                if not str(r.get("Real (R$)") or "").strip():
                                    continue
                                no = r.get("Nº")
                                rows.append({"line_no": int(no), "actual": r["Real (R$)"]}
                                            if no == no and no is not None
                                            else {"line": r.get("Linha"), "actual": r["Real (R$)"]})
                            if save(survey_sheets.record_actual_costs, store, user, code, rows, reported_on=reported,
                                    success="{result} linha(s) gravada(s).") is not None:
                                st.rerun()
            over = {ln.line_no: f"{ln.line_no}. {ln.line} (excesso {format_brl(ln.actual - ln.planned)})"
                    for ln in sheet.lines if ln.actual is not None and ln.actual > ln.planned}   # line → label
            if approves_overruns and over:
                with lazy_expander("Aprovar excesso (DPC)", key=f"sc_overrun_box_{code}") as opened:
                    if opened:
                        with st.form(f"overrun_{code}"):
                            pick = st.selectbox("Linha", list(over), format_func=option_label(over))
                            amount = money_field("Excesso aprovado (R$)", path="amount", required=True)
                            reason = st.text_area("Motivo da aprovação")
                            ok = st.form_submit_button("Aprovar")
                        if ok and save(survey_sheets.approve_overrun, store, user, code, int(pick), amount, reason,
                                       success="Excesso aprovado.") is not None:
                            st.rerun()

if tabs.is_open("Despesas de fiscalização (NORMAM-10 (ed. 2002) 0306)"):
    with tabs["Despesas de fiscalização (NORMAM-10 (ed. 2002) 0306)"]:
        mine = contracts.list_contracts(store, user, counts=False)
        if not len(mine):
            st.info("Nenhum contrato visível para o seu perfil.")
        else:
            counts = survey_sheets.inspection_counts(store, user)
            wrecks = dict(zip(mine["code"], mine["wreck_name"])) if "wreck_name" in mine.columns else {}
            codes = sorted(mine["code"].tolist(), key=lambda k: (k not in counts, k))  # those with expenses first
            code = st.selectbox("Contrato", codes, key="insp_contract", format_func=lambda k: " — ".join(
                [k, *([wrecks[k]] if wrecks.get(k) else [])]) + (f" ({count_br(counts[k])} registro(s))"
                                                                 if k in counts else ""))
            exp = survey_sheets.list_inspection_expenses(store, user, code)
            st.caption("Deslocamento, alimentação e pousada dos fiscais designados pela Marinha e o seguro obrigatório "
                       "em favor deles são de responsabilidade do autorizado (NORMAM-10 (ed. 2002) 0306 a e b): "
                       "aparecem no "
                       "demonstrativo em seção própria, fora do valor líquido.")
            if len(exp):
                totals = exp.groupby("kind", as_index=False).agg(n=("id", "count"), total=("amount", "sum"))
                shown = with_names(store, user, exp.drop(columns=["id"]), "recorded_by")
                st.dataframe(for_display(shown, money=("amount",),
                                         dates=("incurred_on", "coverage_from", "coverage_to", "recorded_at"),
                                         labels={"kind": survey_sheets.EXPENSE_LABELS},
                                         rename={"kind": "Tipo", "description": "Descrição", "amount": "Valor",
                                                 "incurred_on": "Data", "inspector": "Fiscal",
                                                 "policy_number": "Apólice",
                                                 "coverage_from": "Cobertura de", "coverage_to": "Cobertura até",
                                                 "recorded_by": "Registrado por", "recorded_at": "Em"}),
                             hide_index=True, width="stretch")
                st.caption(" · ".join(f"{survey_sheets.EXPENSE_LABELS.get(k, k)}: {count_br(n)} registro(s), "
                                      f"{brl(t)}" for k, n, t in zip(totals["kind"], totals["n"], totals["total"])))
            else:
                st.info("Nenhuma despesa de fiscalização registrada.")
            with st.form("inspection"):
                a, b, c = st.columns(3)
                data = {"kind": a.selectbox("Tipo", survey_sheets.EXPENSE_KINDS,
                                            format_func=option_label(survey_sheets.EXPENSE_LABELS)),
                        "amount": money_field("Valor (R$)", where=b, path="amount"),
                        "incurred_on": date_field("Data", value=session.today(), where=c, path="incurred_on"),
                        "description": st.text_input("Descrição"), "inspector": a.text_input("Fiscal"),
                        "policy_number": b.text_input("Apólice (seguro)"),
                        "coverage_from": date_field("Cobertura de (seguro)", where=c, path="coverage_from"),
                        "coverage_to": date_field("Cobertura até (seguro)", where=c, path="coverage_to")}
                ok = st.form_submit_button("Registrar despesa")
            given = {k: v for k, v in data.items() if v not in ("", None)}
            if ok and save(survey_sheets.record_inspection_expense, store, user, code, given,
                           success="Despesa registrada.", labels=INSPECTION_LABELS) is not None:
                st.rerun()
