"""Decisões publicadas da Comissão (Lei 7.542/1986 art. 20 §3): per contract, the decision in force
of each item among the published rounds, totals of historical and other items, XLSX download.
An explorer sees only its own contracts (the store scopes the rows)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import cache, session
from ui.fmt import brl, brl_fit, count_br, for_display, yes_no
from valuation.commission.decisions import published_decisions
from valuation.commission.rounds import list_rounds, reads_published_only
from valuation.commission.views import DECISION_LABELS, decisions_xlsx
from valuation.core.errors import AccessDenied, NotFound

PAGE_SIZE = 100
GROUPS: dict[str, bool | None] = {"todos": None, "históricos": True, "demais": False}

user = session.guard("decisions")
store = session.store()
st.title("Decisões publicadas")
st.caption("Classificação (histórico ou não) e valor atribuído pela Comissão Interministerial a cada bem resgatado, "
           "depois de publicados (Lei 7.542/1986, art. 20 §3; art. 21 §2).")

published = [r for r in list_rounds(store, user) if r.status == "publicada"]
codes = sorted({r.contract_code for r in published})
if not codes:
    st.info("Nenhuma decisão publicada" + (" para os contratos da sua empresa." if reads_published_only(user) else "."))
    st.stop()
code = st.selectbox("Contrato", codes, key="dec_contract", format_func=lambda c: f"{c} — "
                    f"{count_br(sum(1 for r in published if r.contract_code == c))} rodada(s) publicada(s)")
try:  # issue 17: totals and one page in SQL; the whole contract's rows only for the download
    t = cache.decisions_summary(store, user, code)
except (AccessDenied, NotFound) as exc:
    st.error(str(exc))
    st.stop()

m = st.columns(3)
m[0].metric("Itens decididos", count_br(t.items))
m[1].metric("Históricos", count_br(t.historical), help="art. 20 §3: de valor artístico, histórico ou arqueológico")
m[2].metric("Demais itens", count_br(t.other))
v = st.columns(3)  # amounts on their own row: never cut
v[0].metric("Valor históricos", brl_fit(t.historical_value, 3), help=brl(t.historical_value))
v[1].metric("Valor demais", brl_fit(t.other_value, 3), help=brl(t.other_value))
v[2].metric("Valor total decidido", brl_fit(t.total_value, 3), help=brl(t.total_value))
st.caption(f"{count_br(t.must_keep)} item(ns) que a Comissão propõe manter com a União.")
numbered = [f"rodada {r.number}: NUP {r.nup_label}" for r in published if r.contract_code == code and r.nup_label]
if numbered:
    st.caption("Processo das decisões — " + "; ".join(numbered) + ".")

a, b, c = st.columns(3)
group = a.radio("Grupo", list(GROUPS), horizontal=True, key="dec_group")
search = b.text_input("Buscar (código ou descrição)", key="dec_search")
historical = GROUPS[group]
page_box = c.empty()   # the page number is asked once the selection's size is known
last = int(st.session_state.get("dec_page") or 1)
shown, selected = cache.decisions_page(store, user, code, historical=historical, search=search, page=max(1, last),
                                       page_size=PAGE_SIZE)
pages = max(1, -(-selected // PAGE_SIZE))
if last > pages:   # the filter shrank the selection: back to its last page
    st.session_state["dec_page"] = last = pages
    shown, selected = cache.decisions_page(store, user, code, historical=historical, search=search, page=last,
                                           page_size=PAGE_SIZE)
page = page_box.number_input(f"Página (de {count_br(pages)})", min_value=1, max_value=pages, step=1,
                             key="dec_page")
shown = pd.DataFrame(shown).copy()
for col in ("historical", "must_keep"):
    shown[col] = [yes_no(bool(v)) for v in shown[col].tolist()]
if len(shown):
    st.dataframe(for_display(shown, money=("value_brl",), dates=("decided_at", "published_at"),
                             counts=("significance", "round_number"),
                             only=list(DECISION_LABELS), rename=DECISION_LABELS), hide_index=True, width="stretch")
else:
    st.info("Nenhuma decisão na seleção.")
st.caption(f"{count_br(selected)} item(ns) na seleção; página {count_br(int(page))} de {count_br(pages)}.")
st.download_button("Baixar XLSX (todas as decisões do contrato)",
                   data=lambda: decisions_xlsx(published_decisions(store, user, code), code),
                   file_name=f"decisoes_{code.replace('/', '-')}.xlsx", key="dec_xlsx",
                   mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
