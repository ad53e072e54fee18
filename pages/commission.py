"""Avaliação da Comissão Interministerial (Lei 7.542/1986 art. 20 §3; art. 21 §2): rounds of votes
and values per item (Delphi: a member sees only own entries until the close, then the anonymous
median and spread), entry one item at a time or by sheet, the president's workflow (open, close,
decide, override, publish), the panel's agreement and the minutes (ata).

This file chooses the contract and the round (the president opens one here) and draws the tab bar;
each tab is a module of page_tabs/commission/."""
from __future__ import annotations

import streamlit as st

from page_tabs.commission import agreement, items, minutes, presidency, progress, results, sheet
from page_tabs.commission.view import RoundView, done, show_flash
from ui import choices, session
from ui.expanders import lazy_expander
from ui.fmt import count_br, day_br, moment_br, percent_br
from ui.forms import save
from ui.tabs import LazyTabs
from valuation.commission.rounds import flagged_counts, get_round, list_rounds, open_round
from valuation.commission.views import round_contracts
from valuation.db.access import allowed

TABS = {"Itens": items.render, "Resultado": results.render, "Planilha": sheet.render,
        "Presidência": presidency.render, "Andamento": progress.render, "Concordância": agreement.render,
        "Ata": minutes.render}

user = session.guard("commission")
store = session.store()
is_member = allowed(user, "enter_assessments")
is_president = allowed(user, "open_rounds")
st.title("Avaliação da Comissão")
st.caption("Comissão Interministerial (3 membros da Marinha e 3 do Ministério da Cultura; NORMAM-10 (ed. 2002) 0303 c "
           "1 I): "
           "classifica os bens e atribui valores considerando os preços do mercado internacional (Lei 7.542/1986, "
           "art. 20 §3; art. 21 §2). Enquanto a rodada está aberta, cada membro vê apenas as próprias avaliações.")
show_flash()

contracts = round_contracts(store, user)
if not contracts:
    st.info("Nenhum contrato com bens resgatados para avaliar.")
    st.stop()
by_code = {c.code: c for c in contracts}
code = choices.selectbox("Contrato", list(by_code), format_func=lambda k: by_code[k].label, key="cm_contract")
rounds = list_rounds(store, user, code)

if is_president and not any(r.status == "aberta" for r in rounds):
    with lazy_expander("Abrir nova rodada", expanded=not rounds, key="commission_open_box") as opened:
        if opened:
            flagged = flagged_counts(store, user, rounds)
            sources = [0] + [round_id for round_id, n in flagged.items() if n]
            numbers = {r.id: r.number for r in rounds}
            source = st.radio("Itens", sources, key=f"cm_open_from_{code}", format_func=lambda i: (
                f"Todos os itens do contrato ({count_br(by_code[code].items)})" if i == 0
                else f"Itens sinalizados da rodada {numbers[i]} ({count_br(flagged[i])})"))
            if st.button("Abrir rodada", type="primary", key="cm_open"):
                new = save(open_round, store, user, code, from_round=source or None, success=None)
                done(new, "" if new is None else f"Rodada {new.number} aberta com {count_br(new.item_count)} itens.")

if not rounds:
    st.info("Este contrato ainda não tem rodadas de avaliação.")
    st.stop()
by_id = {r.id: r for r in rounds}
rid = choices.selectbox("Rodada", list(by_id), key=f"cm_round_{code}", format_func=lambda i: (
    f"Rodada {by_id[i].number} — {by_id[i].status_label} · {count_br(by_id[i].item_count)} itens"))
rnd = get_round(store, user, rid)
m = [*st.columns(3), *st.columns(3)]     # two rows: at six a row the day and the quorum were cut ("16/11/…")
m[0].metric("Situação", rnd.status_label)
m[1].metric("Itens", count_br(rnd.item_count))
m[2].metric("Aberta em", day_br(rnd.opened_at), help=moment_br(rnd.opened_at, zone=True))
m[3].metric("Encerrada em", day_br(rnd.closed_at), help=moment_br(rnd.closed_at, zone=True) if rnd.closed_at else None)
m[4].metric("Método", rnd.method_label,
            help=f"Sinaliza dispersão acima de {percent_br(rnd.spread_threshold)} ou votação dividida por até um voto.")
m[5].metric("Quórum", f"{rnd.quorum} membros")

view = RoundView(user=user, store=store, round=rnd, is_member=is_member, is_president=is_president,
                 sees_names=allowed(user, "read_member_names"))
tab_names = ["Itens"] + (["Resultado"] if not rnd.is_open else []) \
    + (["Planilha"] if is_member and rnd.is_open else []) \
    + (["Presidência"] if is_president else []) \
    + (["Andamento"] if not is_member and allowed(user, "follow_round_progress") and rnd.is_open else []) \
    + (["Concordância", "Ata"] if not rnd.is_open else [])
tabs = LazyTabs("commission", tab_names)   # issue 17: only the open tab runs
with tabs.panel():
    TABS[tabs.current](view)
