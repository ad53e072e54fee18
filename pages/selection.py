"""Escolha da União (dpc): which decided items are handed over as reward (Lei 7.542 art. 20 §4)
or adjudicated under art. 21 III / art. 22 — locks in/out (stored), two alternatives
side by side, value against significance handed over, and the stored run the statement uses.
Status and certified gap are always shown."""
from __future__ import annotations

from decimal import Decimal

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ui import cache, session
from ui.charts import pt_br, show
from ui.fmt import brl, brl_fit, count_br, for_display, option_label, yes_no
from ui.forms import save, show_problems
from ui.people import person
from ui.tabs import LazyTabs
from valuation.core.errors import InputError
from valuation.core.money import format_brl
from valuation.partition import choice, statement_reads, terms

PAGE_SIZE = 50
LOCK_LABELS = {"": "—", "give": "entregar", "keep": "manter"}
LOCK_KEYS = {v: k for k, v in LOCK_LABELS.items()}

user = session.guard("selection")
store = session.store()
st.title("Escolha da União")
st.caption("Etapa 1: maior valor entregue sem exceder o alvo; etapa 2: entre as soluções dentro da tolerância, a de "
           "menor significância histórica entregue. Itens que a Comissão mandou manter nunca são oferecidos.")


def status_line(status: str, gap: Decimal) -> str:
    return f"Situação: **{choice.STATUS_PT.get(status, status)}** · lacuna certificada: **{choice.percent(gap, 4)}**"


contracts = cache.selection_contracts(store, user)  # issue 17: the cache.* reads, per revision
if not len(contracts):
    st.info("Nenhum contrato de exploração ou remoção.")
    st.stop()
decided = dict(zip(contracts["code"], contracts["decided"]))
codes = contracts["code"].tolist()
ready = statement_reads.ready_contract(contracts)
code = st.selectbox("Contrato", codes, index=codes.index(ready) if ready else 0,
                    format_func=lambda k: f"{k} — {count_br(decided[k])} bem(ns) com decisão")
pool = st.radio("Grupo", choice.POOLS, format_func=option_label(choice.POOL_LABELS), horizontal=True)
try:
    summary = cache.pool_summary(store, user, code, pool)
except InputError as exc:
    show_problems(exc, title="Não é possível calcular a escolha:")
    st.stop()
m = st.columns(3)  # amounts three to a row: never cut
m[0].metric("Valor total", brl_fit(summary.total, 3), help=brl(summary.total))
m[1].metric("Alvo", brl_fit(summary.target, 3), help=brl(summary.target))
m[2].metric("Itens decididos", count_br(summary.items))
n = st.columns(3)
n[0].metric("Manter (Comissão)", count_br(summary.must_keep))
n[1].metric("Travas entregar / manter", f"{count_br(summary.locks_give)} / {count_br(summary.locks_keep)}")
if not summary.applicable:
    st.info(f"A escolha não se aplica: {summary.reason}.")
    st.stop()
run = summary.current_run
if run:
    st.success(f"Escolha gravada em uso: {count_br(run.selected_count)} bem(ns), {format_brl(run.selected_value)} "
               f"(resíduo {format_brl(run.residual)}), significância {run.significance_handed}, tolerância "
               f"{choice.percent(run.tolerance)}.  \n" + status_line(run.status, run.gap))
else:
    st.warning("Nenhuma escolha gravada corresponde aos dados atuais: compare e adote uma alternativa "
               "(ou o rascunho do demonstrativo a calculará com as travas gravadas).")

tabs = LazyTabs("selection", ["Travas", "Comparar alternativas", "Escolhas gravadas"])   # issue 17: the open tab runs
if tabs.is_open("Travas"):
    with tabs["Travas"]:
        a, b, c = st.columns([2, 1, 1])
        search = a.text_input("Buscar item (código ou descrição)")
        only = b.checkbox("Só itens travados")
        df, total = cache.pool_items(store, user, code, pool=pool, page=1, page_size=PAGE_SIZE, search=search,
                                     locked_only=only)
        pages = max(1, -(-total // PAGE_SIZE))
        page = c.number_input(f"Página (de {count_br(pages)})", min_value=1, max_value=pages, value=1, step=1)
        if int(page) != 1:
            df, total = cache.pool_items(store, user, code, pool=pool, page=int(page), page_size=PAGE_SIZE,
                                         search=search, locked_only=only)
        # the item id is the (hidden) index: the editor hands it back with each row, never shows it
        view = pd.DataFrame({
            "Item": df["item_code"].tolist(),
            "Descrição": df["description"].tolist(), "Valor": [format_brl(v) for v in df["value_brl"].tolist()],
            "Significância": ["—" if pd.isna(v) else str(int(v)) for v in df["significance"].tolist()],
            "Manter (Comissão)": [yes_no(bool(v)) for v in df["must_keep"].tolist()],
            "Trava": [LOCK_LABELS.get(v or "", "—") if isinstance(v, str) or v is None else "—"
                      for v in df["lock"].tolist()],
        }, index=pd.Index(df["item_id"].astype("int64").tolist(), name="item"))
        if len(view):
            edited = st.data_editor(view, hide_index=True, width="stretch", key=f"locks_{code}_{pool}_{page}",
                                    disabled=[col for col in view.columns if col != "Trava"],
                                    column_config={"Trava": st.column_config.SelectboxColumn(
                                        "Trava", options=list(LOCK_LABELS.values()), required=True)})
        else:
            edited = view
            st.info("Nenhum item na seleção.")
        st.caption(f"{count_br(total)} item(ns); página {count_br(int(page))} de {count_br(pages)}.")
        if st.button("Gravar travas desta página", disabled=not len(view)):
            changes = {int(i): LOCK_KEYS[new] or None for i, old, new in
                       zip(view.index, view["Trava"], edited["Trava"]) if old != new}
            if save(choice.set_locks, store, user, code, changes, success="{result} trava(s) gravada(s).") is not None:
                st.rerun()

if tabs.is_open("Comparar alternativas"):
    with tabs["Comparar alternativas"]:
        st.caption("Cada alternativa parte das travas gravadas; acrescente códigos a entregar, manter ou liberar e a "
                   "tolerância (percentual do alvo).")
        cols = st.columns(2)
        specs = {}
        for col, name in zip(cols, ("A", "B")):
            with col:
                st.markdown(f"**Alternativa {name}**")
                tol = st.text_input("Tolerância (% do alvo)",
                                    value=f"{summary.tolerance_policy * 100:g}".replace(".", ","),
                                    key=f"tol_{name}")
                give = st.text_input("Entregar (códigos, separados por vírgula)", key=f"give_{name}")
                keep = st.text_input("Manter (códigos)", key=f"keep_{name}")
                free = st.text_input("Liberar travas (códigos)", key=f"free_{name}")
                specs[name] = (tol, give, keep, free)

        def overrides(give: str, keep: str, free: str) -> dict[int, str | None]:
            out: dict[int, str | None] = {}
            for text, lock in ((free, None), (give, "give"), (keep, "keep")):
                codes = [s for s in text.replace(";", ",").split(",") if s.strip()]
                for item_id in choice.item_ids_for_codes(store, user, code, codes, pool=pool).values():
                    out[item_id] = lock
            return out

        key = f"alternatives_{code}_{pool}"
        if st.button("Calcular A e B", type="primary"):
            results = {}
            try:
                with st.status("Calculando as alternativas…", expanded=False) as status:
                    for name, (tol, give, keep, free) in specs.items():
                        share = terms.share_from_percent(tol, "tolerance",
                                                         f"Tolerância (% do alvo), alternativa {name}")
                        ov = overrides(give, keep, free)
                        results[name] = (choice.compute_selection(store, user, code, pool=pool, tolerance=share,
                                                                  lock_overrides=ov), ov)
                        status.update(label=f"Alternativa {name} calculada")
                st.session_state[key] = results
            except InputError as exc:
                show_problems(exc)
        results = st.session_state.get(key, {})
        if results:
            cols = st.columns(2)
            for col, (name, (out, ov)) in zip(cols, results.items()):
                res = out.result
                with col:
                    st.markdown(f"**Alternativa {name}** — tolerância {choice.percent(out.tolerance)}")
                    st.markdown(status_line(res.status, res.gap))
                    st.metric("Valor entregue", format_brl(res.selected_value),
                              delta=f"resíduo {format_brl(res.residual)}", delta_color="off")
                    st.metric("Significância entregue", count_br(res.significance_handed))
                    st.caption(f"{count_br(len(out.selected_ids))} bem(ns) · método: {choice.method_pt(res.method)} · "
                               f"{res.message}")
                    if st.button(f"Adotar {name}", key=f"adopt_{name}", disabled=res.status == "infeasible"):
                        saved = save(choice.save_selection, store, user, code, pool=pool, tolerance=out.tolerance,
                                     lock_overrides=ov, label=f"alternativa {name}",
                                     success=f"Escolha {name} gravada (execução nº {{result.run_id}}).")
                        if saved is not None:
                            st.session_state.pop(key, None)
                            st.rerun()
            fig = go.Figure()
            for name, (out, _) in results.items():
                fig.add_bar(name=f"Alternativa {name}", x=[f"Significância {s}" for s, _, _ in out.by_significance],
                            y=[float(v) for _, _, v in out.by_significance])
            pt_br(fig, money=("y",), legend="Alternativa", height=340)
            fig.update_layout(barmode="group", title="Valor entregue por nível de significância",
                              yaxis_title="Valor entregue", margin={"l": 10, "r": 10, "t": 40, "b": 10})
            show(fig)
            scatter = go.Figure()
            for name, (out, _) in results.items():
                scatter.add_scatter(x=[out.result.significance_handed], y=[float(out.result.selected_value)],
                                    mode="markers+text", text=[name], textposition="top center",
                                    name=f"Alternativa {name}", marker={"size": 16})
            scatter.add_hline(y=float(summary.target or 0), line_dash="dash", annotation_text="alvo")
            pt_br(scatter, counts=("x",), money=("y",), legend="Alternativa", height=340)
            scatter.update_layout(title="Valor × significância entregue", xaxis_title="Significância entregue (soma)",
                                  yaxis_title="Valor entregue", margin={"l": 10, "r": 10, "t": 40, "b": 10})
            show(scatter)

if tabs.is_open("Escolhas gravadas"):
    with tabs["Escolhas gravadas"]:
        runs = choice.selection_runs(store, user, code, pool)
        if not runs:
            st.info("Nenhuma escolha gravada.")
        else:
            table = pd.DataFrame([{
                "Nº": r.id, "Em uso": yes_no(r.current), "Rótulo": r.label or "—",
                "Situação": choice.STATUS_PT.get(r.status), "Lacuna": choice.percent(r.gap, 4), "Alvo": r.target,
                "Entregue": r.selected_value, "Itens": r.selected_count, "Significância": r.significance_handed,
                "Tolerância": choice.percent(r.tolerance), "Por": person(store, user, r.ran_by),
                "Em": r.ran_at} for r in runs])
            st.dataframe(for_display(table, money=("Alvo", "Entregue"), dates=("Em",),
                                     counts=("Itens", "Significância")),
                         hide_index=True, width="stretch")
            chosen = runs[0] if not any(r.current for r in runs) else next(r for r in runs if r.current)
            breakdown = choice.run_breakdown(store, user, chosen.id)
            if len(breakdown):
                fig = go.Figure(go.Bar(x=[f"Significância {int(s)}" for s in breakdown["significance"]],
                                       y=[float(v) for v in breakdown["value_brl"]]))
                pt_br(fig, money=("y",), height=300)
                fig.update_layout(title=f"Execução nº {chosen.id}: valor entregue por significância",
                                  yaxis_title="Valor entregue", margin={"l": 10, "r": 10, "t": 40, "b": 10})
                show(fig)
